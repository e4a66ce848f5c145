// The embedding cache: vectors kept under (embedder identity, sha256 of the text), so the same text is embedded once.
import { createHash } from 'node:crypto';
import { embedInBatches } from './embed-in-batches.js';
import type { Embedder } from '../seams/embedder.js';
import type { EmbeddingStore } from '../seams/embedding-store.js';

/** How many vectors the cache keeps by default, over all models (oldest out first). */
export const EMBEDDING_CACHE_ENTRIES = 50_000;

/** sha256 of a text, hex. */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The key a vector is cached under: provider, model and dimensions. */
export function cacheModelKey(embedder: Embedder): string {
  return `${embedder.provider}/${embedder.modelId}/${embedder.dimensions}`;
}

/**
 * Embeds texts through the store's cache: texts seen before (same embedder, same exact text) cost no embedding
 * call, and identical texts within one call are embedded once. Embedders that say `cacheable: false` bypass it.
 * A failing cache never fails the write: the texts are then simply embedded.
 *
 * @example
 * ```ts
 * const cache = new EmbeddingCache(store.embeddings);
 * await cache.embed(embedder, ['The bell tolls.']); // one embedding call
 * await cache.embed(embedder, ['The bell tolls.']); // none
 * ```
 */
export class EmbeddingCache {
  constructor(private readonly store: EmbeddingStore, private readonly maxEntries = EMBEDDING_CACHE_ENTRIES) {}

  async embed(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
    if (embedder.cacheable === false || this.maxEntries <= 0 || texts.length === 0) return embedInBatches(embedder, texts);
    const model = cacheModelKey(embedder);
    const hashes = texts.map(textHash);
    const unique = [...new Set(hashes)];
    const found = await this.store.getCached(model, unique).catch(() => new Map<string, Float32Array>());
    for (const [hash, vector] of found) if (vector.length !== embedder.dimensions) found.delete(hash);
    const missing = unique.filter((hash) => !found.has(hash));
    if (missing.length > 0) {
      const textOf = new Map(hashes.map((hash, index) => [hash, texts[index] as string]));
      const vectors = await embedInBatches(embedder, missing.map((hash) => textOf.get(hash) as string));
      const entries = missing.map((hash, index) => ({ hash, vector: vectors[index] as Float32Array }));
      for (const entry of entries) found.set(entry.hash, entry.vector);
      await this.store.putCached(model, entries, this.maxEntries).catch(() => undefined);
    }
    return hashes.map((hash) => new Float32Array(found.get(hash) as Float32Array));
  }
}
