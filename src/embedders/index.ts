// Embedder code: the adapters (static/, hashing/, transformers/, openai-compatible/) and the layer over them (identity checks, the cache, batching, reindexing, choosing an embedder by name).
export { identityOf, describeIdentity, ensureEmbedderIdentity } from './embedder-identity.js';
export { EmbeddingCache, EMBEDDING_CACHE_ENTRIES, textHash, cacheModelKey } from './embedding-cache.js';
export { reindex } from './reindex.js';
export type { ReindexOptions, ReindexResult } from './reindex.js';
export { resolveEmbedder, EMBEDDER_NAMES } from './resolve-embedder.js';
export type { EmbedderName, ResolveEmbedderOptions } from './resolve-embedder.js';
