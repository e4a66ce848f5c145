// The hashing embedder: deterministic vectors from word hashing, with no model to load.
export { hashingEmbedder } from './hashing-embedder.js';
export type { HashingEmbedderOptions } from './hashing-embedder.js';
