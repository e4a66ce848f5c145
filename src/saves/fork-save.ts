// The owner of fork: validates, copies every layer as of a turn in the store's one transaction, then tells the index and the worker.
import { requireSaveId, requireTurnId } from '../core/validate.js';
import type { ForkCounts } from '../seams/save-store.js';
import type { SaveOperation } from './save-operation.js';

/**
 * Creates `newSaveId` holding exactly the state of `saveId` as of `atTurn` (chunks with their vectors, facts,
 * beliefs, mental models, queued jobs) in one store transaction; the old save is untouched. Then any index of the
 * new save held in memory is dropped and the worker wakes for the copied jobs. Fails with CONFLICT when `newSaveId`
 * already holds data, NOT_FOUND when `saveId` holds none, INVALID_INPUT when they are the same save.
 *
 * @example
 * ```ts
 * const counts = await forkSave({ store, indexes: narrative, worker: living }, 'run-1', 'run-1-branch', 12);
 * ```
 */
export async function forkSave(operation: SaveOperation, saveId: string, newSaveId: string, atTurn: number): Promise<ForkCounts> {
  const counts = await operation.store.fork(requireSaveId(saveId), requireSaveId(newSaveId, 'newSaveId'), requireTurnId(atTurn, 'atTurn'));
  operation.indexes.forget(newSaveId);
  operation.worker.afterFork(newSaveId);
  return counts;
}
