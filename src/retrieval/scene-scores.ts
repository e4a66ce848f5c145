// The scene signal: BM25 of the query over whole scenes (a scene's chunks read as one text), given to each chunk of the scene.
import type { Bm25Index } from './bm25.js';
import type { DocumentContext } from './document-context.js';
import { groupScores } from './group-scores.js';
import type { GroupScores } from './group-scores.js';

/** The scene score of each chunk for one query, with the mean and deviation over every chunk in a scene. */
export type SceneScores = GroupScores;

/**
 * Scores every scene as one document (`groupScores` over the scenes: the term frequencies of the scene's accepted
 * chunks summed, over the scene's length, with the idf of the term among scenes). A filter (a turn bound) keeps
 * what it refuses out of every scene. Null when the corpus has no scene.
 *
 * @example
 * ```ts
 * const scenes = sceneScores(index.bm25, index.context, index.analyze('the lantern'), accept);
 * scenes?.scoreOf(slot); // the BM25 of the slot's scene
 * ```
 */
export function sceneScores(bm25: Bm25Index, context: DocumentContext, terms: readonly string[], accept?: (slot: number) => boolean): SceneScores | null {
  if (context.liveScenes === 0) return null;
  const groups = {
    slots: context.sceneSlots,
    live: context.liveScenes,
    averageLength: context.averageSceneLength,
    groupOf: (slot: number) => context.sceneOf(slot),
    membersOf: (scene: number) => context.membersOf(scene),
    lengthOf: (scene: number) => context.lengthOf(scene),
  };
  return groupScores(bm25, groups, terms, accept);
}
