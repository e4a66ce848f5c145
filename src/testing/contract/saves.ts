// The saves part of the store contract, written once: rewind, delete, versions seen by another handle, the list of saves, meta.
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
