// The optional vector-search capability of a store (pgvector): the semantic arm searched where the vectors are kept.
import type { ChunkSearchFilter } from '../core/types.js';
import type { IndexRow, ScanOptions } from './index-row.js';

/** Options of a store's vector search. */
export interface VectorSearchOptions {
  /**
   * Neighbour context: score each chunk by normalise(own + w * (previous + next)), its neighbours being the
   * save's adjacent chunks with vectors of the query's length, in insertion order, filtered or not (as the
   * in-memory arm links them). 0 (default): own vectors.
   */
  neighbourWeight?: number;
  /**
   * When given, a search that compared every permitted chunk (an exact one) adds the count, sum and sum of
   * squares of those chunks' scores here, before its limit: z-score fusion standardises the semantic arm by
   * them, as it does in memory. An approximate search leaves them untouched (the fusion then standardises by the
   * returned scores).
   */
  statistics?: ScoreTotals;
}

/** Running totals of scores, for their mean and deviation. */
export interface ScoreTotals {
  count: number;
  sum: number;
  sumOfSquares: number;
}

/** A chunk found by a store's vector search. */
export interface VectorMatch {
  id: string;
  /** Cosine similarity to the query vector. */
  score: number;
}

/**
 * A store that searches its chunks' vectors itself (PostgreSQL + pgvector) offers this as `store.vectorSearch`.
 * The engine asks for it once: when present, the semantic arm of chunk search runs here and processes hold no
 * vectors (the lexical arm, fusion, boosts and rerank stay in the process); when absent, the engine keeps the
 * vectors in memory and searches them itself.
 *
 * @example
 * ```ts
 * const search = store.vectorSearch;
 * if (search) await search.search('save-1', queryVector, { maxTurnId: 20 }, 50); // [{ id, score }, ...]
 * ```
 */
export interface VectorSearch {
  /**
   * The `limit` chunks of a save nearest to `vector` by cosine similarity, among the chunks with a vector of its
   * length that `filter` permits (as the engine resolved it: the store adds no rule of its own). Filters apply before ranking, never after, and never starve the result: when
   * `limit` permitted chunks with such vectors exist, `limit` come back (an approximate search that finds fewer
   * is redone exactly). Best first; ties in insertion order. See `VectorSearchOptions` for neighbour context and
   * the score totals of an exact search.
   */
  search(saveId: string, vector: Float32Array, filter: ChunkSearchFilter, limit: number, options?: VectorSearchOptions): Promise<VectorMatch[]>;
  /**
   * The cosine similarity to `vector` of given chunks of a save, by id, scored as `search` scores them (with the
   * same neighbour context); chunks without a vector of that length are left out. Z-score fusion uses it for the
   * lexical candidates the semantic arm did not return.
   */
  score(saveId: string, vector: Float32Array, ids: readonly string[], options?: VectorSearchOptions): Promise<Map<string, number>>;
  /**
   * Streams a save's chunks as `Store.scanChunks` does, without their vectors (`embedding` null, `dimensions`
   * their length): what an index needs when the vectors are searched here. Returns the version read before the rows.
   */
  scanChunks(saveId: string, visit: (row: IndexRow) => void, options?: ScanOptions): Promise<number>;
}
