// Calls an embedder in batches of its own maximum size (and a bounded number of characters), yielding between calls, and checks what comes back.
import { MnemoError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { Embedder } from '../seams/embedder.js';

/**
 * Most characters one embedding call is given (a longer text goes alone): an in-process embedder holds the event
 * loop for its whole call, so a write of many long texts is embedded in calls of about one chunk's worth of text
 * at most, with yields between them.
 */
export const EMBED_CALL_CHARS = LIMITS.textChars;

/**
 * Embeds any number of texts, at most `maxBatchSize` and about `EMBED_CALL_CHARS` characters per call (a longer text
 * goes alone), giving the event loop a turn between calls, and checks the count and length of every vector.
 *
 * @example
 * ```ts
 * const vectors = await embedInBatches(embedder, texts); // vectors.length === texts.length
 * ```
 */
export async function embedInBatches(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const batch = Math.max(1, embedder.maxBatchSize);
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length;) {
    let end = start + 1;
    let characters = (texts[start] as string).length;
    while (end < texts.length && end - start < batch && characters + (texts[end] as string).length <= EMBED_CALL_CHARS) characters += (texts[end++] as string).length;
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const part = texts.slice(start, end);
    const result = await embedder.embed(part);
    if (result.length !== part.length) {
      throw new MnemoError('PROVIDER_FAILURE', `Embedder ${embedder.provider}/${embedder.modelId} returned ${result.length} vectors for ${part.length} texts.`);
    }
    for (const vector of result) {
      if (vector.length !== embedder.dimensions) {
        throw new MnemoError('PROVIDER_FAILURE', `Embedder ${embedder.provider}/${embedder.modelId} returned a vector of ${vector.length} dimensions, expected ${embedder.dimensions}.`);
      }
      vectors.push(vector);
    }
    start = end;
  }
  return vectors;
}
