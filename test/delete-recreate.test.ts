// A save deleted and written again under the same id: no process answers from the old save's index, in memory or persisted.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import type { Store } from '../src/seams/store.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';
import { postgresTargets } from './postgres-targets.js';

const dir = tempDir();

/** Writes `turns` turns of one chunk each (one version step a turn), their text from `words`. */
async function write(memory: Mnemo, saveId: string, words: string, turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await memory.add({ saveId, turnId: turn, text: `${words} at turn ${turn}.` });
}

const texts = async (memory: Mnemo, query: string) => (await memory.query('run', query, { k: 10 })).map((hit) => hit.text).sort();

/**
 * Two processes on one database (here two engines on one store's data, each with its own index cache): B holds the
 * old save's index in memory; A deletes the save and writes it again, as many writes as before. B must answer from
 * the new save.
 */
async function recreate(open: () => Promise<{ memory: Mnemo; store: Store }>): Promise<void> {
  const a = await open();
  const b = await open();
  try {
    await write(a.memory, 'run', 'The old lighthouse burns', 3);
    expect(await texts(b.memory, 'lighthouse burns')).toHaveLength(3);
    const before = await a.store.saveVersion('run');
    expect((await a.memory.deleteSave('run')).chunks).toBe(3);
    await write(a.memory, 'run', 'A new ferry sails', 3);
    // The version never comes back to a number it had, so B's cached index (at `before`) is never current again.
    expect(await a.store.saveVersion('run')).toBeGreaterThan(before);
    expect(await texts(b.memory, 'ferry sails')).toEqual(['A new ferry sails at turn 0.', 'A new ferry sails at turn 1.', 'A new ferry sails at turn 2.']);
    expect(await texts(b.memory, 'lighthouse burns old')).not.toContain('The old lighthouse burns at turn 0.');
    expect((await a.memory.listSaves()).map((save) => save.saveId)).toEqual(['run']);
    // Deleted again, the save is gone from the listing; an import takes its id, and B answers from the import.
    let file = '';
    for await (const piece of a.memory.exportSave('run')) file += piece;
    await a.memory.deleteSave('run');
    expect(await a.memory.listSaves()).toEqual([]);
    expect(await texts(b.memory, 'ferry sails')).toEqual([]);
    const renamed = file.replaceAll('A new ferry sails', 'An imported barge drifts');
    expect(await a.memory.importSave({ text: renamed })).toMatchObject({ saveId: 'run', chunks: 3 });
    expect(await texts(b.memory, 'imported barge drifts')).toEqual(['An imported barge drifts at turn 0.', 'An imported barge drifts at turn 1.', 'An imported barge drifts at turn 2.']);
    await expect(a.memory.importSave({ text: renamed })).rejects.toMatchObject({ code: 'CONFLICT' });
  } finally {
    await a.memory.close();
    await b.memory.close();
  }
}

describe('a save deleted and written again', () => {
  it('SQLite: another process never answers from the old save\'s index (in memory or persisted)', async () => {
    const path = join(dir, 'recreated.db');
    await recreate(async () => {
      const store = openSqliteStore({ path });
      return { store, memory: await openMemory({ store, embedder: hashingEmbedder({ dimensions: 32 }), logger: silentLogger }) };
    });
  });

  for (const target of postgresTargets()) {
    it.skipIf(target.skip !== null)(`PostgreSQL (${target.name}${target.skip === null ? '' : `, ${target.skip}`}): another process never answers from the old save's index`, async () => {
      const schema = target.newSchema();
      await recreate(async () => {
        const store = await target.open({ schema });
        return { store, memory: await openMemory({ store, embedder: hashingEmbedder({ dimensions: 32 }), logger: silentLogger, indexDirectory: join(dir, `pg-${target.name}`) }) };
      });
    }, 120_000);
  }
});
