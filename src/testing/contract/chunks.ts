// The chunks part of the store contract, written once: add, update a turn, filter, rank, list, validate, reopen.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../seams/store.js';
import { contractMemory, useContractStore } from './store-factory.js';
import type { StoreFactory } from './store-factory.js';

/**
 * Runs what every store adapter must do with chunks, through the narrative memory that uses it: adds, turn
 * updates, filters before ranking, core metadata keys, deterministic order, listings, refusals, and a reopen when
 * the factory can.
 *
 * @example
 * ```ts
 * runChunksContract('sqlite', { create: async () => openSqliteStore({ path: tempFile() }) });
 * ```
 */
export function runChunksContract(name: string, factory: StoreFactory): void {
  describe(`chunks contract: ${name}`, () => {
    const current = useContractStore(factory);

    it('adds a chunk and returns a UUID, with the defaults filled in', async () => {
      const id = await current.memory.add({ saveId: 'a', turnId: 1, text: 'The lantern flickers.' });
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const [chunk] = await current.store.getChunks([id]);
      expect(chunk).toMatchObject({ id, saveId: 'a', turnId: 1, chunkType: 'narrative', text: 'The lantern flickers.', entryId: null });
      expect(await current.memory.count('a')).toBe(1);
      expect((await current.store.getChunks([id], 'a')).map((found) => found.id)).toEqual([id]);
      expect(await current.store.getChunks([id], 'b')).toEqual([]);
    });

    it('keeps saves apart: counts, queries and rewinds of one never touch another', async () => {
      await current.memory.add({ saveId: 'a', turnId: 1, text: 'The dragon sleeps under the mountain.' });
      await current.memory.add({ saveId: 'b', turnId: 1, text: 'The dragon wakes and burns the village.' });
      await current.memory.add({ saveId: 'b', turnId: 5, text: 'A dragon egg hatches.' });
      const hits = await current.memory.query('a', 'dragon', { k: 10 });
      expect(hits.map((hit) => hit.saveId)).toEqual(['a']);
      expect(await current.memory.rewind('a', 0)).toBe(1);
      expect(await current.memory.count('a')).toBe(0);
      expect(await current.memory.count('b')).toBe(2);
    });

    it('updateTurn replaces a turn of one chunk type and leaves the others', async () => {
      await current.memory.add({ saveId: 's', turnId: 3, text: 'The bridge stands.' });
      await current.memory.add({ saveId: 's', turnId: 3, text: 'Old lore of bridges.', chunkType: 'lore' });
      await current.memory.add({ saveId: 's', turnId: 4, text: 'The bridge is crossed.' });
      const [replacement] = await current.memory.updateTurn({ saveId: 's', turnId: 3, text: 'The bridge collapses into the gorge.' });
      const hits = await current.memory.query('s', 'bridge', { k: 10, includeLore: true });
      expect(hits.map((hit) => hit.text).sort()).toEqual(['Old lore of bridges.', 'The bridge collapses into the gorge.', 'The bridge is crossed.'].sort());
      expect(hits.find((hit) => hit.text.includes('collapses'))?.id).toBe(replacement);
      expect(await current.memory.count('s')).toBe(3);
    });

    it('applies filters before ranking: the k best matches all filtered out, the permitted ones still fill k', async () => {
      for (let turn = 1; turn <= 20; turn++) await current.memory.add({ saveId: 's', turnId: turn, text: 'obsidian obsidian obsidian tower of obsidian' });
      for (let turn = 1; turn <= 5; turn++) await current.memory.add({ saveId: 's', turnId: turn, text: `a single obsidian shard among many other ordinary words number ${turn}`, chunkType: 'dialogue' });
      const byType = await current.memory.query('s', 'obsidian', { k: 5, chunkType: 'dialogue', capPerSource: 5 });
      expect(byType).toHaveLength(5);
      expect(byType.every((hit) => hit.chunkType === 'dialogue')).toBe(true);
      const excluded = await current.memory.query('s', 'obsidian', { k: 5, excludeChunkType: 'narrative', capPerSource: 5 });
      expect(excluded.every((hit) => hit.chunkType === 'dialogue')).toBe(true);
      expect(excluded).toHaveLength(5);
      const window = await current.memory.query('s', 'obsidian', { k: 5, maxTurnId: 2, capPerSource: 5 });
      expect(window).toHaveLength(4);
      expect(window.every((hit) => hit.turnId <= 2)).toBe(true);
      const present = await current.memory.query('s', 'obsidian', { k: 50, maxTurnId: 10, currentTurnId: 3 });
      expect(Math.max(...present.map((hit) => hit.turnId))).toBe(3);
    });

    it('filters by metadata before ranking in every arm: equality, one of, exists and missing, AND; the starving case fills k', async () => {
      const { memory } = current;
      // The best matches (many "obsidian") are Marta's; the permitted ones (Rowan's) mention it once each.
      for (let turn = 1; turn <= 20; turn++) await memory.add({ saveId: 's', turnId: turn, text: 'obsidian obsidian obsidian tower of obsidian', metadata: { speaker: 'Marta', quest: 'salt' } });
      for (let turn = 1; turn <= 6; turn++) await memory.add({ saveId: 's', turnId: turn, text: `a single obsidian shard among many other ordinary words number ${turn}`, metadata: { speaker: 'Rowan', level: turn, ...(turn % 2 === 0 ? { quest: 'ferry' } : {}) } });
      await memory.add({ saveId: 's', turnId: 7, text: 'obsidian with a string level', metadata: { level: '1', tags: ['a'] } });
      const texts = async (where: object, options = {}) => (await memory.query('s', 'obsidian', { k: 5, capPerSource: 5, where, ...options } as never)).map((hit) => `${String(hit.metadata['speaker'])}:${hit.turnId}`);
      for (const weights of [undefined, { lexical: 0 }, { semantic: 0 }]) {
        const rowan = await texts({ speaker: 'Rowan' }, { weights });
        expect(rowan, JSON.stringify(weights)).toHaveLength(5);
        expect(rowan.every((hit) => hit.startsWith('Rowan:'))).toBe(true);
        // One arm alone (no window sum, no feedback, which read the permitted neighbours and top hits): the filtered
        // order is the unfiltered one, restricted.
        if (weights !== undefined) {
          const single = { weights, windowSum: null, feedback: null };
          const all = (await memory.query('s', 'obsidian', { k: 100, capPerSource: 0, ...single })).map((hit) => `${String(hit.metadata['speaker'])}:${hit.turnId}`);
          expect(await texts({ speaker: 'Rowan' }, single)).toEqual(all.filter((hit) => hit.startsWith('Rowan:')).slice(0, 5));
        }
      }
      expect(await texts({ speaker: 'Rowan' }, { k: 10 })).toHaveLength(6);
      expect((await texts({ speaker: { in: ['Rowan', 'Nobody'] }, quest: 'ferry' }, { k: 10 })).sort()).toEqual(['Rowan:2', 'Rowan:4', 'Rowan:6']);
      expect((await texts({ speaker: 'Rowan', quest: { exists: false } }, { k: 10 })).sort()).toEqual(['Rowan:1', 'Rowan:3', 'Rowan:5']);
      expect(await texts({ quest: { exists: true }, speaker: { exists: false } })).toEqual([]);
      expect(await texts({ level: 1 }, { k: 10 })).toEqual(['Rowan:1']);
      expect(await texts({ level: '1' }, { k: 10 })).toEqual(['undefined:7']);
      expect(await texts({ tags: { exists: true } }, { k: 10 })).toEqual(['undefined:7']);
      expect(await texts({ speaker: 'Nobody' })).toEqual([]);
      expect(await texts({ unheardOf: { exists: false } }, { k: 100, capPerSource: 0 })).toHaveLength(27);
      expect(await texts({ speaker: 'Rowan' }, { k: 10, maxTurnId: 3 })).toHaveLength(3);
      await expect(memory.query('s', 'obsidian', { where: { speaker: ['Rowan'] } } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(memory.query('s', 'obsidian', { where: { speaker: { in: [] } } } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(memory.query('s', 'obsidian', { where: { speaker: { exists: 'yes' } } } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(memory.query('s', 'obsidian', { where: Object.fromEntries(Array.from({ length: 17 }, (_, n) => [`k${n}`, 1])) })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
      // A key an object copy would drop (so the filter would filter nothing) is refused by name.
      await expect(memory.query('s', 'obsidian', { where: JSON.parse('{"__proto__":"Rowan"}') as never })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('__proto__') });
    });

    it('lets the core keys win over extra metadata, and keeps entryId', async () => {
      const id = await current.memory.add({
        saveId: 's',
        turnId: 2,
        text: 'A note.',
        chunkType: 'note',
        metadata: { saveId: 'other', turnId: 99, chunkType: 'fake', mood: 'grim', entryId: 'entry-7' },
      });
      const [chunk] = await current.store.getChunks([id]);
      expect(chunk?.metadata).toEqual({ saveId: 's', turnId: 2, chunkType: 'note', mood: 'grim', entryId: 'entry-7' });
      expect(chunk?.entryId).toBe('entry-7');
      const [hit] = await current.memory.query('s', 'note');
      expect(hit?.entryId).toBe('entry-7');
    });

    it('is deterministic: the same query twice gives the same order, ties in insertion order', async () => {
      for (let index = 0; index < 30; index++) await current.memory.add({ saveId: 's', turnId: index, text: `identical words about the harbour ${index % 3 === 0 ? '' : 'and boats'}` });
      const first = await current.memory.query('s', 'harbour boats', { k: 20 });
      const second = await current.memory.query('s', 'harbour boats', { k: 20 });
      expect(second.map((hit) => hit.id)).toEqual(first.map((hit) => hit.id));
      // Identical texts tie exactly in the lexical arm (neighbour context makes their vectors differ, the window sum their windows).
      const lexical = await current.memory.query('s', 'harbour boats', { k: 20, weights: { semantic: 0 }, windowSum: null });
      const equal = lexical.filter((hit) => hit.text.endsWith('boats'));
      const turns = equal.map((hit) => hit.turnId);
      expect(turns).toEqual([...turns].sort((a, b) => a - b));
    });

    it('lists chunks and turns in order, a page at a time, leaving out a type when asked', async () => {
      await current.memory.addMany([
        { saveId: 'p', turnId: 0, text: 'lore of the well', chunkType: 'lore' },
        { saveId: 'p', turnId: 3, text: 'c' },
        { saveId: 'p', turnId: 1, text: 'a' },
        { saveId: 'p', turnId: 1, text: 'b', chunkType: 'dialogue' },
        { saveId: 'p', turnId: 5, text: 'd' },
      ]);
      const texts = async (options: Parameters<Store['listChunks']>[1]) => (await current.store.listChunks('p', options)).map((chunk) => chunk.text);
      expect(await texts({})).toEqual(['lore of the well', 'a', 'b', 'c', 'd']);
      expect(await texts({ excludeChunkType: 'lore' })).toEqual(['a', 'b', 'c', 'd']);
      expect(await texts({ excludeChunkType: 'lore', offset: 1, limit: 2 })).toEqual(['b', 'c']);
      expect(await texts({ fromTurnId: 2, offset: 1 })).toEqual(['d']);
      expect(await current.store.listTurns('p')).toEqual([
        { turnId: 0, chunks: 1, chunkTypes: ['lore'] },
        { turnId: 1, chunks: 2, chunkTypes: ['dialogue', 'narrative'] },
        { turnId: 3, chunks: 1, chunkTypes: ['narrative'] },
        { turnId: 5, chunks: 1, chunkTypes: ['narrative'] },
      ]);
      expect((await current.store.listTurns('p', { excludeChunkType: 'lore', offset: 1, limit: 1 })).map((turn) => turn.turnId)).toEqual([3]);
      expect(await current.store.listTurns('nobody')).toEqual([]);
    });

    it('ends a page with the chunk that brings its texts to maxTextBytes (UTF-8), after the offset, at least one chunk', async () => {
      // 'é' is two bytes: texts of 4, 6 (3 x é), 2, 5 and 1 bytes.
      await current.memory.addMany(['abcd', 'ééé', 'ef', 'ghijk', 'l'].map((text, index) => ({ saveId: 'b', turnId: index + 1, text })));
      const texts = async (options: Parameters<Store['listChunks']>[1]) => (await current.store.listChunks('b', options)).map((chunk) => chunk.text);
      expect(await texts({ maxTextBytes: 10 })).toEqual(['abcd', 'ééé']);
      expect(await texts({ maxTextBytes: 11 })).toEqual(['abcd', 'ééé', 'ef']);
      expect(await texts({ maxTextBytes: 1 })).toEqual(['abcd']);
      expect(await texts({ offset: 2, maxTextBytes: 7 })).toEqual(['ef', 'ghijk']);
      expect(await texts({ offset: 1, limit: 2, maxTextBytes: 1000 })).toEqual(['ééé', 'ef']);
      expect(await texts({ fromTurnId: 4, maxTextBytes: 1000 })).toEqual(['ghijk', 'l']);
      expect(await texts({ offset: 9, maxTextBytes: 10 })).toEqual([]);
      // Rewound chunks neither count nor show.
      expect(await current.memory.rewind('b', 1)).toBe(4);
      expect(await texts({ maxTextBytes: 1000 })).toEqual(['abcd']);
    });

    it('refuses listing options out of range with INVALID_INPUT saying what was expected, what came and how to fix it', async () => {
      await current.memory.addMany(['abcd', 'efgh'].map((text, index) => ({ saveId: 'v', turnId: index + 1, text })));
      const refusals: [Record<string, unknown>, string][] = [
        [{ limit: 0 }, 'limit'],
        [{ limit: -1 }, 'limit'],
        [{ limit: 1.5 }, 'limit'],
        [{ limit: '10' }, 'limit'],
        [{ offset: -1 }, 'offset'],
        [{ offset: Number.NaN }, 'offset'],
        [{ maxTextBytes: 0 }, 'maxTextBytes'],
        [{ maxTextBytes: -5 }, 'maxTextBytes'],
        [{ maxTextBytes: Infinity }, 'maxTextBytes'],
        [{ fromTurnId: -1 }, 'fromTurnId'],
        [{ toTurnId: 'x' }, 'toTurnId'],
        [{ excludeChunkType: '' }, 'excludeChunkType'],
      ];
      for (const [options, field] of refusals) {
        for (const list of [() => current.store.listChunks('v', options), () => current.store.listTurns('v', options)]) {
          const error = await list().then(() => null, (caught: unknown) => caught as { code: string; message: string; details: Record<string, unknown> });
          expect(error, JSON.stringify(options)).toMatchObject({ code: 'INVALID_INPUT', details: { field } });
          expect(error?.message).toMatch(new RegExp(`^${field}: expected .+, got .+\\. .+`));
        }
      }
      expect((await current.store.listChunks('v', { limit: 1, maxTextBytes: 1 })).map((chunk) => chunk.text)).toEqual(['abcd']);
    });

    it('writes nothing when one chunk of a batch is invalid', async () => {
      await expect(current.memory.addMany([{ saveId: 's', turnId: 1, text: 'fine' }, { saveId: 's', turnId: 1, text: '   ' }])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(await current.memory.count('s')).toBe(0);
    });

    if (factory.reopen !== undefined) {
      const reopen = factory.reopen;
      it('keeps everything across a reopen', async () => {
        const id = await current.memory.add({ saveId: 's', turnId: 1, text: 'Persisted words survive.', metadata: { n: 1 } });
        const again = contractMemory(await reopen(current.store));
        const [hit] = await again.query('s', 'persisted');
        expect(hit?.id).toBe(id);
        expect(hit?.metadata).toMatchObject({ n: 1 });
        current.memory = again;
      });
    }
  });
}
