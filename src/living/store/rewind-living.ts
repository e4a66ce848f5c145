// Rewinding the living layer of a save to a turn, inside the caller's transaction (the store's rewind).
import { rewindBelief, rewindModel } from '../../core/living-rules.js';
import type { BeliefRecord } from '../../core/living-rules.js';
import type { LivingRewindCounts, MentalModel } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { rows } from './rows.js';

/**
 * Rolls the beliefs of a save back to their state at `target` (see rewindBelief): those created later are deleted,
 * the others changed later are restored and flagged stale. Two steps, whatever the number of beliefs: every change
 * moves `updatedTurnId`, so "changed after target" is one range read, taken with the delete.
 */
export function* rewindBeliefs(saveId: string, target: number): LivingProgram<{ deleted: number; updated: number }> {
  const { deleted, changed } = yield* rows.takeBeliefsAfter(saveId, target);
  const rolledBack: BeliefRecord[] = [];
  for (const record of changed) {
    const { record: before, changed } = rewindBelief(record, target);
    if (before !== null && changed) rolledBack.push(before);
  }
  if (rolledBack.length > 0) yield* rows.updateBeliefs(saveId, rolledBack);
  return { deleted, updated: rolledBack.length };
}

/**
 * Rolls the models of a save back to `target` (see rewindModel): versions after it and models created after it are
 * deleted, models refreshed after it get back their latest version by then and are flagged stale (two steps).
 */
export function* rewindModels(saveId: string, target: number): LivingProgram<{ deleted: number; updated: number }> {
  const { deleted, changed: models, latest } = yield* rows.takeModelsAfter(saveId, target);
  if (models.length === 0) return { deleted, updated: 0 };
  const restored: MentalModel[] = [];
  for (const model of models) {
    const { model: before } = rewindModel(model, latest.get(model.modelId as number) ?? null, target);
    if (before !== null) restored.push(before);
  }
  yield* rows.updateModels(saveId, restored);
  return { deleted, updated: models.length };
}

/**
 * Rewinds facts, beliefs, models and queued jobs of a save to `target` (chunks are the store's). Run inside the
 * transaction that rewinds the chunks, so every layer moves at once.
 *
 * @example
 * ```ts
 * const living = runRowProgram(rewindLiving('run-1', 12), sqliteRows); // inside SqliteStore.rewind's transaction
 * ```
 */
export function* rewindLiving(saveId: string, target: number): LivingProgram<LivingRewindCounts> {
  const facts = yield* rows.deleteFactsAfter(saveId, target);
  const beliefs = yield* rewindBeliefs(saveId, target);
  const models = yield* rewindModels(saveId, target);
  const jobsCancelled = yield* rows.deleteJobsAfter(saveId, target);
  return { facts, beliefsDeleted: beliefs.deleted, beliefsUpdated: beliefs.updated, modelsDeleted: models.deleted, modelsUpdated: models.updated, jobsCancelled };
}
