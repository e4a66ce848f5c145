// The optional chunk-vector capability of a store: reading chunks' vectors by id at once (synchronously), for an index that keeps no second copy of them.

/**
 * Reads stored chunks' vectors by id, synchronously (an embedded store reads its own file): a persisted search
 * index then leaves its float32 vectors out and a query reads the few it rescores from here.
 *
 * @example
 * ```ts
 * const [vector] = store.chunkVectors?.vectorsOf(['3f2c…']) ?? [];
 * ```
 */
export interface ChunkVectors {
  /** The vectors of the chunks `ids`, in the order asked: null for an id the store does not hold, or one without a vector. */
  vectorsOf(ids: readonly string[]): (Float32Array | null)[];
}
