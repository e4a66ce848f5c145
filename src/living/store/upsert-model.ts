// Refreshing a mental model: one per (save, subject), its creation turn kept, a version stored per refresh.
import type { MentalModel } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { rows } from './rows.js';

/**
 * Creates or refreshes the model of `subject` (compared case-insensitively) at `turnId` and stores the refresh as
 * the model's version at that turn (replacing one stored at the same turn). Returns the model's id, or null for a
 * blank summary (nothing written).
 *
 * @example
 * ```ts
 * const modelId = await backend.write(upsertModel('run-1', 'Rowan', 'A wary guard.', 7, [3, 5]));
 * ```
 */
export function* upsertModel(saveId: string, subject: string, summary: string, turnId: number, sources: readonly number[]): LivingProgram<number | null> {
  const text = summary.trim();
  if (text === '') return null;
  const existing = yield* rows.lockModel(saveId, subject);
  let modelId: number;
  if (existing === null) {
    const model: MentalModel = { modelId: null, subject: subject.trim(), summary: text, sources: [...sources], createdTurnId: turnId, updatedTurnId: turnId, stale: false };
    [modelId] = (yield* rows.insertModels(saveId, [model])) as [number];
  } else {
    modelId = existing.modelId as number;
    yield* rows.updateModels(saveId, [{ ...existing, summary: text, sources: [...sources], updatedTurnId: turnId, stale: false }]);
  }
  yield* rows.deleteVersionsAt(saveId, modelId, turnId);
  yield* rows.insertVersions(saveId, [{ modelId, turnId, summary: text, sources: [...sources] }]);
  return modelId;
}
