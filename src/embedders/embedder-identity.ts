// Embedding identity: which embedder made a store's vectors, and the check that refuses to mix two of them.
import { MnemoError } from '../core/errors.js';
import type { Embedder } from '../seams/embedder.js';
import type { EmbedderIdentity } from '../seams/embedding-store.js';
import type { Store } from '../seams/store.js';

/**
 * The identity of an embedder: provider, model and dimensions.
 *
 * @example
 * ```ts
 * identityOf(hashingEmbedder({ dimensions: 64 })); // { provider: 'hashing', modelId: 'hashing-64-trigrams', dimensions: 64 }
 * ```
 */
export function identityOf(embedder: Embedder): EmbedderIdentity {
  return { provider: embedder.provider, modelId: embedder.modelId, dimensions: embedder.dimensions };
}

/**
 * Reads like `static/glove-sg-100d-top100k-sif-rank (100 dimensions)`.
 *
 * @example
 * ```ts
 * describeIdentity(identityOf(hashingEmbedder({ dimensions: 64 }))); // 'hashing/hashing-64-trigrams (64 dimensions)'
 * ```
 */
export function describeIdentity(identity: EmbedderIdentity): string {
  return `${identity.provider}/${identity.modelId} (${identity.dimensions} dimensions)`;
}

/**
 * Checks that `embedder` may write and search the store's vectors: it may when it is the embedder the store
 * recorded, or when the store holds no vector yet (it is then recorded). Otherwise throws EMBEDDER_MISMATCH
 * naming both embedders and the way out (`mnemo reindex`). A null embedder (lexical only) always may.
 *
 * @example
 * ```ts
 * await ensureEmbedderIdentity(store, await loadStaticEmbedder()); // records it on a new store
 * ```
 */
export async function ensureEmbedderIdentity(store: Store, embedder: Embedder | null): Promise<void> {
  if (embedder === null) return;
  const current = identityOf(embedder);
  const claim = await store.embeddings.claimIdentity(current);
  if (claim.ok) return;
  const progress = await store.embeddings.reindexProgress();
  const recorded = claim.recorded === null ? 'an embedder it did not record (made before Mnemo recorded embedders)' : describeIdentity(claim.recorded);
  const pending = progress !== null && progress.done > 0
    ? ` A reindex to ${describeIdentity(progress.target)} stopped at ${progress.done} of ${progress.total} chunks; run it again to finish.`
    : '';
  throw new MnemoError(
    'EMBEDDER_MISMATCH',
    `The store at ${store.location} holds vectors made by ${recorded}, but it was opened with ${describeIdentity(current)}; vectors of two models cannot be compared. ` +
      `Open it with the embedder that made them, open it without an embedder (words only), or re-embed everything with the new one: \`mnemo reindex\` (library: reindex(store, embedder)).${pending}`,
    { details: { stored: claim.recorded === null ? null : describeIdentity(claim.recorded), requested: describeIdentity(current), location: store.location } },
  );
}
