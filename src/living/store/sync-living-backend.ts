// The backend of a store whose rows answer synchronously (SQLite, in memory): programs run to the end in one go.
import { runRowProgram } from '../../core/row-program.js';
import type { LivingBackend, LivingRows } from '../../seams/living-rows.js';

/**
 * How a synchronous store runs work: reads as they are, writes in one transaction. A write may answer later (a
 * store waiting for another process's lock between attempts, as SQLite's `transact` does); the work itself runs
 * in one go.
 */
export interface SyncRunner {
  read<T>(work: () => T): T;
  write<T>(work: () => T): T | Promise<T>;
}

/**
 * A LivingBackend over synchronous rows: each write program runs whole inside one `runner.write` transaction.
 *
 * @example
 * ```ts
 * const living = new RowLivingStore(syncLivingBackend(rows, { read: (work) => work(), write: (work) => store.transact(work) }));
 * ```
 */
export function syncLivingBackend(rows: LivingRows, runner: SyncRunner): LivingBackend {
  return {
    read: async (program) => runner.read(() => runRowProgram(program, rows)),
    write: async (program) => runner.write(() => runRowProgram(program, rows)),
  };
}
