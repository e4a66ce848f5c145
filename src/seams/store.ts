// The Store seam: persistence for every layer, made of small interfaces by area, each method one atomic write or one consistent read.
import type { ChunkStore } from './chunk-store.js';
import type { ChunkVectors } from './chunk-vectors.js';
import type { EmbeddingStore } from './embedding-store.js';
import type { LivingStore } from './living-store.js';
import type { LoreStore } from './lore-store.js';
import type { MetaStore } from './meta-store.js';
import type { RecallStore } from './recall-store.js';
import type { SaveStore } from './save-store.js';
import type { StoreLifecycle } from './store-lifecycle.js';
import type { VectorSearch } from './vector-search.js';

export type { ChunkPage, ChunkSelection, ChunkStore, ChunkWithVector, DeleteChunksOptions, ListChunksOptions, NewChunk, TurnSummary } from './chunk-store.js';
export type { ChunkVectors } from './chunk-vectors.js';
export type { IndexRow, ScanOptions } from './index-row.js';
export type { MetaStore } from './meta-store.js';
export type { DeleteCounts, ForkCounts, ImportCounts, RewindCounts, SaveImport, SaveStore } from './save-store.js';
export type { StoreLifecycle } from './store-lifecycle.js';
export type { WriteResult } from './write-result.js';

/**
 * Where Mnemo keeps its data: the chunks (`ChunkStore`), the saves and their versions with the save-level writes
 * (`SaveStore`), a key/value table (`MetaStore`) and the lifecycle (`StoreLifecycle`), plus one sub-store per
 * layer and the optional vector-search capability. Every write is one transaction: either all of it lands or none
 * of it does. Every write to a save bumps that save's version, so in-memory indexes know when to refresh.
 * Adapters: `sqlite/` (the embedded default), `postgres/` (PostgreSQL + pgvector), `memory/`.
 *
 * @example
 * ```ts
 * const store: Store = openSqliteStore({ path: 'game.db' });
 * await store.countChunks('campaign-1'); // 0
 * ```
 */
export interface Store extends StoreLifecycle, ChunkStore, SaveStore, MetaStore {
  /** The embedding layer: embedder identity, embedding cache, resumable reindex. */
  readonly embeddings: EmbeddingStore;
  /** The remember / recall entries (seed 001). */
  readonly recall: RecallStore;
  /** The lore book: world knowledge shared by every save, scoped by tags. */
  readonly lore: LoreStore;
  /** Living memory: facts, beliefs, mental models and their job queue. */
  readonly living: LivingStore;
  /**
   * Optional capability: the store searches its chunks' vectors itself (pgvector), so processes hold none.
   * Absent or null: the engine keeps the vectors in memory and searches them there.
   */
  readonly vectorSearch?: VectorSearch | null;
  /**
   * Optional capability: the store reads chunks' vectors by id synchronously (SQLite), so a persisted index keeps
   * no second copy of them. Absent or null: a persisted index holds them.
   */
  readonly chunkVectors?: ChunkVectors | null;
}
