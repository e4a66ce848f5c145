// Helpers for testing Mnemo and its adapters: the store and recall contract suites and deterministic components.
export { runStoreContract } from './store-contract.js';
export type { StoreFactory } from './store-contract.js';
export { runRecallContract } from './recall-contract.js';
export type { RecallBackendFactory, RecallContext, RecallHandle } from './recall-contract.js';
export { hashingEmbedder } from '../embedders/hashing/index.js';
export { runEmbeddingStoreContract } from './embedding-contract.js';
