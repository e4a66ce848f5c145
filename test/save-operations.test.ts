// The save-level owners (src/saves/): validate, run the store's transaction, then tell the index cache and the worker, in that order.
import { describe, expect, it } from 'vitest';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { NarrativeMemory } from '../src/narrative/narrative-memory.js';
import { deleteChunks } from '../src/saves/delete-chunks.js';
import { forkSave } from '../src/saves/fork-save.js';
import { rewindSave } from '../src/saves/rewind-save.js';
import type { SaveOperation } from '../src/saves/save-operation.js';

function recorded(narrative: NarrativeMemory): { operation: SaveOperation; told: string[] } {
  const told: string[] = [];
  const operation: SaveOperation = {
    store: narrative.store,
    indexes: {
      afterRewind: (saveId, turnId, result) => {
        told.push(`indexes.afterRewind ${saveId} ${turnId} ${result.count}`);
        narrative.afterRewind(saveId, turnId, result);
      },
      afterDeleteChunks: (saveId, ids, result) => {
        told.push(`indexes.afterDeleteChunks ${saveId} ${ids.length} ${result.count}`);
        narrative.afterDeleteChunks(saveId, ids, result);
      },
      forget: (saveId) => {
        told.push(`indexes.forget ${saveId}`);
        narrative.forget(saveId);
      },
    },
    worker: {
      afterRewind: (saveId, turnId) => told.push(`worker.afterRewind ${saveId} ${turnId}`),
      afterFork: (newSaveId) => told.push(`worker.afterFork ${newSaveId}`),
      afterImport: (saveId) => told.push(`worker.afterImport ${saveId}`),
      afterDelete: (saveId) => told.push(`worker.afterDelete ${saveId}`),
    },
  };
  return { operation, told };
}

describe('save-level operations', () => {
  it('rewind: the store transaction, then the index cache, then the worker; the next query sees the rewound save', async () => {
    const narrative = new NarrativeMemory({ store: openInMemoryStore() });
    await narrative.addMany([1, 2, 3].map((turnId) => ({ saveId: 's', turnId, text: `lantern number ${turnId}` })));
    expect(await narrative.query('s', 'lantern', { k: 5 })).toHaveLength(3);
    const { operation, told } = recorded(narrative);
    const counts = await rewindSave(operation, 's', 1);
    expect(counts.chunks).toBe(2);
    expect(told).toEqual(['indexes.afterRewind s 1 2', 'worker.afterRewind s 1']);
    expect((await narrative.query('s', 'lantern', { k: 5 })).map((hit) => hit.turnId)).toEqual([1]);
  });

  it('fork: the new save is searchable at once, even after an empty query of it was cached', async () => {
    const narrative = new NarrativeMemory({ store: openInMemoryStore() });
    await narrative.addMany([1, 2, 3].map((turnId) => ({ saveId: 's', turnId, text: `lantern number ${turnId}` })));
    expect(await narrative.query('branch', 'lantern')).toEqual([]);
    const { operation, told } = recorded(narrative);
    const counts = await forkSave(operation, 's', 'branch', 2);
    expect(counts.chunks).toBe(2);
    expect(told).toEqual(['indexes.forget branch', 'worker.afterFork branch']);
    expect((await narrative.query('branch', 'lantern', { k: 5 })).map((hit) => hit.turnId).sort()).toEqual([1, 2]);
  });

  it('delete of chunks: the store transaction, then the index cache; the next query no longer finds them', async () => {
    const narrative = new NarrativeMemory({ store: openInMemoryStore() });
    const ids = await narrative.addMany([1, 2, 3].map((turnId) => ({ saveId: 's', turnId, text: `lantern number ${turnId}` })));
    expect(await narrative.query('s', 'lantern', { k: 5 })).toHaveLength(3);
    const { operation, told } = recorded(narrative);
    expect(await deleteChunks({ store: narrative.store, indexes: operation.indexes }, { saveId: 's', ids: [ids[0] as string, 'unknown'] })).toEqual({ chunks: 1 });
    expect(told).toEqual(['indexes.afterDeleteChunks s 1 1']);
    expect(narrative.holdsIndex('s')).toBe(true);
    expect((await narrative.query('s', 'lantern', { k: 5 })).map((hit) => hit.turnId).sort()).toEqual([2, 3]);
  });

  it('a refused operation writes nothing and tells no one', async () => {
    const narrative = new NarrativeMemory({ store: openInMemoryStore() });
    await narrative.add({ saveId: 's', turnId: 1, text: 'a lantern' });
    const { operation, told } = recorded(narrative);
    await expect(rewindSave(operation, 's', -1)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(forkSave(operation, 's', 's', 1)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(forkSave(operation, 'nothing-here', 'x', 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const [id] = await narrative.listChunks('s').then((chunks) => chunks.map((chunk) => chunk.id));
    for (const input of [{ saveId: 's' }, { saveId: 's', ids: [id], entryId: 'e' }, { saveId: 's', ids: [] }, { saveId: 's', ids: [id, 7] }, { saveId: '', ids: [id] }, { saveId: 's', entryId: '' }]) {
      await expect(deleteChunks({ store: narrative.store, indexes: operation.indexes }, input as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    await expect(deleteChunks({ store: narrative.store, indexes: operation.indexes }, { saveId: 's', ids: Array.from({ length: 10_001 }, (_, n) => `id-${n}`) })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(told).toEqual([]);
    expect(await narrative.count('s')).toBe(1);
    expect(await narrative.count('x')).toBe(0);
  });
});
