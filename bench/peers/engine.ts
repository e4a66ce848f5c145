// What the peer benchmark asks of every engine: create a collection, add rows with their vectors, open it, query it.
import type { CorpusRow } from './corpus.js';

/**
 * The ways a collection is queried: hybrid, vector only, lexical only, and `filtered`: a vector query restricted
 * to one group of rows (a metadata equality filter, applied before ranking where the engine can).
 */
export const QUERY_MODES = ['hybrid', 'vector', 'lexical', 'filtered'] as const;
export type QueryMode = (typeof QUERY_MODES)[number];

/** Groups of the filtered mode: row `i` of a corpus is in group `i % FILTER_GROUPS`, query `i` asks for group `i % FILTER_GROUPS`. */
export const FILTER_GROUPS = 10;

/** One collection of one engine (a Mnemo save, a LanceDB table, an Orama database), in its own folder (or schema). */
export interface EngineCollection {
  /** Adds rows (ids, texts and vectors given: the engine computes no vector). */
  add(rows: readonly CorpusRow[]): Promise<void>;
  /** Ends an ingest: builds what the engine builds after loading (full-text index, compaction) and persists. */
  finish(): Promise<void>;
  /** The ids of the best `k` rows for a query, best first; `group` is the filtered mode's (rows whose `group` equals it). */
  query(mode: QueryMode, text: string, vector: Float32Array, k: number, group: number): Promise<string[]>;
  /**
   * Bytes the collection takes where it lives, for an engine that keeps it outside its folder (Mnemo on
   * PostgreSQL: its schema); absent, the benchmark measures the folder.
   */
  sizeOnDisk?(): Promise<number>;
  close(): Promise<void>;
}

/** An engine under test. */
export interface Engine {
  readonly name: string;
  /** The package and version measured, e.g. `@lancedb/lancedb 0.31.0`. */
  readonly version: string;
  /** The query modes it offers, the first one timed for cold open (default: all of QUERY_MODES, hybrid first). */
  readonly modes?: readonly QueryMode[];
  /** A new, empty collection in `folder` (created). */
  create(folder: string): Promise<EngineCollection>;
  /** The collection persisted in `folder` by an earlier process. */
  open(folder: string): Promise<EngineCollection>;
}
