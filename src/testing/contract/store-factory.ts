// What the store contract suites are given (a factory of fresh stores) and the handle they test through.
import { afterEach, beforeEach } from 'vitest';
import { silentLogger } from '../../core/logger.js';
import { hashingEmbedder } from '../../embedders/hashing/index.js';
import { Mnemo } from '../../open-memory.js';
import type { Store } from '../../seams/store.js';

/** Makes a fresh, empty store for one test; `reopen` (optional) opens the same data again. */
export interface StoreFactory {
  create(): Promise<Store>;
  reopen?(store: Store): Promise<Store>;
}

/**
 * The handle the chunks and saves suites test a store through: a Mnemo with a 32-d hashing embedder and no reranker.
 *
 * @example
 * ```ts
 * const memory = contractMemory(await factory.create());
 * ```
 */
export function contractMemory(store: Store): Mnemo {
  return new Mnemo({ store, embedder: hashingEmbedder({ dimensions: 32 }), reranker: null, logger: silentLogger });
}

/** The store of the running test and the handle over it (a test may replace `memory`, e.g. after a reopen). */
export interface ContractStore {
  store: Store;
  memory: Mnemo;
}

/**
 * Gives each test of the calling suite a fresh store from `factory` and a `contractMemory` over it, closed after it.
 *
 * @example
 * ```ts
 * const current = useContractStore(factory);
 * it('counts', async () => expect(await current.memory.count('s')).toBe(0));
 * ```
 */
export function useContractStore(factory: StoreFactory): ContractStore {
  const current = {} as ContractStore;
  beforeEach(async () => {
    current.store = await factory.create();
    current.memory = contractMemory(current.store);
  });
  afterEach(async () => {
    await current.memory.close();
  });
  return current;
}
