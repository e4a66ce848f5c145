// Calls an embedder in batches of its own maximum size and checks what comes back.
import { MnemoError } from '../core/errors.js';
import type { Embedder } from '../seams/embedder.js';

/**
 * Embeds any number of texts, `maxBatchSize` at a time, and checks the count and length of every vector.
 *
 * @example
 * ```ts
 * const vectors = await embedInBatches(embedder, texts); // vectors.length === texts.length
 * ```
 */
export async function embedInBatches(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const batch = Math.max(1, embedder.maxBatchSize);
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += batch) {
    const slice = texts.slice(start, start + batch);
    const result = await embedder.embed(slice);
    if (result.length !== slice.length) {
      throw new MnemoError('PROVIDER_FAILURE', `Embedder ${embedder.provider}/${embedder.modelId} returned ${result.length} vectors for ${slice.length} texts.`);
    }
    for (const vector of result) {
      if (vector.length !== embedder.dimensions) {
        throw new MnemoError('PROVIDER_FAILURE', `Embedder ${embedder.provider}/${embedder.modelId} returned a vector of ${vector.length} dimensions, expected ${embedder.dimensions}.`);
      }
      vectors.push(vector);
    }
  }
  return vectors;
}
