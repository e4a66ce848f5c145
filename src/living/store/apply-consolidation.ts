// Applying a consolidation pass: the consolidator's CREATE / UPDATE / DELETE actions become belief writes.
import { createBelief, deleteBelief, updateBelief } from '../../core/living-rules.js';
import type { BeliefRecord } from '../../core/living-rules.js';
import type { ConsolidationAction, ConsolidationCounts } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { rows } from './rows.js';

/**
 * Applies `actions` at `turnId`, in order: UPDATE and DELETE act on the beliefs the save held before the pass (as
 * changed by the earlier actions of the pass); unknown or deleted belief ids and blank statements are skipped;
 * `factTurnMap` gives the turn of each citable fact (other ids are not attached). One read and at most two batch
 * writes, whatever the number of actions.
 *
 * @example
 * ```ts
 * const counts = await backend.write(applyConsolidation('run-1', 12, actions, new Map([[41, 12]])));
 * ```
 */
export function* applyConsolidation(saveId: string, turnId: number, actions: readonly ConsolidationAction[], factTurnMap: ReadonlyMap<number, number>): LivingProgram<ConsolidationCounts> {
  const targets = [...new Set(actions.flatMap((action) => (action.kind !== 'CREATE' && action.beliefId !== null ? [action.beliefId] : [])))];
  const held = new Map<number, BeliefRecord>();
  if (targets.length > 0) for (const record of yield* rows.lockBeliefs(saveId, targets)) held.set(record.beliefId as number, record);
  const counts: ConsolidationCounts = { created: 0, updated: 0, deleted: 0, skipped: 0 };
  const created: BeliefRecord[] = [];
  const changed = new Map<number, BeliefRecord>();
  for (const action of actions) {
    if (action.kind === 'CREATE') {
      const record = createBelief(action, turnId, factTurnMap);
      if (record === null) counts.skipped++;
      else {
        created.push(record);
        counts.created++;
      }
      continue;
    }
    const current = action.beliefId === null ? undefined : held.get(action.beliefId);
    const next = current === undefined ? null : action.kind === 'UPDATE' ? updateBelief(current, action, turnId, factTurnMap) : deleteBelief(current, turnId);
    if (next === null) {
      counts.skipped++;
      continue;
    }
    held.set(action.beliefId as number, next);
    changed.set(action.beliefId as number, next);
    if (action.kind === 'UPDATE') counts.updated++;
    else counts.deleted++;
  }
  if (created.length > 0) yield* rows.insertBeliefs(saveId, created);
  if (changed.size > 0) yield* rows.updateBeliefs(saveId, [...changed.values()]);
  return counts;
}
