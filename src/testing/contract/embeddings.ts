// The EmbeddingStore contract, written once: every store adapter runs it through runEmbeddingStoreContract().
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.js';
import { hashingEmbedder } from '../../embedders/hashing/index.js';
import { Mnemo } from '../../open-memory.js';
import type { EmbedderIdentity, ReindexItem, ReindexVector } from '../../seams/embedding-store.js';
import type { Store } from '../../seams/store.js';
import type { StoreFactory } from './store-factory.js';

const HASHING: EmbedderIdentity = { provider: 'hashing', modelId: 'hashing-16-trigrams', dimensions: 16 };
const OTHER: EmbedderIdentity = { provider: 'static', modelId: 'glove', dimensions: 3 };
const unit = (values: number[]) => Float32Array.from(values);
const textOf = (item: ReindexItem) => (item.family === 'recall' ? `${item.key}: ${item.valueText}` : item.text);

/** The staged vectors of some items: `vector(item, index)` for each. */
function staged(items: readonly ReindexItem[], vector: (item: ReindexItem, index: number) => Float32Array | null): ReindexVector[] {
  return items.map((item, index) => (item.family === 'chunks'
    ? { family: 'chunks', seq: item.seq, id: item.id, embedding: vector(item, index) }
    : { family: item.family, seq: item.seq, source: item.source, embedding: vector(item, index) }));
}

/**
 * Runs the behaviour every adapter's `store.embeddings` must have: identity claims, the cache and its limit,
 * and a reindex staged in batches, resumed, and swapped in whole.
 *
 * @example
 * ```ts
 * runEmbeddingStoreContract('sqlite', { create: async () => openSqliteStore({ path: tempFile() }) });
 * ```
 */
