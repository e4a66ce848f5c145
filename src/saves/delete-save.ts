// The owner of delete: validates, removes every layer of a save in the store's one transaction, then tells the index and the worker.
import { requireSaveId } from '../core/validate.js';
import type { DeleteCounts } from '../seams/save-store.js';
import type { SaveOperation } from './save-operation.js';

/**
 * Removes every layer of `saveId` (chunks with their vectors, synced lore chunks, facts, beliefs, mental models
 * and their versions, jobs, the save's version row) in one store transaction, then drops its search index (in
 * memory and persisted) and stops the worker's work on it. Returns what each layer lost; an unknown save gives
 * all zeros, not an error.
 *
 * @example
 * ```ts
 * const { chunks, living } = await deleteSave({ store, indexes: narrative, worker: living }, 'run-1');
 * ```
 */
export async function deleteSave(operation: SaveOperation, saveId: string): Promise<DeleteCounts> {
  requireSaveId(saveId);
  const counts = await operation.store.deleteSave(saveId);
  operation.indexes.forget(saveId);
  operation.worker.afterDelete(saveId);
  return counts;
}
