// The scene signal: BM25 of the query over whole scenes (a scene's chunks read as one text), given to each chunk of the scene.
import type { Bm25Index } from './bm25.js';
import type { DocumentContext } from './document-context.js';

/** The scene score of each chunk for one query, with the mean and deviation over every chunk in a scene. */
export interface SceneScores {
  /** The BM25 score of the slot's scene (0 for a slot in no scene or a scene without a match). */
  scoreOf(slot: number): number;
  /** Whether the slot belongs to a scene (a slot in none gets no scene signal). */
  inScene(slot: number): boolean;
  mean: number;
  deviation: number;
}

/**
 * Scores every scene as one document: for each query term, the term frequencies of the scene's accepted chunks
 * summed, over the scene's length (its live chunks' lengths summed), against the live scenes' average, with the
 * idf of the term among scenes (Okapi BM25, the index's k1 and b). Made from the chunk postings at query time, so
 * nothing is indexed twice and a filter (a turn bound) keeps what it refuses out of every scene. The mean and
 * deviation weigh each scene by its live chunks, as a per-chunk signal. Cost: one pass over the query terms'
 * postings, and one over the scenes. Null when the corpus has no scene.
 *
 * @example
 * ```ts
 * const scenes = sceneScores(index.bm25, index.context, index.analyze('the lantern'), accept);
 * scenes?.scoreOf(slot); // the BM25 of the slot's scene
 * ```
 */
export function sceneScores(bm25: Bm25Index, context: DocumentContext, terms: readonly string[], accept?: (slot: number) => boolean): SceneScores | null {
  const scenes = context.liveScenes;
  if (scenes === 0) return null;
  const { k1, b } = bm25.parameters;
  const average = context.averageSceneLength || 1;
  const scores = new Float64Array(context.sceneSlots);
  const frequencies = new Float64Array(context.sceneSlots);
  const touched: number[] = [];
  for (const term of new Set(terms)) {
    touched.length = 0;
    bm25.forEachPosting(term, (slot, frequency) => {
      if (accept !== undefined && !accept(slot)) return;
      const scene = context.sceneOf(slot);
      if (scene === 0) return;
      if (frequencies[scene] === 0) touched.push(scene);
      frequencies[scene] = (frequencies[scene] as number) + frequency;
    });
    if (touched.length === 0) continue;
    const idf = Math.log(1 + (scenes - touched.length + 0.5) / (touched.length + 0.5));
    for (const scene of touched) {
      const frequency = frequencies[scene] as number;
      const norm = k1 * (1 - b + (b * context.lengthOf(scene)) / average);
      scores[scene] = (scores[scene] as number) + (idf * frequency * (k1 + 1)) / (frequency + norm);
      frequencies[scene] = 0;
    }
  }
  let count = 0;
  let sum = 0;
  let sumOfSquares = 0;
  for (let scene = 1; scene < scores.length; scene++) {
    const members = context.membersOf(scene);
    if (members === 0) continue;
    const score = scores[scene] as number;
    count += members;
    sum += members * score;
    sumOfSquares += members * score * score;
  }
  const mean = sum / count;
  return {
    scoreOf: (slot) => scores[context.sceneOf(slot)] ?? 0,
    inScene: (slot) => context.sceneOf(slot) > 0,
    mean,
    deviation: Math.sqrt(Math.max(0, sumOfSquares / count - mean * mean)),
  };
}
