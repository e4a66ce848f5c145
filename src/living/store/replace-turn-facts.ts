// Re-extracting a turn: its old facts go, what they led to is undone, the new facts are stored.
import { reextractBelief, rewindModel } from '../../core/living-rules.js';
import type { BeliefRecord } from '../../core/living-rules.js';
import type { FactInput, MentalModel } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { insertFacts } from './insert-facts.js';
import { rows } from './rows.js';

/**
 * Replaces the facts of `turnId`. When the turn had facts, what they led to is undone first: a belief nothing later
 * changed goes back to its state before the turn (deleted if the turn created it), a belief later turns also changed
 * only loses the sources citing the old facts (see reextractBelief); models refreshed last at the turn go back to
 * their version before it (deleted if the turn created them). Returns the new facts' ids.
 *
 * @example
 * ```ts
 * await backend.write(replaceTurnFacts('run-1', 3, [{ statement: 'Kaël rests instead.' }]));
 * ```
 */
export function* replaceTurnFacts(saveId: string, turnId: number, facts: FactInput[]): LivingProgram<number[]> {
  const gone = yield* rows.deleteTurnFacts(saveId, turnId);
  if (gone.length > 0) {
    yield* undoBeliefs(saveId, turnId, new Set(gone));
    yield* undoModels(saveId, turnId);
  }
  return yield* insertFacts(saveId, turnId, facts);
}

function* undoBeliefs(saveId: string, turnId: number, gone: ReadonlySet<number>): LivingProgram<void> {
  const changedThen = yield* rows.beliefsChangedAt(saveId, turnId);
  const citing = yield* rows.selectBeliefs(saveId, { factIds: [...gone], includeDeleted: true });
  const candidates = new Map([...changedThen, ...citing].map((record) => [record.beliefId as number, record]));
  const deleted: number[] = [];
  const updated: BeliefRecord[] = [];
  for (const [beliefId, record] of candidates) {
    const next = reextractBelief(record, turnId, gone);
    if (next === null) deleted.push(beliefId);
    else if (next !== undefined) updated.push(next);
  }
  if (deleted.length > 0) yield* rows.deleteBeliefs(saveId, deleted);
  if (updated.length > 0) yield* rows.updateBeliefs(saveId, updated);
}

function* undoModels(saveId: string, turnId: number): LivingProgram<void> {
  const models = yield* rows.modelsChangedAt(saveId, turnId);
  if (models.length === 0) return;
  const modelIds = models.map((model) => model.modelId as number);
  yield* rows.deleteVersionsFrom(saveId, modelIds, turnId);
  const latest = yield* rows.latestVersions(saveId, modelIds, turnId - 1);
  const deleted: number[] = [];
  const restored: MentalModel[] = [];
  for (const model of models) {
    const { model: before } = rewindModel(model, latest.get(model.modelId as number) ?? null, turnId - 1);
    if (before === null) deleted.push(model.modelId as number);
    else restored.push(before);
  }
  if (deleted.length > 0) yield* rows.deleteModels(saveId, deleted);
  if (restored.length > 0) yield* rows.updateModels(saveId, restored);
}
