// Helpers for testing Mnemo and its adapters: the store contract suite and deterministic components.
export { runStoreContract } from './store-contract.js';
export type { StoreFactory } from './store-contract.js';
export { hashingEmbedder } from '../embedders/hashing/index.js';
export { runEmbeddingStoreContract } from './embedding-contract.js';
