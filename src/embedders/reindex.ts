// mnemo reindex: re-embeds everything with a new embedder in batches, resumable, swapped in at the end at once.
import type { Embedder } from '../seams/embedder.js';
import type { EmbedderIdentity, ReindexProgress } from '../seams/embedding-store.js';
import type { Store } from '../seams/store.js';
import { embedInBatches } from './embed-in-batches.js';
import { searchText } from '../recall/recall-index.js';
import { identityOf } from './embedder-identity.js';
import type { EmbeddingCache } from './embedding-cache.js';

/** Options of a reindex. */
export interface ReindexOptions {
  /** Texts per batch; each batch is embedded, then staged in one transaction (default 256). */
  batchSize?: number;
  /** Called after every staged batch (and once at the start). */
  onProgress?(progress: ReindexProgress): void;
  /** Reuse cached vectors (and fill the cache). */
  cache?: EmbeddingCache | null;
}

/** What a reindex did. */
export interface ReindexResult {
  target: EmbedderIdentity;
  /** Texts (chunks, remembered and lore entries) embedded by this run. */
  embedded: number;
  /** Texts already staged by an earlier, interrupted run of the same reindex. */
  resumed: number;
  /** Texts the store holds now, all with vectors of `target` (or none, for texts with nothing to embed). */
  total: number;
}

const isZero = (vector: Float32Array) => vector.every((value) => value === 0);

/**
 * Re-embeds every chunk of every save, every remembered entry (recall) and every lore entry with `embedder`. The new vectors are staged beside the old ones, batch
 * by batch, each batch one transaction; when every chunk is staged, one transaction swaps them in, records the
 * new identity and bumps every save's version. Until then the store stays whole under its old embedder, so an
 * interrupted reindex (crash, Ctrl-C, a provider failing) loses nothing: run it again and it resumes after its
 * last staged batch. Chunks written meanwhile are picked up before the swap.
 *
 * @example
 * ```ts
 * const result = await reindex(openSqliteStore({ path: 'game.db' }), await loadStaticEmbedder(), { onProgress: console.log });
 * ```
 */
export async function reindex(store: Store, embedder: Embedder, options: ReindexOptions = {}): Promise<ReindexResult> {
  const target = identityOf(embedder);
  const batchSize = Math.max(1, options.batchSize ?? 256);
  let progress = await store.embeddings.beginReindex(target);
  const resumed = progress.done;
  let embedded = 0;
  options.onProgress?.(progress);
  for (;;) {
    const items = await store.embeddings.nextToReindex(batchSize);
    if (items.length === 0) {
      const finish = await store.embeddings.finishReindex(target);
      if (finish.finished) break;
      continue;
    }
    const texts = items.map((item) => (item.family === 'recall' ? searchText(item.key, item.valueText) : item.text));
    const vectors = options.cache != null ? await options.cache.embed(embedder, texts) : await embedInBatches(embedder, texts);
    progress = await store.embeddings.stageReindex(items.map((item, index) => {
      const vector = vectors[index] as Float32Array;
      const embedding = isZero(vector) ? null : vector;
      return item.family === 'chunks' ? { family: 'chunks', seq: item.seq, id: item.id, embedding } : { family: item.family, seq: item.seq, source: item.source, embedding };
    }));
    embedded += items.length;
    options.onProgress?.(progress);
  }
  return { target, embedded, resumed, total: progress.total };
}
