// The owner of rewind: validates, rewinds every layer in the store's one transaction, then tells the index and the worker.
import { requireSaveId, requireTurnId } from '../core/validate.js';
import type { RewindCounts } from '../seams/save-store.js';
import type { SaveOperation } from './save-operation.js';

/**
 * Deletes everything of `saveId` after `turnId` (chunks, facts, beliefs, mental models, queued jobs) in one store
 * transaction, then updates the save's search index in place and cancels the worker's work on the removed turns.
 * Returns what each layer lost; an unknown save gives all zeros.
 *
 * @example
 * ```ts
 * const { chunks, living } = await rewindSave({ store, indexes: narrative, worker: living }, 'run-1', 12);
 * ```
 */
export async function rewindSave(operation: SaveOperation, saveId: string, turnId: number): Promise<RewindCounts> {
  requireSaveId(saveId);
  requireTurnId(turnId);
  const result = await operation.store.rewind(saveId, turnId);
  operation.indexes.afterRewind(saveId, turnId, result);
  operation.worker.afterRewind(saveId, turnId);
  return result.removed;
}
