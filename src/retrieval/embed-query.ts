// Embeds a query for the semantic arm, or says why not (no embedder, no vectors, another model, a failure).
import type { Logger } from '../core/logger.js';
import { embedInBatches } from '../embedders/embed-in-batches.js';
import type { Embedder } from '../seams/embedder.js';
import { tokenize } from './tokenize.js';

/**
 * The query's vector, or null when search must go by words only: no embedder, an index without vectors, vectors
 * of another length (logged), a query without words, an all-zero vector, or an embedder that failed (logged,
 * never thrown). `corpus` names what is searched in the log lines.
 *
 * @example
 * ```ts
 * const vector = await embedQuery(embedder, 'who guards the gate?', index.vectorDimensions, logger, 'the lore book');
 * ```
 */
export async function embedQuery(embedder: Embedder | null, text: string, indexDimensions: number | null, logger: Logger, corpus: string): Promise<Float32Array | null> {
  if (embedder === null || indexDimensions === null || tokenize(text).length === 0) return null;
  if (indexDimensions !== embedder.dimensions) {
    logger.warn(`${corpus} has vectors of ${indexDimensions} dimensions but ${embedder.provider}/${embedder.modelId} makes ${embedder.dimensions}; searching by words only (run mnemo reindex, or re-import the lore, with this embedder)`);
    return null;
  }
  try {
    const [vector] = await embedInBatches(embedder, [text]);
    return vector !== undefined && vector.some((value) => value !== 0) ? vector : null;
  } catch (error) {
    logger.warn(`embedder ${embedder.provider}/${embedder.modelId} failed (${(error as Error).message}); searching ${corpus} by words only`);
    return null;
  }
}
