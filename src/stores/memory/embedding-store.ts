// The in-memory adapter of the embedding sub-store: the same contract as SQLite, held in maps.
import { renderValue } from '../../core/json-value.js';
import type { CachedVector, EmbedderIdentity, EmbeddingStore, IdentityClaim, ReindexItem, ReindexProgress, ReindexVector } from '../../seams/embedding-store.js';
import { sameIdentity } from '../embedder-meta.js';
import type { InMemoryConnection } from './memory-connection.js';

/** An entry of a layer that rewrites entries in place, seen uniformly. */
interface HeldEntry {
  seq: number;
  embedding: Float32Array | null;
}

/** A layer whose entries are rewritten in place: staged with the `source` (what the vector was made from) they had. */
interface EntryFamily<T extends HeldEntry> {
  family: 'recall' | 'lore';
  entries(): T[];
  source(entry: T): string;
  item(entry: T): ReindexItem;
  /** Applies the swap's extra change to an entry (lore records the embedding model). */
  swapped(entry: T, target: EmbedderIdentity): void;
  bump(): void;
}

/**
 * The embedding layer of an in-memory store: it reads and writes the vectors of the chunks, the recall entries
 * and the lore entries. Each method runs to completion without yielding, so it is atomic.
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
  private readonly stagedEntries = { recall: new Map<number, { source: string; embedding: Float32Array | null }>(), lore: new Map<number, { source: string; embedding: Float32Array | null }>() };
  private readonly families: readonly EntryFamily<HeldEntry>[];

  constructor(private readonly store: InMemoryConnection) {
    const recall: EntryFamily<ReturnType<InMemoryConnection['recall']['heldEntries']>[number]> = {
      family: 'recall',
      entries: () => store.recall.heldEntries(),
      source: (entry) => `${entry.key}\u0000${JSON.stringify(entry.value)}`,
      item: (entry) => ({ family: 'recall', seq: entry.seq, key: entry.key, valueText: renderValue(entry.value), source: `${entry.key}\u0000${JSON.stringify(entry.value)}` }),
      swapped: () => undefined,
      bump: () => store.recall.bumpVersion(),
    };
    const lore: EntryFamily<ReturnType<InMemoryConnection['lore']['heldEntries']>[number]> = {
      family: 'lore',
      entries: () => store.lore.heldEntries(),
      source: (entry) => entry.content,
      item: (entry) => ({ family: 'lore', seq: entry.seq, text: entry.content, source: entry.content }),
      swapped: (entry, target) => { entry.embeddingModel = `${target.provider}/${target.modelId}/${target.dimensions}`; },
      bump: () => store.lore.bumpVersion(),
    };
    this.families = [recall, lore] as unknown as readonly EntryFamily<HeldEntry>[];
  }

  async identity(): Promise<EmbedderIdentity | null> {
    this.store.assertOpen();
    return this.recorded === null ? null : { ...this.recorded };
  }

  async claimIdentity(identity: EmbedderIdentity): Promise<IdentityClaim> {
    this.store.assertOpen();
    if (this.recorded !== null && sameIdentity(this.recorded, identity)) return { ok: true };
    const vectors = this.store.allChunks().some((chunk) => chunk.embedding !== null) || this.families.some((family) => family.entries().some((entry) => entry.embedding !== null));
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

  private pending(family: EntryFamily<HeldEntry>): HeldEntry[] {
    const staged = this.stagedEntries[family.family];
    return family.entries().filter((entry) => staged.get(entry.seq)?.source !== family.source(entry));
  }

  private progress(target: EmbedderIdentity): ReindexProgress {
    const cursor = this.cursor();
    let done = this.staged.size;
    let pending = this.store.allChunks().filter((chunk) => chunk.seq > cursor).length;
    for (const family of this.families) {
      const waiting = this.pending(family).length;
      done += family.entries().length - waiting;
      pending += waiting;
    }
    return { target: { ...target }, done, total: done + pending };
  }

  async beginReindex(target: EmbedderIdentity): Promise<ReindexProgress> {
    this.store.assertOpen();
    if (this.target === null || !sameIdentity(this.target, target)) {
      this.staged.clear();
      this.stagedEntries.recall.clear();
      this.stagedEntries.lore.clear();
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
    for (const family of this.families) {
      const waiting = this.pending(family).slice(0, limit);
      if (waiting.length > 0) return waiting.map((entry) => family.item(entry));
    }
    return [];
  }

  async stageReindex(vectors: readonly ReindexVector[]): Promise<ReindexProgress> {
    this.store.assertOpen();
    if (this.target === null) throw new Error('stageReindex: no reindex in progress; call beginReindex first');
    for (const vector of vectors) {
      const embedding = vector.embedding === null ? null : new Float32Array(vector.embedding);
      if (vector.family === 'chunks') this.staged.set(vector.seq, { id: vector.id, embedding });
      else this.stagedEntries[vector.family].set(vector.seq, { source: vector.source, embedding });
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
    this.store.bumpEverySave();
    this.staged.clear();
    for (const family of this.families) {
      const staged = this.stagedEntries[family.family];
      for (const entry of family.entries()) {
        const vector = staged.get(entry.seq);
        entry.embedding = vector !== undefined && vector.source === family.source(entry) ? vector.embedding : null;
        family.swapped(entry, target);
      }
      family.bump();
      staged.clear();
    }
    this.target = null;
    this.recorded = { provider: target.provider, modelId: target.modelId, dimensions: target.dimensions };
    return { finished: true, pending: 0 };
  }
}
