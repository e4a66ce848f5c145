// The whole store contract (chunks and saves) in one call, for an adapter that runs both.
import { runChunksContract } from './contract/chunks.js';
import { runSavesContract } from './contract/saves.js';
import type { StoreFactory } from './contract/store-factory.js';

/**
 * Runs the chunks and the saves parts of the store contract (src/testing/contract/chunks.ts and saves.ts).
 *
 * @example
 * ```ts
 * runStoreContract('sqlite', { create: async () => openSqliteStore({ path: tempFile() }) });
 * ```
 */
export function runStoreContract(name: string, factory: StoreFactory): void {
  runChunksContract(name, factory);
  runSavesContract(name, factory);
}
