// Embedding-space pseudo-relevance feedback: the query vector moved toward the centroid of the first pass's top hits.
import { MnemoError } from '../core/errors.js';

/** Vector feedback settings (a second semantic arm searched with the moved query vector). */
export interface VectorFeedbackOptions {
  /** The second arm's weight, times the semantic arm's. */
  weight: number;
  /** How many of the first fused hits make the centroid. */
  head: number;
  /** How far the query moves toward the head's centroid (0: not at all; 1: the two weigh the same). */
  mix: number;
}

/**
 * normalise(normalise(query) + weight x normalise(mean of `vectors`)), or null when no vector is given or the
 * result has no length. The vectors are the first pass's top hits; what they share and the query does not name
 * (a place, a person, the topic's other words) pulls the second semantic search toward evidence that shares no
 * word with the question.
 *
 * @example
 * ```ts
 * feedbackQueryVector(new Float32Array([1, 0]), [new Float32Array([0, 1])], 1); // ~[0.707, 0.707]
 * ```
 */
export function feedbackQueryVector(query: Float32Array, vectors: readonly (Float32Array | null)[], weight: number): Float32Array | null {
  const dims = query.length;
  const centroid = new Float64Array(dims);
  let count = 0;
  for (const vector of vectors) {
    if (vector === null || vector.length !== dims) continue;
    const length = Math.hypot(...vector);
    if (!(length > 0)) continue;
    for (let index = 0; index < dims; index += 1) centroid[index] = (centroid[index] as number) + (vector[index] as number) / length;
    count += 1;
  }
  if (count === 0) return null;
  const centroidLength = Math.hypot(...centroid);
  const queryLength = Math.hypot(...query);
  if (!(centroidLength > 0) || !(queryLength > 0)) return null;
  const moved = new Float32Array(dims);
  for (let index = 0; index < dims; index += 1) moved[index] = (query[index] as number) / queryLength + (weight * (centroid[index] as number)) / centroidLength;
  const length = Math.hypot(...moved);
  if (!(length > 0)) return null;
  for (let index = 0; index < dims; index += 1) moved[index] = (moved[index] as number) / length;
  return moved;
}

/** The head when a caller gives only a weight. */
export const VECTOR_FEEDBACK_HEAD = 5;
/** The mix when a caller gives only a weight: the query and the head's centroid weigh the same. */
export const VECTOR_FEEDBACK_MIX = 1;
/** The longest head vector feedback may average. */
export const MAX_VECTOR_FEEDBACK_HEAD = 100;

/**
 * Checks vector feedback settings as a caller gives them (`{ weight, head?, mix? }`; null: off; undefined:
 * `defaults`), filling the head (5) and mix (1) left out; a clear INVALID_INPUT for anything else. Weight 0 is off.
 *
 * @example
 * ```ts
 * optionalVectorFeedback({ weight: 0.5 }, null); // { weight: 0.5, head: 5, mix: 1 }
 * ```
 */
export function optionalVectorFeedback(value: unknown, defaults: VectorFeedbackOptions | null): VectorFeedbackOptions | undefined {
  if (value === null) return undefined;
  if (value === undefined) return defaults ?? undefined;
  const given = value as Partial<VectorFeedbackOptions>;
  const head = given.head ?? VECTOR_FEEDBACK_HEAD;
  const mix = given.mix ?? VECTOR_FEEDBACK_MIX;
  const weight = given.weight;
  const finite = (number: unknown): number is number => typeof number === 'number' && Number.isFinite(number) && number >= 0;
  if (typeof value !== 'object' || !finite(weight) || !finite(mix) || typeof head !== 'number' || !Number.isSafeInteger(head) || head < 1 || head > MAX_VECTOR_FEEDBACK_HEAD) {
    throw new MnemoError('INVALID_INPUT', `vectorFeedback: expected { weight: a number >= 0, head?: an integer from 1 to ${MAX_VECTOR_FEEDBACK_HEAD}, mix?: a number >= 0 } or null, got ${JSON.stringify(value)}. Pass null to turn it off.`, {
      details: { field: 'vectorFeedback' },
    });
  }
  return weight === 0 ? undefined : { weight, head, mix };
}
