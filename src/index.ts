// Mnemo's public API: open a memory, add turns, query, rewind and fork them; lore, living memory, remember and recall.
export { openMemory, Mnemo } from './open-memory.js';
export type { OpenMemoryOptions } from './open-memory.js';
export { NarrativeMemory } from './narrative/narrative-memory.js';
export type { NarrativeMemoryOptions, ReplaceTurnInput, UpdateTurnInput } from './narrative/narrative-memory.js';
export { LoreBook, LORE_CHUNK_TYPE, LORE_TURN } from './lore/lore-book.js';
export type { LoreBookOptions, LoreHit, LoreImportOptions, LoreImportReport, LoreSearchOptions, LoreStatus, SaveLoreEntry, SaveLoreHit } from './lore/lore-book.js';
export { folderLoreSource } from './lore/sources/folder-lore-source.js';
export { gitLoreSource, GIT_TIMEOUT_MS } from './lore/sources/git-lore-source.js';
export type { GitLoreSourceOptions } from './lore/sources/git-lore-source.js';
export type { LoreFileRead, LoreSnapshot, LoreSource } from './lore/sources/lore-source.js';
export type { LoreRepository } from './lore/sources/lore-source-of.js';
export type { LoreChangeField, LoreChangeSummary } from './lore/plan-lore-import.js';
export { readLoreRepository, MANIFEST as LORE_MANIFEST } from './lore/read-lore-repository.js';
export type { LocatedLoreEntry, LoreRepositoryReading } from './lore/read-lore-repository.js';
export { formatProblem } from './lore/lore-problem.js';
export type { LoreProblem } from './lore/lore-problem.js';
export type { LoreEntryDraft, LoreEntryInput } from './lore/lore-schema.js';
export { loreScopeTags, SCOPE_LEVELS, LORE_TAG_CATEGORIES } from './lore/scope-tags.js';
export type { CategorisedTag, CharacterPlacement } from './lore/scope-tags.js';
export { loreContentHash } from './lore/content-hash.js';
export { loreAccessible } from './core/lore-access.js';
export { exportSave } from './saves/export-save.js';
export type { ExportSaveOptions } from './saves/export-save.js';
export type { ImportSaveOptions, ImportSaveReport } from './saves/import-save.js';
export type { SaveFileSource } from './saves/read-lines.js';
export { SAVE_FILE_FORMAT, SAVE_FILE_VERSION } from './saves/save-file.js';
export { MnemoError, isMnemoError, ERROR_CODES } from './core/errors.js';
export type { ErrorCategory, ErrorCode, ErrorDetails } from './core/errors.js';
export * from './core/types.js';
export type { Clock } from './core/clock.js';
export { systemClock, manualClock } from './core/clock.js';
export type { Logger } from './core/logger.js';
export { consoleLogger, silentLogger } from './core/logger.js';
// A backend's interfaces and rows (store areas, sub-stores, vector search): `mnemo-engine/seams`.
export type { Store, RewindCounts, ForkCounts, ImportCounts, ListChunksOptions, TurnSummary, DeleteChunksOptions } from './seams/store.js';
export type { DeleteChunksCounts, DeleteChunksInput } from './saves/delete-chunks.js';
export type { LoreEntry, LoreOrigin, LoreOriginIdentity, ScopeLevel } from './seams/lore-store.js';
export type { Embedder } from './seams/embedder.js';
export type { Reranker } from './seams/reranker.js';
export type { EmbedderIdentity, ReindexProgress } from './seams/embedding-store.js';
export { openSqliteStore, SqliteStore } from './stores/sqlite/index.js';
export type { SqliteStoreOptions } from './stores/sqlite/index.js';
export { openInMemoryStore, InMemoryStore } from './stores/memory/index.js';
// The PostgreSQL adapter's module loads `pg` only when a URL is opened.
export { openPostgresStore, PostgresStore, pgliteQueryable, poolQueryable, POSTGRES_MIGRATIONS, VECTOR_SEARCH_DEFAULTS } from './stores/postgres/index.js';
export type { PostgresStoreOptions, PostgresMigration, Queryable, SqlClient, VectorSearchSettings } from './stores/postgres/index.js';
export { hashingEmbedder } from './embedders/hashing/index.js';
export type { HashingEmbedderOptions } from './embedders/hashing/index.js';
export { loadStaticEmbedder, rankProbabilities, countProbabilities, countWords, readWordCounts, loadWordVectors, cacheDirCandidates } from './embedders/static/index.js';
export type { StaticEmbedder, StaticEmbedderOptions, WordProbabilities, WordCountList, WordVectorOptions } from './embedders/static/index.js';
export { loadTransformersEmbedder, meanPool, l2Normalize, MINILM_MODEL } from './embedders/transformers/index.js';
export type { TransformersEmbedderOptions } from './embedders/transformers/index.js';
export { openAiCompatibleEmbedder, discoverDimensions } from './embedders/openai-compatible/index.js';
export type { OpenAiCompatibleEmbedderOptions } from './embedders/openai-compatible/index.js';
export type { HttpProviderOptions } from './http/index.js';
export { crossEncoderReranker, CROSS_ENCODER_MODEL } from './rerankers/cross-encoder/index.js';
export type { CrossEncoderRerankerOptions, PairScorer } from './rerankers/cross-encoder/index.js';
export { httpReranker } from './rerankers/http/index.js';
export type { HttpRerankerOptions } from './rerankers/http/index.js';
export { defaultModelDir } from './transformers/index.js';
export { reindex, resolveEmbedder, ensureEmbedderIdentity, identityOf, describeIdentity, EmbeddingCache, EMBEDDER_NAMES } from './embedders/index.js';
export type { ReindexOptions, ReindexResult, EmbedderName, ResolveEmbedderOptions } from './embedders/index.js';
// The search building blocks on their own (tokenizer, BM25, fusion, caps, focus boost): `mnemo-engine/retrieval`.
export * from './recall/index.js';
export * from './tracing/index.js';
export { requireJsonValue, renderValue, deepFreeze } from './core/json-value.js';
export type { LLM, LlmMessage, LlmRole, LlmCallOptions, LlmJsonRequest, JsonSchema } from './seams/llm.js';
export type { FactQuery, BeliefQuery, ModelQuery, JobCounts } from './seams/living-store.js';
export * from './core/living-types.js';
export { openAiCompatibleLlm, OpenAiCompatibleLlm } from './llms/openai-compatible/index.js';
export type { OpenAiCompatibleOptions, JsonMode } from './llms/openai-compatible/index.js';
export { scriptedLlm, ScriptedLlm } from './llms/scripted/index.js';
export type { Script, ScriptedAnswer, ScriptedCall, ScriptedLlmOptions } from './llms/scripted/index.js';
export { LivingMemory } from './living/living-memory.js';
export type { LivingMemoryOptions, RecordTurnInput, BeliefView, LivingStatus } from './living/living-memory.js';
export type { LivingPipelineOptions, LivingEvent } from './living/living-worker.js';
// The pipeline's stages and rules on their own (extractFacts, consolidate, reflect, computeTrend, LivingWorker): `mnemo-engine/living`.
export {
  parseMissionsText,
  missionsToText,
  beliefMissionsFromValue,
  missionFor,
  getUniverseMission,
  setUniverseMission,
  getBeliefMissions,
  setBeliefMissions,
  UNIVERSE_MISSION_KEY,
  BELIEF_MISSIONS_KEY,
} from './living/missions.js';
export type { BeliefMissions } from './living/missions.js';
export { ContextBuilder, buildContext, DEFAULT_CONTEXT_TEMPLATE, DEFAULT_CONTEXT_BUDGET, DEFAULT_LIMITS as DEFAULT_CONTEXT_LIMITS, BUILT_IN_VARIABLES } from './context/context-builder.js';
export type { ContextBuilderOptions } from './context/context-builder.js';
export { allocateBudget, sectionCaps, DEFAULT_SHARES } from './context/allocate-budget.js';
export type { SectionCandidates } from './context/allocate-budget.js';
export { renderTemplate, templatePlaceholders } from './context/render-template.js';
export { CONTEXT_SECTIONS } from './context/context-types.js';
export type { ContextRequest, ContextResult, ContextSection, ContextLine, ContextSource, ContextSectionName, ContextVariables } from './context/context-types.js';
export type { TokenCounter } from './seams/token-counter.js';
export { gptTokenCounter, estimateTokenCounter, defaultTokenCounter, GPT_ENCODINGS } from './token-counters/index.js';
export type { GptEncoding } from './token-counters/index.js';
