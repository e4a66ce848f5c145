// The saves part of the store contract, written once: rewind, delete (of a save, of chunks), versions seen by another handle, the list of saves, meta.
import { describe, expect, it } from 'vitest';
import { contractMemory, useContractStore } from './store-factory.js';
import type { StoreFactory } from './store-factory.js';

/**
 * Runs what every store adapter must do with saves: exact rewinds, deleting a save (every layer, no other),
 * versions that keep another handle's index in step, the list of saves with counts, and meta values.
 *
 * @example
 * ```ts
 * runSavesContract('sqlite', { create: async () => openSqliteStore({ path: tempFile() }) });
 * ```
 */
export function runSavesContract(name: string, factory: StoreFactory): void {
  describe(`saves contract: ${name}`, () => {
    const current = useContractStore(factory);

    it('rewinds exactly: every chunk after N goes, every chunk at or before N stays, and none surfaces again', async () => {
      for (let turn = 0; turn <= 10; turn++) {
        await current.memory.addMany([
          { saveId: 's', turnId: turn, text: `Turn ${turn}: the caravan reaches waypoint ${turn}.` },
          { saveId: 's', turnId: turn, text: `Turn ${turn}: the guard counts coin number ${turn}.`, chunkType: 'dialogue' },
        ]);
      }
      expect(await current.memory.rewind('s', 6)).toBe(8);
      expect(await current.memory.count('s')).toBe(14);
      const hits = await current.memory.query('s', 'caravan waypoint guard coin', { k: 100 });
      expect(hits).toHaveLength(14);
      expect(Math.max(...hits.map((hit) => hit.turnId))).toBe(6);
      expect(await current.memory.rewind('s', 6)).toBe(0);
      expect(await current.memory.rewind('never-written', 3)).toBe(0);
    });

    it('deletes a save, every layer, and no other: counts returned, an unknown save is zeros, the id is free again', async () => {
      const { memory, store } = current;
      await memory.add({ saveId: 'a', turnId: 1, text: 'The dragon sleeps under the mountain.' });
      await memory.lore.syncToSave('a', [{ entryId: 'e-1', text: 'Dragons hoard salt.', metadata: {} }]);
      await memory.add({ saveId: 'b', turnId: 1, text: 'The dragon wakes and burns the village.' });
      const [fact] = await store.living.insertFacts('a', 1, [{ statement: 'A dragon sleeps.' }]);
      await store.living.applyConsolidation('a', 1, [{ kind: 'CREATE', statement: 'Dragons sleep long.', subject: 'dragon', beliefId: null, sourceFactIds: [fact as number] }], new Map([[fact as number, 1]]));
      const [belief] = await store.living.getBeliefs('a');
      await store.living.upsertModel('a', 'dragon', 'A sleeping dragon.', 1, [belief?.beliefId as number]);
      await store.living.enqueueTurn('a', 1, { text: 'turn 1' }, 0);
      expect((await memory.query('a', 'dragon', { k: 5 })).length).toBe(1);
      const before = await store.saveVersion('a');

      expect(await memory.deleteSave('a')).toEqual({ chunks: 2, living: { facts: 1, beliefs: 1, models: 1, jobs: 1 } });
      expect(await memory.count('a')).toBe(0);
      expect(await memory.query('a', 'dragon', { k: 5, includeLore: true })).toEqual([]);
      // A tombstone one version on: the save written again never has a version it had (no old index is current).
      expect(await store.saveVersion('a')).toBe(before + 1);
      expect((await store.living.getFacts('a')).length + (await store.living.getBeliefs('a', { includeDeleted: true })).length + (await store.living.getModels('a')).length).toBe(0);
      expect(await store.living.listJobs({ saveId: 'a' })).toEqual([]);
      expect((await memory.listSaves()).map((save) => save.saveId)).toEqual(['b']);
      expect((await memory.query('b', 'dragon', { k: 5 })).map((hit) => hit.saveId)).toEqual(['b']);
      expect(await memory.deleteSave('a')).toEqual({ chunks: 0, living: { facts: 0, beliefs: 0, models: 0, jobs: 0 } });
      expect(await memory.deleteSave('nobody')).toEqual({ chunks: 0, living: { facts: 0, beliefs: 0, models: 0, jobs: 0 } });
      expect(await store.saveVersion('a')).toBe(before + 1);
      await memory.add({ saveId: 'a', turnId: 1, text: 'A new dragon egg.' });
      expect(await store.saveVersion('a')).toBe(before + 2);
      expect((await memory.query('a', 'dragon', { k: 5 })).map((hit) => hit.text)).toEqual(['A new dragon egg.']);
      expect((await memory.listSaves()).map((save) => save.saveId)).toEqual(['a', 'b']);
      expect(await memory.fork('b', 'a-branch', 1)).toMatchObject({ chunks: 1 });
      await memory.deleteSave('a-branch');
      expect(await memory.fork('b', 'a-branch', 1)).toMatchObject({ chunks: 1 });
      expect((await memory.query('a-branch', 'dragon', { k: 5 })).map((hit) => hit.text)).toEqual(['The dragon wakes and burns the village.']);
    });

    it('deletes chunks by id or by entry, with their vectors and index entries, in this save only (facts stay); counts returned', async () => {
      const { memory, store } = current;
      const [kept, byId, lore] = await memory.addMany([
        { saveId: 'a', turnId: 1, text: 'The dragon sleeps under the mountain.' },
        { saveId: 'a', turnId: 1, text: 'The dragon dreams of gold.' },
        { saveId: 'a', turnId: 0, text: 'Dragons are older than the mountains.', chunkType: 'lore' },
      ]);
      await memory.addMany([2, 3].map((turnId) => ({ saveId: 'a', turnId, text: `The dragon keeps a ledger, page ${turnId}.`, entryId: 'ledger' })));
      const [otherSave] = await memory.addMany([{ saveId: 'b', turnId: 1, text: 'The dragon ledger of b.', entryId: 'ledger' }]);
      const ids = async (saveId: string, options = {}) => (await memory.query(saveId, 'dragon ledger gold', { k: 10, includeLore: true, ...options })).map((hit) => hit.id);
      expect(await ids('a')).toHaveLength(5);
      await store.living.insertFacts('a', 2, [{ statement: 'The dragon keeps a ledger.' }]);
      const version = await store.saveVersion('a');

      expect(await memory.deleteChunks({ saveId: 'a', ids: [byId as string, otherSave as string, 'no-such-chunk', byId as string] })).toEqual({ chunks: 1 });
      expect(await memory.deleteChunks({ saveId: 'a', entryId: 'ledger' })).toEqual({ chunks: 2 });
      expect(await memory.deleteChunks({ saveId: 'a', ids: [lore as string] }, { excludeChunkType: 'lore' })).toEqual({ chunks: 0 });
      expect(await store.saveVersion('a')).toBe(version + 2);
      expect(await memory.deleteChunks({ saveId: 'a', ids: ['no-such-chunk'] })).toEqual({ chunks: 0 });
      expect(await memory.deleteChunks({ saveId: 'nobody', entryId: 'ledger' })).toEqual({ chunks: 0 });
      expect(await store.saveVersion('a')).toBe(version + 2);

      expect(await memory.count('a')).toBe(2);
      // Living memory stays: facts cite turns, not chunks.
      expect((await store.living.getFacts('a')).map((fact) => fact.statement)).toEqual(['The dragon keeps a ledger.']);
      expect(await store.getChunks([byId as string])).toEqual([]);
      expect((await store.pageChunks('a', { limit: 10 })).chunks.map((chunk) => [chunk.id, chunk.embedding !== null])).toEqual([[kept, true], [lore, true]]);
      for (const weights of [undefined, { lexical: 0 }, { semantic: 0 }]) expect((await ids('a', { weights })).sort()).toEqual([kept, lore].sort());
      expect(await ids('b')).toEqual([otherSave]);
      // Another handle on the same store (another process's index) sees the same.
      const other = contractMemory(store);
      expect((await other.query('a', 'dragon ledger gold', { k: 10, includeLore: true })).map((hit) => hit.id).sort()).toEqual([kept, lore].sort());

      await expect(memory.deleteChunks({ saveId: 'a', ids: [] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(memory.deleteChunks({ saveId: 'a', ids: [kept as string], entryId: 'x' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(await store.saveVersion('a')).toBe(version + 2);
      expect(await memory.count('a')).toBe(2);
    });

    it('stays consistent with writes made by another handle on the same store', async () => {
      await current.memory.add({ saveId: 's', turnId: 1, text: 'The first omen: a red moon.' });
      expect(await current.memory.query('s', 'omen')).toHaveLength(1);
      const other = contractMemory(current.store);
      await other.add({ saveId: 's', turnId: 2, text: 'The second omen: a silent bell.' });
      expect(await current.memory.query('s', 'omen', { k: 5 })).toHaveLength(2);
      await other.rewind('s', 1);
      expect((await current.memory.query('s', 'omen', { k: 5 })).map((hit) => hit.turnId)).toEqual([1]);
    });

    it('lists saves with their counts and turn range', async () => {
      await current.memory.addMany([{ saveId: 'x', turnId: 2, text: 'one' }, { saveId: 'x', turnId: 7, text: 'two' }]);
      const saves = await current.store.listSaves();
      expect(saves.find((save) => save.saveId === 'x')).toMatchObject({ chunks: 2, turns: 2, minTurnId: 2, maxTurnId: 7 });
    });

    it('keeps meta values', async () => {
      expect(await current.store.getMeta('k')).toBeNull();
      await current.store.setMeta('k', 'v1');
      await current.store.setMeta('k', 'v2');
      expect(await current.store.getMeta('k')).toBe('v2');
    });
  });
}
