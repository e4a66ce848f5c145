// Helpers for testing Mnemo and its adapters: the store, recall and lore contract suites and deterministic components.
export { runStoreContract } from './store-contract.js';
export type { StoreFactory } from './store-contract.js';
export { runRecallContract } from './recall-contract.js';
export type { RecallBackendFactory, RecallContext, RecallHandle } from './recall-contract.js';
export { hashingEmbedder } from '../embedders/hashing/index.js';
export { runEmbeddingStoreContract } from './embedding-contract.js';
export { runLoreContract } from './lore-contract.js';
export { countingEmbedder } from './counting-embedder.js';
export type { CountingEmbedder } from './counting-embedder.js';
export { ORSA_LORE, ORSA_CHARACTERS } from './lore-fixture.js';
export { runLivingContract } from './living-contract.js';
export { scriptedLlm, ScriptedLlm } from '../llms/scripted/index.js';
