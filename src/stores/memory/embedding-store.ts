// The in-memory adapter of the embedding sub-store: the same contract as SQLite, held in maps.
import { renderValue } from '../../core/json-value.js';
import type { CachedVector, EmbedderIdentity, EmbeddingStore, IdentityClaim, ReindexItem, ReindexProgress, ReindexVector } from '../../seams/embedding-store.js';
import type { InMemoryStore } from './memory-store.js';
import type { Held } from './recall-store.js';

const sameIdentity = (a: EmbedderIdentity, b: EmbedderIdentity) => a.provider === b.provider && a.modelId === b.modelId && a.dimensions === b.dimensions;
const sourceOf = (entry: Held) => `${entry.key}\u0000${JSON.stringify(entry.value)}`;

/**
 * The embedding layer of an in-memory store: it reads and writes the vectors of the chunks and of the recall
 * entries. Each method runs to completion without yielding, so it is atomic.
 *
 * @example
 * ```ts
 * const store = openInMemoryStore();
 * await store.embeddings.claimIdentity({ provider: 'hashing', modelId: 'hashing-64', dimensions: 64 }); // { ok: true }
 * ```
 */
export class InMemoryEmbeddingStore implements EmbeddingStore {
  private recorded: EmbedderIdentity | null = null;
  private readonly cache = new Map<string, Float32Array>();
  private target: EmbedderIdentity | null = null;
  private readonly staged = new Map<number, { id: string; embedding: Float32Array | null }>();
  private readonly stagedRecall = new Map<number, { source: string; embedding: Float32Array | null }>();

  constructor(private readonly store: InMemoryStore) {}

  async identity(): Promise<EmbedderIdentity | null> {
    this.store.assertOpen();
    return this.recorded === null ? null : { ...this.recorded };
  }

  async claimIdentity(identity: EmbedderIdentity): Promise<IdentityClaim> {
    this.store.assertOpen();
    if (this.recorded !== null && sameIdentity(this.recorded, identity)) return { ok: true };
    const vectors = this.store.allChunks().some((chunk) => chunk.embedding !== null) || this.store.recall.heldEntries().some((entry) => entry.embedding !== null);
    if (vectors) return { ok: false, recorded: this.recorded === null ? null : { ...this.recorded } };
    this.recorded = { provider: identity.provider, modelId: identity.modelId, dimensions: identity.dimensions };
    return { ok: true };
  }

  async getCached(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    this.store.assertOpen();
    const found = new Map<string, Float32Array>();
    for (const hash of hashes) {
      const vector = this.cache.get(`${model}\u0000${hash}`);
      if (vector !== undefined) found.set(hash, new Float32Array(vector));
    }
    return found;
  }

  async putCached(model: string, entries: readonly CachedVector[], limit: number): Promise<void> {
    this.store.assertOpen();
    if (limit <= 0) return;
    for (const entry of entries) {
      const key = `${model}\u0000${entry.hash}`;
      if (!this.cache.has(key)) this.cache.set(key, new Float32Array(entry.vector));
    }
    for (const key of this.cache.keys()) {
      if (this.cache.size <= limit) break;
      this.cache.delete(key);
    }
  }

  private cursor(): number {
    let highest = 0;
    for (const seq of this.staged.keys()) highest = Math.max(highest, seq);
    return highest;
  }

  private pendingRecall(): Held[] {
    return this.store.recall.heldEntries().filter((entry) => this.stagedRecall.get(entry.seq)?.source !== sourceOf(entry));
  }

  private progress(target: EmbedderIdentity): ReindexProgress {
    const cursor = this.cursor();
    const pendingChunks = this.store.allChunks().filter((chunk) => chunk.seq > cursor).length;
    const pendingRecall = this.pendingRecall().length;
    const done = this.staged.size + this.store.recall.heldEntries().length - pendingRecall;
    return { target: { ...target }, done, total: done + pendingChunks + pendingRecall };
  }

  async beginReindex(target: EmbedderIdentity): Promise<ReindexProgress> {
    this.store.assertOpen();
    if (this.target === null || !sameIdentity(this.target, target)) {
      this.staged.clear();
      this.stagedRecall.clear();
      this.target = { ...target };
    }
    return this.progress(target);
  }

  async reindexProgress(): Promise<ReindexProgress | null> {
    this.store.assertOpen();
    return this.target === null ? null : this.progress(this.target);
  }

  async nextToReindex(limit: number): Promise<ReindexItem[]> {
    this.store.assertOpen();
    const cursor = this.cursor();
    const chunks = this.store.allChunks().filter((chunk) => chunk.seq > cursor).slice(0, limit);
    if (chunks.length > 0) return chunks.map(({ seq, id, text }) => ({ family: 'chunks', seq, id, text }));
    return this.pendingRecall().slice(0, limit).map((entry) => ({ family: 'recall', seq: entry.seq, key: entry.key, valueText: renderValue(entry.value), source: sourceOf(entry) }));
  }

  async stageReindex(vectors: readonly ReindexVector[]): Promise<ReindexProgress> {
    this.store.assertOpen();
    if (this.target === null) throw new Error('stageReindex: no reindex in progress; call beginReindex first');
    for (const vector of vectors) {
      const embedding = vector.embedding === null ? null : new Float32Array(vector.embedding);
      if (vector.family === 'chunks') this.staged.set(vector.seq, { id: vector.id, embedding });
      else this.stagedRecall.set(vector.seq, { source: vector.source, embedding });
    }
    return this.progress(this.target);
  }

  async finishReindex(target: EmbedderIdentity): Promise<{ finished: boolean; pending: number }> {
    this.store.assertOpen();
    const progress = this.progress(target);
    const pending = progress.total - progress.done;
    if (pending > 0) return { finished: false, pending };
    for (const chunk of this.store.allChunks()) {
      const staged = this.staged.get(chunk.seq);
      chunk.embedding = staged !== undefined && staged.id === chunk.id ? staged.embedding : null;
    }
    for (const entry of this.store.recall.heldEntries()) {
      const staged = this.stagedRecall.get(entry.seq);
      entry.embedding = staged !== undefined && staged.source === sourceOf(entry) ? staged.embedding : null;
    }
    this.store.bumpEverySave();
    this.store.recall.bumpVersion();
    this.staged.clear();
    this.stagedRecall.clear();
    this.target = null;
    this.recorded = { provider: target.provider, modelId: target.modelId, dimensions: target.dimensions };
    return { finished: true, pending: 0 };
  }
}