export function runEmbeddingStoreContract(name: string, factory: StoreFactory): void {
  describe(`embedding store contract: ${name}`, () => {
    let store: Store;
    let memory: Mnemo;

    beforeEach(async () => {
      store = await factory.create();
      memory = new Mnemo({ store, embedder: hashingEmbedder({ dimensions: 16 }), reranker: null, logger: silentLogger });
    });
    afterEach(async () => {
      await memory.close();
    });

    it('records the first identity claimed, accepts it again, and refuses another once vectors exist', async () => {
      expect(await store.embeddings.identity()).toBeNull();
      expect(await store.embeddings.claimIdentity(OTHER)).toEqual({ ok: true });
      expect(await store.embeddings.claimIdentity(HASHING)).toEqual({ ok: true });
      expect(await store.embeddings.identity()).toEqual(HASHING);
      await memory.add({ saveId: 's', turnId: 1, text: 'A vector now exists.' });
      expect(await store.embeddings.claimIdentity(HASHING)).toEqual({ ok: true });
      expect(await store.embeddings.claimIdentity(OTHER)).toEqual({ ok: false, recorded: HASHING });
      expect(await store.embeddings.identity()).toEqual(HASHING);
    });

    it('reports vectors of unknown origin as a refusal with no recorded identity', async () => {
      await memory.add({ saveId: 's', turnId: 1, text: 'Written before any identity was recorded.' });
      expect(await store.embeddings.claimIdentity(OTHER)).toEqual({ ok: false, recorded: null });
    });

    it('caches vectors per model and hash, and keeps only the newest `limit` entries', async () => {
      await store.embeddings.putCached('m1', [{ hash: 'a', vector: unit([1, 0]) }, { hash: 'b', vector: unit([0, 1]) }], 10);
      await store.embeddings.putCached('m2', [{ hash: 'a', vector: unit([0.6, 0.8]) }], 10);
      const found = await store.embeddings.getCached('m1', ['a', 'b', 'c']);
      expect([...found.keys()].sort()).toEqual(['a', 'b']);
      expect([...(found.get('a') as Float32Array)]).toEqual([1, 0]);
      expect([...((await store.embeddings.getCached('m2', ['a'])).get('a') as Float32Array)]).toEqual([Math.fround(0.6), Math.fround(0.8)]);
      await store.embeddings.putCached('m1', [{ hash: 'c', vector: unit([1, 1]) }, { hash: 'd', vector: unit([1, 2]) }], 3);
      const left = await store.embeddings.getCached('m1', ['a', 'b', 'c', 'd']);
      expect([...left.keys()].sort()).toEqual(['c', 'd']);
      expect((await store.embeddings.getCached('m2', ['a'])).size).toBe(1);
    });

    it('stages a reindex in batches, picks up chunks written meanwhile, and swaps everything in at once', async () => {
      await store.embeddings.claimIdentity(HASHING);
      for (let turn = 1; turn <= 5; turn++) await memory.add({ saveId: turn % 2 === 0 ? 'even' : 'odd', turnId: turn, text: `Turn ${turn} text.` });
      const versionBefore = await store.saveVersion('odd');
      expect(await store.embeddings.beginReindex(OTHER)).toMatchObject({ done: 0, total: 5 });
      const first = await store.embeddings.nextToReindex(3);
      expect(first.map(textOf)).toEqual(['Turn 1 text.', 'Turn 2 text.', 'Turn 3 text.']);
      expect(await store.embeddings.stageReindex(staged(first, () => unit([1, 0, 0])))).toMatchObject({ done: 3, total: 5 });
      expect(await store.embeddings.finishReindex(OTHER)).toEqual({ finished: false, pending: 2 });

      expect(await store.embeddings.beginReindex(OTHER)).toMatchObject({ done: 3, total: 5 });
      await memory.add({ saveId: 'odd', turnId: 7, text: 'Written during the reindex.' });
      const rest = await store.embeddings.nextToReindex(10);
      expect(rest.map(textOf)).toEqual(['Turn 4 text.', 'Turn 5 text.', 'Written during the reindex.']);
      expect(await store.embeddings.reindexProgress()).toMatchObject({ target: OTHER, done: 3, total: 6 });
      await store.embeddings.stageReindex(staged(rest, (_, index) => (index === 0 ? null : unit([0, 1, 0]))));
      expect(await store.embeddings.identity()).toEqual(HASHING);
      expect(await store.embeddings.finishReindex(OTHER)).toEqual({ finished: true, pending: 0 });

      expect(await store.embeddings.identity()).toEqual(OTHER);
      expect(await store.embeddings.reindexProgress()).toBeNull();
      expect(await store.saveVersion('odd')).toBeGreaterThan(versionBefore);
      const vectors = new Map<string, number[] | null>();
      for (const saveId of ['odd', 'even']) await store.scanChunks(saveId, (row) => vectors.set(row.text, row.embedding === null ? null : [...row.embedding]));
      expect(vectors.get('Turn 1 text.')).toEqual([1, 0, 0]);
      expect(vectors.get('Turn 4 text.')).toBeNull();
      expect(vectors.get('Written during the reindex.')).toEqual([0, 1, 0]);
    });

    it('counts recall entries as vectors, re-embeds them after the chunks, and redoes an entry rewritten meanwhile', async () => {
      await memory.recall.store('weather', 'rain all week', { scope: 'almanac' });
      expect(await store.embeddings.claimIdentity(HASHING)).toEqual({ ok: false, recorded: null });
      await memory.add({ saveId: 's', turnId: 1, text: 'A chunk.' });
      await memory.recall.store('harvest', { crop: 'barley', sacks: 12 });
      await store.embeddings.beginReindex(OTHER);
      const chunkItems = await store.embeddings.nextToReindex(10);
      expect(chunkItems.map(textOf)).toEqual(['A chunk.']);
      await store.embeddings.stageReindex(staged(chunkItems, () => unit([1, 0, 0])));
      const entries = await store.embeddings.nextToReindex(10);
      expect(entries.map(textOf)).toEqual(['weather: rain all week', 'harvest: {"crop":"barley","sacks":12}']);
      expect(await store.embeddings.stageReindex(staged(entries, () => unit([0, 0, 1])))).toMatchObject({ done: 3, total: 3 });
      await memory.recall.store('weather', 'sun at last', { scope: 'almanac' });
      expect(await store.embeddings.finishReindex(OTHER)).toEqual({ finished: false, pending: 1 });
      const redo = await store.embeddings.nextToReindex(10);
      expect(redo.map(textOf)).toEqual(['weather: sun at last']);
      await store.embeddings.stageReindex(staged(redo, () => unit([0, 1, 0])));
      const recallVersion = await store.recall.version();
      expect(await store.embeddings.finishReindex(OTHER)).toEqual({ finished: true, pending: 0 });
      expect(await store.recall.version()).toBeGreaterThan(recallVersion);
      const vectors = new Map<string, number[] | null>();
      await store.recall.scan(null, 0, (row) => vectors.set(row.key, row.embedding === null ? null : [...row.embedding]));
      expect(vectors.get('weather')).toEqual([0, 1, 0]);
      expect(vectors.get('harvest')).toEqual([0, 0, 1]);
    });

    it('counts lore entries as vectors, re-embeds them last, redoes an edited one, and records the model on each', async () => {
      const entry = (content: string) => ({ source: 'world.yaml', title: 'The tide bell', content, scopeLevel: 'continental' as const, scopeTags: [] });
      await memory.lore.importEntries([entry('The tide bell rings twice at dusk.')]);
      expect(await store.embeddings.claimIdentity(HASHING)).toEqual({ ok: false, recorded: null });
      await store.embeddings.beginReindex(OTHER);
      const items = await store.embeddings.nextToReindex(10);
      expect(items.map((item) => [item.family, textOf(item)])).toEqual([['lore', 'The tide bell rings twice at dusk.']]);
      await store.embeddings.stageReindex(staged(items, () => unit([1, 0, 0])));
      await memory.lore.importEntries([entry('The tide bell rings thrice at dawn.')]);
      expect(await store.embeddings.finishReindex(OTHER)).toEqual({ finished: false, pending: 1 });
      const redo = await store.embeddings.nextToReindex(10);
      expect(redo.map(textOf)).toEqual(['The tide bell rings thrice at dawn.']);
      await store.embeddings.stageReindex(staged(redo, () => unit([0, 1, 0])));
      const version = await store.lore.version();
      expect(await store.embeddings.finishReindex(OTHER)).toEqual({ finished: true, pending: 0 });
      expect(await store.lore.version()).toBeGreaterThan(version);
      const [stored] = await store.lore.list();
      expect(stored?.embeddingModel).toBe('static/glove/3');
      const vectors: (number[] | null)[] = [];
      await store.lore.scan((row) => vectors.push(row.embedding === null ? null : [...row.embedding]));
      expect(vectors).toEqual([[0, 1, 0]]);
    });

    it('drops what was staged for another target when a reindex to a new one begins', async () => {
      await memory.add({ saveId: 's', turnId: 1, text: 'One.' });
      await memory.add({ saveId: 's', turnId: 2, text: 'Two.' });
      const items = await store.embeddings.nextToReindex(1);
      await store.embeddings.beginReindex(OTHER);
      await store.embeddings.stageReindex(staged(items, () => unit([1, 0, 0])));
      expect(await store.embeddings.beginReindex(HASHING)).toMatchObject({ target: HASHING, done: 0, total: 2 });
    });
  });
}
