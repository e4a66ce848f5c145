// An embedder wrapper that counts calls and texts, for tests that assert when embedding happens (and when not).
import type { Embedder } from '../seams/embedder.js';

/** An embedder that counts what passes through it. */
export interface CountingEmbedder extends Embedder {
  /** Number of `embed` calls so far. */
  readonly calls: number;
  /** Number of texts embedded so far. */
  readonly texts: number;
  /** Sets both counts back to zero. */
  reset(): void;
}

/**
 * Wraps an embedder and counts its calls and texts; the vectors are the inner embedder's.
 *
 * @example
 * ```ts
 * const embedder = countingEmbedder(hashingEmbedder());
 * await memory.lore.importRepository('examples/lore');
 * embedder.calls; // 1
 * ```
 */
export function countingEmbedder(inner: Embedder): CountingEmbedder {
  let calls = 0;
  let texts = 0;
  return {
    provider: inner.provider,
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    maxBatchSize: inner.maxBatchSize,
    get calls() { return calls; },
    get texts() { return texts; },
    reset() { calls = 0; texts = 0; },
    async embed(batch) {
      calls++;
      texts += batch.length;
      return inner.embed(batch);
    },
  };
}
