// The transformers.js embedder (all-MiniLM-L6-v2 by default), an optional, lazily loaded runtime.
export { loadTransformersEmbedder, MINILM_MODEL } from './transformers-embedder.js';
export type { TransformersEmbedderOptions } from './transformers-embedder.js';
export { meanPool, l2Normalize } from './pooling.js';
