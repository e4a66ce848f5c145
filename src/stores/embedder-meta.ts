// What every store adapter records about its embedder: the meta keys of the identity and of a reindex's target, and when two identities are one.
import type { EmbedderIdentity } from '../seams/embedding-store.js';

/** The meta key holding the identity of the embedder that made the store's vectors. */
export const IDENTITY_KEY = 'embedder.identity';

/** The meta key holding the target of a reindex in progress. */
export const REINDEX_KEY = 'embedder.reindex';

/**
 * Whether two identities name the same embedder: the same provider, model and dimensions.
 *
 * @example
 * ```ts
 * sameIdentity({ provider: 'static', modelId: 'glove', dimensions: 100 }, { provider: 'static', modelId: 'glove', dimensions: 50 }); // false
 * ```
 */
export function sameIdentity(a: EmbedderIdentity, b: EmbedderIdentity): boolean {
  return a.provider === b.provider && a.modelId === b.modelId && a.dimensions === b.dimensions;
}
