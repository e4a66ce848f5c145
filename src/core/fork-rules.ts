// The preconditions of forking a save, and their errors, for every store adapter and every layer of a save.
import { MnemoError } from './errors.js';

/**
 * Refuses a fork into the save it copies (INVALID_INPUT).
 *
 * @example
 * ```ts
 * requireForkTarget('run-1', 'run-1-branch'); // passes
 * ```
 */
export function requireForkTarget(saveId: string, newSaveId: string): void {
  if (saveId === newSaveId) throw new MnemoError('INVALID_INPUT', `fork: expected a new save id different from ${JSON.stringify(saveId)}. Name the copy, e.g. "${saveId}-branch".`);
}

/** Whether each save of a fork holds data in any layer (chunks, a version, or living memory). */
export interface ForkSaves {
  sourceHoldsData: boolean;
  targetHoldsData: boolean;
}

/**
 * Checks a fork before it copies anything: a different target (INVALID_INPUT), a target holding nothing in any
 * layer (CONFLICT), a source holding something in some layer (NOT_FOUND), in that order.
 *
 * @example
 * ```ts
 * requireForkable('run-1', 'run-1-branch', { sourceHoldsData: true, targetHoldsData: false }); // passes
 * ```
 */
export function requireForkable(saveId: string, newSaveId: string, saves: ForkSaves): void {
  requireForkTarget(saveId, newSaveId);
  if (saves.targetHoldsData) throw saveTaken(newSaveId, 'fork');
  if (!saves.sourceHoldsData) {
    throw new MnemoError('NOT_FOUND', `fork: save ${JSON.stringify(saveId)} holds nothing to fork. Check the save id (mnemo stats lists them).`, { details: { saveId } });
  }
}

/**
 * The error of a fork or an import into a save that already holds data (CONFLICT), naming the ways out.
 *
 * @example
 * ```ts
 * throw saveTaken('run-1-branch', 'import');
 * ```
 */
export function saveTaken(saveId: string, what: 'fork' | 'import'): MnemoError {
  const verb = what === 'fork' ? 'Fork' : 'Import';
  return new MnemoError('CONFLICT', `${what}: save ${JSON.stringify(saveId)} already holds data. ${verb} into a new save id, or delete that save first (mnemo delete SAVE --yes, memory.deleteSave, DELETE /v1/saves/{saveId}).`, { details: { saveId } });
}

/**
 * The error of a fork whose target another writer created while the fork ran (CONFLICT).
 *
 * @example
 * ```ts
 * throw forkTargetTaken('run-1-branch');
 * ```
 */
export function forkTargetTaken(newSaveId: string): MnemoError {
  return new MnemoError('CONFLICT', `fork: save ${JSON.stringify(newSaveId)} was created by another writer meanwhile. Fork into a new save id.`, { details: { saveId: newSaveId } });
}
