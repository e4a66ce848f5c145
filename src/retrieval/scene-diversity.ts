// Scene diversity: the head of a fused ranking re-picked so that each further hit of the same scene costs a fixed step.
import { MnemoError } from '../core/errors.js';

/** Scene diversity settings (see `QueryOptions.sceneDiversity`). */
export interface SceneDiversityOptions {
  /** Subtracted from a candidate's score once for every hit of its scene already picked above it. */
  step: number;
  /** How many of the fused ranking's first candidates are re-picked (a fixed number, so k does not change the order). */
  head: number;
}

/** The head when a caller gives only a step. */
export const SCENE_DIVERSITY_HEAD = 50;
/** The longest head scene diversity may re-pick (its cost is head x head comparisons). */
export const MAX_SCENE_DIVERSITY_HEAD = 200;

/**
 * Checks scene diversity settings as a caller gives them (`{ step, head? }`; null: off; undefined: `defaults`),
 * filling the head left out (50); a clear INVALID_INPUT for anything else. Step 0 is off.
 *
 * @example
 * ```ts
 * optionalSceneDiversity({ step: 0.5 }, null); // { step: 0.5, head: 50 }
 * ```
 */
export function optionalSceneDiversity(value: unknown, defaults: SceneDiversityOptions | null): SceneDiversityOptions | undefined {
  if (value === null) return undefined;
  if (value === undefined) return defaults ?? undefined;
  const given = value as Partial<SceneDiversityOptions>;
  const head = given.head ?? SCENE_DIVERSITY_HEAD;
  const step = given.step;
  if (typeof value !== 'object' || typeof step !== 'number' || !Number.isFinite(step) || step < 0 || typeof head !== 'number' || !Number.isSafeInteger(head) || head < 1 || head > MAX_SCENE_DIVERSITY_HEAD) {
    throw new MnemoError('INVALID_INPUT', `sceneDiversity: expected { step: a number >= 0, head?: an integer from 1 to ${MAX_SCENE_DIVERSITY_HEAD} } or null, got ${JSON.stringify(value)}. Pass null to turn it off.`, {
      details: { field: 'sceneDiversity' },
    });
  }
  return step === 0 ? undefined : { step, head };
}

/** A ranked candidate as scene diversity reads it. */
export interface DiversityCandidate {
  slot: number;
  score: number;
}

/**
 * What scene diversity subtracts from each of the first `head` candidates (in their given order; the rest lose
 * nothing): picked greedily, best adjusted score first (ties: the earlier candidate), each candidate's adjusted
 * score being its score minus `step` times the hits of its scene already picked. A candidate in no scene (scene 0)
 * is never lowered. The picks' adjusted scores never rise, so sorting the candidates by adjusted score (ties in the
 * given order) gives the greedy order. The result depends only on the head, never on k: a query asked for k hits
 * returns the first k of the same ranking as one asked for more, as long as the fused head is the same.
 * O(head^2).
 *
 * @example
 * ```ts
 * scenePenalties([{ slot: 1, score: 3 }, { slot: 2, score: 2.9 }, { slot: 3, score: 2 }], (slot) => (slot < 3 ? 7 : 8), { step: 1, head: 50 });
 * // [0, 1, 0]: slot 2 is the second hit of scene 7 (1.9 after the step, below slot 3's 2)
 * ```
 */
export function scenePenalties(candidates: readonly DiversityCandidate[], sceneOf: (slot: number) => number, options: SceneDiversityOptions): Float64Array {
  const size = Math.min(options.head, candidates.length);
  const penalties = new Float64Array(size);
  const picked = new Uint8Array(size);
  const hits = new Map<number, number>();
  const scenes = new Int32Array(size);
  for (let position = 0; position < size; position++) scenes[position] = sceneOf((candidates[position] as DiversityCandidate).slot);
  for (let round = 0; round < size; round++) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let position = 0; position < size; position++) {
      if (picked[position] === 1) continue;
      const scene = scenes[position] as number;
      const adjusted = (candidates[position] as DiversityCandidate).score - (scene === 0 ? 0 : options.step * (hits.get(scene) ?? 0));
      if (adjusted > bestScore) {
        best = position;
        bestScore = adjusted;
      }
    }
    picked[best] = 1;
    const scene = scenes[best] as number;
    if (scene === 0) continue;
    const before = hits.get(scene) ?? 0;
    penalties[best] = options.step * before;
    hits.set(scene, before + 1);
  }
  return penalties;
}
