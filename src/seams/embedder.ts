// The Embedder seam: turns texts into unit-length vectors. Vendor settings stay inside each adapter.

/**
 * Computes embeddings. `embed` returns one L2-normalised vector per text, in order, each of `dimensions`; an
 * all-zero vector means "nothing here the model can read" (the chunk is then stored without a vector and found
 * by words only). Adapters live in `src/embedders/`; the hybrid search works without one (lexical only).
 * `provider`, `modelId` and `dimensions` together are the embedder's identity, recorded with the vectors.
 */
export interface Embedder {
  /** Who computes the vectors, e.g. `static`, `transformers`, `openai-compatible`. */
  readonly provider: string;
  /** Which model, e.g. `Xenova/all-MiniLM-L6-v2`. */
  readonly modelId: string;
  /** Length of every vector. */
  readonly dimensions: number;
  /** Most texts one `embed` call accepts; callers batch above it. */
  readonly maxBatchSize: number;
  /**
   * Whether storing its vectors in the embedding cache saves work (default true). Embedders that compute a
   * vector faster than a cache lookup (static, hashing) say false.
   */
  readonly cacheable?: boolean;
  /** Embeds texts, returning normalised vectors aligned 1:1 with them. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
