// The scene vector signal: a chunk scored by the cosine of the query with its scene's centroid (the mean of its chunks' vectors).
import type { DocumentContext } from './document-context.js';
import type { GroupScores } from './group-scores.js';

/** Where the signal reads the chunks' own vectors and how many slots there are. */
export interface SceneVectorSource {
  readonly context: Pick<DocumentContext, 'liveScenes' | 'sceneSlots' | 'sceneOf'>;
  /** Slots to visit (live or not). */
  readonly slots: number;
  /** A slot's own vector (not its neighbour context), or null when it has none or is not live. */
  vectorOf(slot: number): Float32Array | null;
}

/**
 * Scores every scene by the cosine between the query vector and the scene's centroid: the sum of the vectors of its
 * accepted chunks, normalised (so a scene is read as one text, as the scene signal reads its words). Each chunk of
 * a scene gets its scene's score; the mean and deviation weigh each scene by its chunks with a vector, as a
 * per-chunk signal. A filter (a turn bound) keeps what it refuses out of every centroid. Exact and deterministic
 * (slot order, float64 sums); the cost is one pass over every accepted chunk's vector (chunks x dimensions
 * additions a query). Null when the corpus has no scene, the query has no vector or no scene holds a vector.
 *
 * @example
 * ```ts
 * const scenes = sceneVectorScores({ context: index.context, slots: index.bm25.slots, vectorOf: (slot) => index.vectors.vectorOf(slot) }, queryVector, accept);
 * scenes?.scoreOf(slot); // the cosine of the query with the slot's scene's centroid
 * ```
 */
export function sceneVectorScores(source: SceneVectorSource, query: Float32Array | null, accept?: (slot: number) => boolean): GroupScores | null {
  const { context } = source;
  if (query === null || context.liveScenes === 0) return null;
  const dimensions = query.length;
  const scenes = context.sceneSlots;
  const sums = new Float64Array(scenes * dimensions);
  const members = new Float64Array(scenes);
  for (let slot = 0; slot < source.slots; slot++) {
    const scene = context.sceneOf(slot);
    if (scene === 0 || (accept !== undefined && !accept(slot))) continue;
    const vector = source.vectorOf(slot);
    if (vector === null || vector.length !== dimensions) continue;
    members[scene] = (members[scene] as number) + 1;
    const base = scene * dimensions;
    for (let index = 0; index < dimensions; index++) sums[base + index] = (sums[base + index] as number) + (vector[index] as number);
  }
  const scores = new Float64Array(scenes);
  let count = 0;
  let sum = 0;
  let sumOfSquares = 0;
  for (let scene = 1; scene < scenes; scene++) {
    const weight = members[scene] as number;
    if (weight === 0) continue;
    const base = scene * dimensions;
    let dot = 0;
    let norm = 0;
    for (let index = 0; index < dimensions; index++) {
      const value = sums[base + index] as number;
      dot += value * (query[index] as number);
      norm += value * value;
    }
    const score = norm > 0 ? dot / Math.sqrt(norm) : 0;
    scores[scene] = score;
    count += weight;
    sum += weight * score;
    sumOfSquares += weight * score * score;
  }
  if (count === 0) return null;
  const mean = sum / count;
  return {
    scoreOf: (slot) => scores[context.sceneOf(slot)] ?? 0,
    inGroup: (slot) => (members[context.sceneOf(slot)] ?? 0) > 0,
    mean,
    deviation: Math.sqrt(Math.max(0, sumOfSquares / count - mean * mean)),
  };
}
