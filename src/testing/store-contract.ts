// The Store contract, written once: every adapter runs it through runStoreContract(name, factory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.js';
import { hashingEmbedder } from '../embedders/hashing/index.js';
import { Mnemo } from '../open-memory.js';
import type { Store } from '../seams/store.js';

/** Makes a fresh, empty store for one test; `reopen` (optional) opens the same data again. */
export interface StoreFactory {
  create(): Promise<Store>;
  reopen?(store: Store): Promise<Store>;
}

/**
 * Runs the behaviour every Store adapter must have, through the narrative memory that uses it.
 *
 * @example
 * ```ts
 * runStoreContract('sqlite', { create: async () => openSqliteStore({ path: tempFile() }) });
 * ```
 */
export function runStoreContract(name: string, factory: StoreFactory): void {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    let memory: Mnemo;
    const open = (target: Store) => new Mnemo({ store: target, embedder: hashingEmbedder({ dimensions: 32 }), reranker: null, logger: silentLogger });

    beforeEach(async () => {
      store = await factory.create();
      memory = open(store);
    });
    afterEach(async () => {
      await memory.close();
    });

    it('adds a chunk and returns a UUID, with the defaults filled in', async () => {
      const id = await memory.add({ saveId: 'a', turnId: 1, text: 'The lantern flickers.' });
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const [chunk] = await store.getChunks([id]);
      expect(chunk).toMatchObject({ id, saveId: 'a', turnId: 1, chunkType: 'narrative', text: 'The lantern flickers.', entryId: null });
      expect(await memory.count('a')).toBe(1);
      expect((await store.getChunks([id], 'a')).map((found) => found.id)).toEqual([id]);
      expect(await store.getChunks([id], 'b')).toEqual([]);
    });

    it('keeps saves apart: counts, queries and rewinds of one never touch another', async () => {
      await memory.add({ saveId: 'a', turnId: 1, text: 'The dragon sleeps under the mountain.' });
      await memory.add({ saveId: 'b', turnId: 1, text: 'The dragon wakes and burns the village.' });
      await memory.add({ saveId: 'b', turnId: 5, text: 'A dragon egg hatches.' });
      const hits = await memory.query('a', 'dragon', { k: 10 });
      expect(hits.map((hit) => hit.saveId)).toEqual(['a']);
      expect(await memory.rewind('a', 0)).toBe(1);
      expect(await memory.count('a')).toBe(0);
      expect(await memory.count('b')).toBe(2);
    });

    it('deletes a save, every layer, and no other: counts returned, an unknown save is zeros, the id is free again', async () => {
      await memory.add({ saveId: 'a', turnId: 1, text: 'The dragon sleeps under the mountain.' });
      await memory.lore.syncToSave('a', [{ entryId: 'e-1', text: 'Dragons hoard salt.', metadata: {} }]);
      await memory.add({ saveId: 'b', turnId: 1, text: 'The dragon wakes and burns the village.' });
      const [fact] = await store.living.insertFacts('a', 1, [{ statement: 'A dragon sleeps.' }]);
      await store.living.applyConsolidation('a', 1, [{ kind: 'CREATE', statement: 'Dragons sleep long.', subject: 'dragon', beliefId: null, sourceFactIds: [fact as number] }], new Map([[fact as number, 1]]));
      const [belief] = await store.living.getBeliefs('a');
      await store.living.upsertModel('a', 'dragon', 'A sleeping dragon.', 1, [belief?.beliefId as number]);
      await store.living.enqueueTurn('a', 1, { text: 'turn 1' }, 0);
      expect((await memory.query('a', 'dragon', { k: 5 })).length).toBe(1);

      expect(await memory.deleteSave('a')).toEqual({ chunks: 2, living: { facts: 1, beliefs: 1, models: 1, jobs: 1 } });
      expect(await memory.count('a')).toBe(0);
      expect(await memory.query('a', 'dragon', { k: 5, includeLore: true })).toEqual([]);
      expect(await store.saveVersion('a')).toBe(0);
      expect((await store.living.getFacts('a')).length + (await store.living.getBeliefs('a', { includeDeleted: true })).length + (await store.living.getModels('a')).length).toBe(0);
      expect(await store.living.listJobs({ saveId: 'a' })).toEqual([]);
      expect((await memory.listSaves()).map((save) => save.saveId)).toEqual(['b']);
      expect((await memory.query('b', 'dragon', { k: 5 })).map((hit) => hit.saveId)).toEqual(['b']);
      expect(await memory.deleteSave('a')).toEqual({ chunks: 0, living: { facts: 0, beliefs: 0, models: 0, jobs: 0 } });
      expect(await memory.deleteSave('nobody')).toEqual({ chunks: 0, living: { facts: 0, beliefs: 0, models: 0, jobs: 0 } });
      await memory.add({ saveId: 'a', turnId: 1, text: 'A new dragon egg.' });
      expect((await memory.query('a', 'dragon', { k: 5 })).map((hit) => hit.text)).toEqual(['A new dragon egg.']);
      expect(await memory.fork('b', 'a-branch', 1)).toMatchObject({ chunks: 1 });
    });

    it('rewinds exactly: every chunk after N goes, every chunk at or before N stays, and none surfaces again', async () => {
      for (let turn = 0; turn <= 10; turn++) {
        await memory.addMany([
          { saveId: 's', turnId: turn, text: `Turn ${turn}: the caravan reaches waypoint ${turn}.` },
          { saveId: 's', turnId: turn, text: `Turn ${turn}: the guard counts coin number ${turn}.`, chunkType: 'dialogue' },
        ]);
      }
      expect(await memory.rewind('s', 6)).toBe(8);
      expect(await memory.count('s')).toBe(14);
      const hits = await memory.query('s', 'caravan waypoint guard coin', { k: 100 });
      expect(hits).toHaveLength(14);
      expect(Math.max(...hits.map((hit) => hit.turnId))).toBe(6);
      expect(await memory.rewind('s', 6)).toBe(0);
      expect(await memory.rewind('never-written', 3)).toBe(0);
    });

    it('updateTurn replaces a turn of one chunk type and leaves the others', async () => {
      await memory.add({ saveId: 's', turnId: 3, text: 'The bridge stands.' });
      await memory.add({ saveId: 's', turnId: 3, text: 'Old lore of bridges.', chunkType: 'lore' });
      await memory.add({ saveId: 's', turnId: 4, text: 'The bridge is crossed.' });
      const [replacement] = await memory.updateTurn({ saveId: 's', turnId: 3, text: 'The bridge collapses into the gorge.' });
      const hits = await memory.query('s', 'bridge', { k: 10, includeLore: true });
      expect(hits.map((hit) => hit.text).sort()).toEqual(['Old lore of bridges.', 'The bridge collapses into the gorge.', 'The bridge is crossed.'].sort());
      expect(hits.find((hit) => hit.text.includes('collapses'))?.id).toBe(replacement);
      expect(await memory.count('s')).toBe(3);
    });

    it('applies filters before ranking: the k best matches all filtered out, the permitted ones still fill k', async () => {
      for (let turn = 1; turn <= 20; turn++) await memory.add({ saveId: 's', turnId: turn, text: 'obsidian obsidian obsidian tower of obsidian' });
      for (let turn = 1; turn <= 5; turn++) await memory.add({ saveId: 's', turnId: turn, text: `a single obsidian shard among many other ordinary words number ${turn}`, chunkType: 'dialogue' });
      const byType = await memory.query('s', 'obsidian', { k: 5, chunkType: 'dialogue', capPerSource: 5 });
      expect(byType).toHaveLength(5);
      expect(byType.every((hit) => hit.chunkType === 'dialogue')).toBe(true);
      const excluded = await memory.query('s', 'obsidian', { k: 5, excludeChunkType: 'narrative', capPerSource: 5 });
      expect(excluded.every((hit) => hit.chunkType === 'dialogue')).toBe(true);
      expect(excluded).toHaveLength(5);
      const window = await memory.query('s', 'obsidian', { k: 5, maxTurnId: 2, capPerSource: 5 });
      expect(window).toHaveLength(4);
      expect(window.every((hit) => hit.turnId <= 2)).toBe(true);
      const present = await memory.query('s', 'obsidian', { k: 50, maxTurnId: 10, currentTurnId: 3 });
      expect(Math.max(...present.map((hit) => hit.turnId))).toBe(3);
    });

    it('lets the core keys win over extra metadata, and keeps entryId', async () => {
      const id = await memory.add({
        saveId: 's',
        turnId: 2,
        text: 'A note.',
        chunkType: 'note',
        metadata: { saveId: 'other', turnId: 99, chunkType: 'fake', mood: 'grim', entryId: 'entry-7' },
      });
      const [chunk] = await store.getChunks([id]);
      expect(chunk?.metadata).toEqual({ saveId: 's', turnId: 2, chunkType: 'note', mood: 'grim', entryId: 'entry-7' });
      expect(chunk?.entryId).toBe('entry-7');
      const [hit] = await memory.query('s', 'note');
      expect(hit?.entryId).toBe('entry-7');
    });

    it('is deterministic: the same query twice gives the same order, ties in insertion order', async () => {
      for (let index = 0; index < 30; index++) await memory.add({ saveId: 's', turnId: index, text: `identical words about the harbour ${index % 3 === 0 ? '' : 'and boats'}` });
      const first = await memory.query('s', 'harbour boats', { k: 20 });
      const second = await memory.query('s', 'harbour boats', { k: 20 });
      expect(second.map((hit) => hit.id)).toEqual(first.map((hit) => hit.id));
      // Identical texts tie exactly in the lexical arm (neighbour context makes their vectors differ, the window sum their windows).
      const lexical = await memory.query('s', 'harbour boats', { k: 20, weights: { semantic: 0 }, windowSum: null });
      const equal = lexical.filter((hit) => hit.text.endsWith('boats'));
      const turns = equal.map((hit) => hit.turnId);
      expect(turns).toEqual([...turns].sort((a, b) => a - b));
    });

    it('stays consistent with writes made by another handle on the same store', async () => {
      await memory.add({ saveId: 's', turnId: 1, text: 'The first omen: a red moon.' });
      expect(await memory.query('s', 'omen')).toHaveLength(1);
      const other = open(store);
      await other.add({ saveId: 's', turnId: 2, text: 'The second omen: a silent bell.' });
      expect(await memory.query('s', 'omen', { k: 5 })).toHaveLength(2);
      await other.rewind('s', 1);
      expect((await memory.query('s', 'omen', { k: 5 })).map((hit) => hit.turnId)).toEqual([1]);
    });

    it('lists saves with their counts and turn range', async () => {
      await memory.addMany([{ saveId: 'x', turnId: 2, text: 'one' }, { saveId: 'x', turnId: 7, text: 'two' }]);
      const saves = await store.listSaves();
      expect(saves.find((save) => save.saveId === 'x')).toMatchObject({ chunks: 2, turns: 2, minTurnId: 2, maxTurnId: 7 });
    });

    it('lists chunks and turns in order, a page at a time, leaving out a type when asked', async () => {
      await memory.addMany([
        { saveId: 'p', turnId: 0, text: 'lore of the well', chunkType: 'lore' },
        { saveId: 'p', turnId: 3, text: 'c' },
        { saveId: 'p', turnId: 1, text: 'a' },
        { saveId: 'p', turnId: 1, text: 'b', chunkType: 'dialogue' },
        { saveId: 'p', turnId: 5, text: 'd' },
      ]);
      const texts = async (options: Parameters<Store['listChunks']>[1]) => (await store.listChunks('p', options)).map((chunk) => chunk.text);
      expect(await texts({})).toEqual(['lore of the well', 'a', 'b', 'c', 'd']);
      expect(await texts({ excludeChunkType: 'lore' })).toEqual(['a', 'b', 'c', 'd']);
      expect(await texts({ excludeChunkType: 'lore', offset: 1, limit: 2 })).toEqual(['b', 'c']);
      expect(await texts({ fromTurnId: 2, offset: 1 })).toEqual(['d']);
      expect(await store.listTurns('p')).toEqual([
        { turnId: 0, chunks: 1, chunkTypes: ['lore'] },
        { turnId: 1, chunks: 2, chunkTypes: ['dialogue', 'narrative'] },
        { turnId: 3, chunks: 1, chunkTypes: ['narrative'] },
        { turnId: 5, chunks: 1, chunkTypes: ['narrative'] },
      ]);
      expect((await store.listTurns('p', { excludeChunkType: 'lore', offset: 1, limit: 1 })).map((turn) => turn.turnId)).toEqual([3]);
      expect(await store.listTurns('nobody')).toEqual([]);
    });

    it('writes nothing when one chunk of a batch is invalid', async () => {
      await expect(memory.addMany([{ saveId: 's', turnId: 1, text: 'fine' }, { saveId: 's', turnId: 1, text: '   ' }])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(await memory.count('s')).toBe(0);
    });

    it('keeps meta values', async () => {
      expect(await store.getMeta('k')).toBeNull();
      await store.setMeta('k', 'v1');
      await store.setMeta('k', 'v2');
      expect(await store.getMeta('k')).toBe('v2');
    });

    if (factory.reopen !== undefined) {
      const reopen = factory.reopen;
      it('keeps everything across a reopen', async () => {
        const id = await memory.add({ saveId: 's', turnId: 1, text: 'Persisted words survive.', metadata: { n: 1 } });
        const again = open(await reopen(store));
        const [hit] = await again.query('s', 'persisted');
        expect(hit?.id).toBe(id);
        expect(hit?.metadata).toMatchObject({ n: 1 });
        memory = again;
      });
    }
  });
}
