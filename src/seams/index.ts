// `mnemo-engine/seams`: the small interfaces a new backend implements (store areas, sub-stores, vector search) and the rows they exchange.
export type { ChunkStore, ChunkPage, ChunkWithVector, ListChunksOptions, TurnSummary } from './chunk-store.js';
export type { SaveStore, RewindCounts, ForkCounts, ImportCounts, SaveImport } from './save-store.js';
export type { MetaStore } from './meta-store.js';
export type { StoreLifecycle } from './store-lifecycle.js';
export type { Store, NewChunk } from './store.js';
export type { IndexRow } from './index-row.js';
export type { WriteResult } from './write-result.js';
export type { VectorSearch, VectorSearchOptions, VectorMatch, ScoreTotals } from './vector-search.js';
export type { LoreStore, LoreEntry, NewLoreEntry, LoreEntryUpdate, LoreChangeSet, LoreWriteResult, LoreIndexRow, LoreListOptions, LoreOrigin, LoreOriginIdentity, LoreReader, ScopeLevel } from './lore-store.js';
export type { EmbeddingStore, EmbedderIdentity, CachedVector, ReindexItem, ReindexVector, ReindexProgress, IdentityClaim } from './embedding-store.js';
export type { RecallStore, NewRecallEntry, StoredRecallEntry, RecallIndexRow, RecallWriteResult } from './recall-store.js';
export type { LivingStore, FactQuery, BeliefQuery, ModelQuery, JobCounts } from './living-store.js';
export type { Embedder } from './embedder.js';
export type { Reranker } from './reranker.js';
export type { LLM, LlmMessage, LlmRole, LlmCallOptions, LlmJsonRequest, JsonSchema } from './llm.js';
export type { TokenCounter } from './token-counter.js';
