// The steps of living memory's row port: `yield* rows.insertFacts(saveId, facts)` inside a living program.
import { portSteps } from '../../core/row-program.js';
import type { LivingRows } from '../../seams/living-rows.js';

/**
 * Each method of the LivingRows port as a one-step program.
 *
 * @example
 * ```ts
 * function* countAll(saveId: string): LivingProgram<number> {
 *   return (yield* rows.countFacts(saveId)) + (yield* rows.countBeliefs(saveId));
 * }
 * ```
 */
export const rows = portSteps<LivingRows>();
