// Scene speaker focus: when a question names a speaker, the scene signal lifts that speaker's chunks in a matching scene, not everyone's.
import { MnemoError } from '../core/errors.js';

/** What the focus reads of a chunk: who said it (0: nobody, narration or an entry without a speaker). */
export interface SceneFocusSource {
  speakerOf(slot: number): number;
}

/**
 * Checks a scene speaker focus as a caller gives it: a number from 0 (off) to 1 (another speaker's chunk keeps none
 * of its scene lift); null is 0; undefined is `fallback`. A clear INVALID_INPUT for anything else.
 *
 * @example
 * ```ts
 * optionalSceneSpeakerFocus(1, 0); // 1
 * optionalSceneSpeakerFocus(undefined, 0); // 0
 * ```
 */
export function optionalSceneSpeakerFocus(value: unknown, fallback: number): number {
  if (value === null) return 0;
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new MnemoError('INVALID_INPUT', `sceneSpeakerFocus: expected a number from 0 to 1 (the share of the scene signal's lift another speaker's chunk loses), got ${JSON.stringify(value)}. Pass 0 or null to turn it off.`, {
      details: { field: 'sceneSpeakerFocus' },
    });
  }
  return value;
}

/**
 * The scene signal of a chunk under the focus: when the query names speakers (`named`, not empty) and the chunk was
 * said by someone else, the lift its scene gives it (a positive part) is multiplied by 1 - `focus`; a lowering (a
 * scene that matches the query less than most) is kept, and so is every part of a chunk said by a named speaker or
 * by nobody (narration, an entry without a speaker). A question about Ann is answered by what Ann said: a scene
 * about the question's subject should bring her turns up, not the replies of the people she spoke to, which the
 * scene signal otherwise lifts as much. Constant work per candidate: one speaker lookup.
 *
 * @example
 * ```ts
 * const focused = focusedSceneScore(scene, { speakerOf: (slot) => context.speakerOf(slot) }, named, 1);
 * focused(slot); // the scene part, 0 for another speaker's chunk in a matching scene
 * ```
 */
export function focusedSceneScore(scene: (slot: number) => number, source: SceneFocusSource, named: ReadonlySet<number>, focus: number): (slot: number) => number {
  if (focus <= 0 || named.size === 0) return scene;
  const kept = 1 - Math.min(1, focus);
  return (slot) => {
    const part = scene(slot);
    if (part <= 0) return part;
    const speaker = source.speakerOf(slot);
    return speaker === 0 || named.has(speaker) ? part : kept * part;
  };
}
