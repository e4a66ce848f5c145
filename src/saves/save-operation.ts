// What a save-level operation (rewind, fork, import, delete) works with: the store's transaction, then who it tells.
import type { SaveStore } from '../seams/save-store.js';
import type { WriteResult } from '../seams/write-result.js';

/**
 * The in-memory search indexes of saves in this process (NarrativeMemory's index cache). A save-level operation
 * tells it what it changed after the store's transaction committed, so the next query sees exactly the store.
 */
export interface SaveIndexes {
  /** The save lost every chunk after `turnId` in `result`: its index drops them in place (or rebuilds lazily). */
  afterRewind(saveId: string, turnId: number, result: WriteResult): void;
  /** The save lost the chunks `ids` in `result` (a delete of chunks): its index drops them in place (or rebuilds lazily). */
  afterDeleteChunks(saveId: string, ids: readonly string[], result: WriteResult): void;
  /** The save's chunks changed wholesale (a fork's new save, a deleted save): its index is rebuilt on its next query. */
  forget(saveId: string): void;
}

/** The background living worker of this process (LivingMemory): told after the transaction committed. */
export interface SaveWorker {
  /** Stops work in flight on the save's turns after `turnId` (they no longer exist). */
  afterRewind(saveId: string, turnId: number): void;
  /** Wakes the worker for the jobs the fork copied into `newSaveId`. */
  afterFork(newSaveId: string): void;
  /** Wakes the worker for the jobs an import wrote into `saveId`. */
  afterImport(saveId: string): void;
  /** Stops work in flight on the save (it no longer exists). */
  afterDelete(saveId: string): void;
}

/**
 * Everything a save-level operation needs. Each operation is one module in `src/saves/` of one shape: validate
 * its input (nothing written on a refusal), run the store's one transaction across every layer, then tell
 * `indexes` and `worker`, in that order, and return the store's counts (see docs/architecture.md).
 *
 * @example
 * ```ts
 * const saves: SaveOperation = { store, indexes: narrative, worker: living };
 * const removed = await rewindSave(saves, 'run-1', 12);
 * ```
 */
export interface SaveOperation {
  store: SaveStore;
  indexes: SaveIndexes;
  worker: SaveWorker;
}
