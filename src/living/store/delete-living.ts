// Deleting the whole living layer of a save, inside the caller's transaction (the store's deleteSave).
import type { LivingForkCounts } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { rows } from './rows.js';

/** Every turn id is >= 0, so "after -1" is every row of the save. */
const BEFORE_EVERY_TURN = -1;

/**
 * Deletes every fact, belief (deleted ones too), mental model with its versions and job of a save: the same
 * statements a rewind runs, from before the first turn. A fixed number of statements, each naming the save.
 *
 * @example
 * ```ts
 * const living = runRowProgram(deleteLiving('run-1'), sqliteRows); // inside SqliteStore.deleteSave's transaction
 * ```
 */
export function* deleteLiving(saveId: string): LivingProgram<LivingForkCounts> {
  const facts = yield* rows.deleteFactsAfter(saveId, BEFORE_EVERY_TURN);
  const beliefs = yield* rows.deleteBeliefsCreatedAfter(saveId, BEFORE_EVERY_TURN);
  yield* rows.deleteVersionsAfter(saveId, BEFORE_EVERY_TURN);
  const models = yield* rows.deleteModelsCreatedAfter(saveId, BEFORE_EVERY_TURN);
  const jobs = yield* rows.deleteJobsAfter(saveId, BEFORE_EVERY_TURN);
  return { facts, beliefs, models, jobs };
}
