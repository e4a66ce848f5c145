// The Store seam: persistence for every layer, each method one atomic write or one consistent read.
import type { LivingForkCounts, LivingRewindCounts } from '../core/living-types.js';
import type { Chunk, Metadata, SaveSummary } from '../core/types.js';
import type { EmbeddingStore } from './embedding-store.js';
import type { IndexRow } from './index-row.js';
import type { RecallStore } from './recall-store.js';
import type { LoreStore } from './lore-store.js';
import type { LivingStore } from './living-store.js';
import type { VectorSearch } from './vector-search.js';

export type { IndexRow } from './index-row.js';

/** A chunk ready to be written: validated, with its id, and its vector when an embedder made one. */
export interface NewChunk {
  id: string;
  saveId: string;
  turnId: number;
  chunkType: string;
  text: string;
  entryId: string | null;
  metadata: Metadata;
  createdAt: number;
  embedding: Float32Array | null;
}

/** The version of a save before and after a write: indexes held in memory use it to stay in step. */
export interface WriteResult {
  /** The save's version before the write. */
  previousVersion: number;
  /** The save's version after the write (equal to previousVersion when nothing changed). */
  version: number;
  /** How many chunks the write added or removed. */
  count: number;
}

/** Which chunks a listing returns: a turn range, one type left out, and a page (offset, limit). */
export interface ListChunksOptions {
  fromTurnId?: number;
  toTurnId?: number;
  /** Leave out chunks of this type (e.g. `lore`). */
  excludeChunkType?: string;
  /** Skip this many chunks of the ordered listing first (for paging). */
  offset?: number;
  limit?: number;
}

/** One turn of a save: how many chunks it holds, and of which types (sorted). */
export interface TurnSummary {
  turnId: number;
  chunks: number;
  chunkTypes: string[];
}

/** Counts returned by a rewind, per layer. */
export interface RewindCounts {
  chunks: number;
  /** What the living layer lost (facts, beliefs, models, queued jobs), in the same transaction. */
  living: LivingRewindCounts;
}

/** Counts returned by a fork, per layer. */
export interface ForkCounts {
  chunks: number;
  living: LivingForkCounts;
}

/**
 * Where Mnemo keeps its data. Every write is one transaction: either all of it lands or none of it does.
 * Every write to a save bumps that save's version, so in-memory indexes know when to refresh.
 * Adapters: `sqlite/` (the embedded default), `postgres/` (PostgreSQL + pgvector), `memory/`.
 */
export interface Store {
  /** The adapter's name, e.g. `sqlite`. */
  readonly provider: string;
  /** Where the data lives (a file path, `:memory:`, a URL without its password). */
  readonly location: string;
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

  /** Writes chunks in one transaction (a whole turn lands, or nothing does). */
  insertChunks(chunks: readonly NewChunk[]): Promise<WriteResult>;
  /** Deletes a turn's chunks of one type and writes the new ones, in one transaction. */
  replaceTurn(saveId: string, turnId: number, chunkType: string, chunks: readonly NewChunk[]): Promise<WriteResult & { removed: number }>;
  /**
   * Deletes everything of a save from turns after `turnId`, in one transaction across every layer (chunks, facts,
   * beliefs, mental models, queued jobs). Unknown save: all zeros.
   */
  rewind(saveId: string, turnId: number): Promise<WriteResult & { removed: RewindCounts }>;
  /**
   * Creates `newSaveId` holding exactly the state of `saveId` as of `atTurn`, every layer, in one transaction; copied
   * rows get new ids (belief and model sources remapped). The old save is untouched. Fails with CONFLICT when
   * `newSaveId` already holds data, NOT_FOUND when `saveId` holds none.
   */
  fork(saveId: string, newSaveId: string, atTurn: number): Promise<ForkCounts>;
  /** Counts a save's chunks, optionally of one type. */
  countChunks(saveId: string, chunkType?: string): Promise<number>;
  /** Reads chunks by id, in the order asked (unknown ids are left out). */
  getChunks(ids: readonly string[]): Promise<Chunk[]>;
  /** Lists a save's chunks in turn order (then insertion order), optionally within a turn range, one page at a time. */
  listChunks(saveId: string, options?: ListChunksOptions): Promise<Chunk[]>;
  /** Lists a save's turns in order, each with its chunk count and chunk types, one page at a time. */
  listTurns(saveId: string, options?: ListChunksOptions): Promise<TurnSummary[]>;
  /**
   * Streams every chunk of a save in insertion order to `visit` (for building a search index) and returns the
   * save's version read before the rows, so an index built from them is never newer than it claims.
   */
  scanChunks(saveId: string, visit: (row: IndexRow) => void): Promise<number>;
  /** The save's current version (0 for a save never written). */
  saveVersion(saveId: string): Promise<number>;
  /** Every save with its counts. */
  listSaves(): Promise<SaveSummary[]>;
  /** A value from the store's own key/value table (embedder identity, settings). */
  getMeta(key: string): Promise<string | null>;
  /** Sets a value in the store's own key/value table. */
  setMeta(key: string, value: string): Promise<void>;
  /** Releases the connection. Further calls fail with STORE_CLOSED. */
  close(): Promise<void>;
}
