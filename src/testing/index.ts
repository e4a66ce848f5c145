// Helpers for testing Mnemo and its adapters: the contract suites by area (src/testing/contract/) and deterministic components.
export { runStoreContract } from './store-contract.js';
export { runChunksContract } from './contract/chunks.js';
export { runSavesContract } from './contract/saves.js';
export type { StoreFactory } from './contract/store-factory.js';
export { runRecallContract } from './contract/recall.js';
export type { RecallBackendFactory, RecallContext, RecallHandle } from './contract/recall.js';
export { hashingEmbedder } from '../embedders/hashing/index.js';
export { runEmbeddingStoreContract } from './contract/embeddings.js';
export { runLoreContract } from './contract/lore.js';
export { countingEmbedder } from './counting-embedder.js';
export type { CountingEmbedder } from './counting-embedder.js';
export { ORSA_LORE, ORSA_CHARACTERS } from './lore-fixture.js';
export { runLivingContract } from './contract/living.js';
export { scriptedLlm, ScriptedLlm } from '../llms/scripted/index.js';
