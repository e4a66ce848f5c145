// SQLite rewind: the rewound facts are hidden in the rewind's transaction (fact_rewinds) and deleted by the purge.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { PURGE_BATCH } from '../src/stores/sqlite/rewound-rows.js';
import { rewoundInFile, tempDir } from './helpers.js';

const dir = tempDir();
const PER_TURN = 400;

const facts = (saveId: string, turnId: number, count = PER_TURN) =>
  Array.from({ length: count }, (_, index) => ({ statement: `${saveId} fact ${index} of turn ${turnId}.`, who: 'Kael', entities: ['Kael', `Place${turnId}`] }));

async function filled(path: string, turns: number): Promise<SqliteStore> {
  const store = openSqliteStore({ path, durability: 'normal' });
  for (let turnId = 1; turnId <= turns; turnId++) {
    await store.living.insertFacts('a', turnId, facts('a', turnId));
    await store.living.insertFacts('b', turnId, facts('b', turnId, 2));
  }
  return store;
}

/** Facts of save `a` after `turnId` still in the file (hidden ones too), and pending fact rewinds. */
const inFile = (path: string, turnId: number) => rewoundInFile(path, 'living_facts', 'fact_rewinds', turnId);

/** Every read of save `a`'s facts, as one value. */
async function seen(store: SqliteStore) {
  const all = await store.living.getFacts('a');
  const layer = await store.living.readSave('a');
  return {
    count: await store.living.countFacts('a'),
    turns: [...new Set(all.map((fact) => fact.turnId))].sort(),
    ofTurn5: (await store.living.getFacts('a', { turnId: 5 })).length,
    byEntity: (await store.living.getFacts('a', { entity: 'Place5' })).length,
    version: await store.living.factsVersion('a'),
    exported: layer.facts.length,
  };
}

describe('SQLite rewind of living facts with a background purge', () => {
  it('hides the rewound facts from every read at once, then deletes them in batches, resumed on the next open', async () => {
    const path = join(dir, 'facts.db');
    const store = await filled(path, 6);
    const lastOfTurn3 = Math.max(...(await store.living.getFacts('a', { turnId: 3 })).map((fact) => fact.factId as number));
    const { removed } = await store.rewind('a', 3);
    expect(removed.living.facts).toBe(3 * PER_TURN);
    expect(3 * PER_TURN).toBeGreaterThan(PURGE_BATCH);
    // Closed before the purge's first step (a timer): the rows are still in the file, hidden by the rewind's record.
    await store.close();
    expect(inFile(path, 3)).toEqual({ rows: 3 * PER_TURN, rewinds: 1 });
    const expected = { count: 3 * PER_TURN, turns: [1, 2, 3], ofTurn5: 0, byEntity: 0, version: { count: 3 * PER_TURN, lastFactId: lastOfTurn3 }, exported: 3 * PER_TURN };
    const reader = openSqliteStore({ path, readonly: true });
    expect(await seen(reader)).toEqual(expected);
    await reader.close();
    const writer = openSqliteStore({ path, durability: 'normal' });
    expect(await seen(writer)).toEqual(expected);
    await vi.waitFor(() => expect(inFile(path, 3)).toEqual({ rows: 0, rewinds: 0 }), { timeout: 30_000, interval: 20 });
    expect(await seen(writer)).toEqual(expected);
    expect(await writer.living.countFacts('b')).toBe(12);
    await writer.close();
  });

  it('keeps facts written after a rewind through later rewinds, forks and re-extractions, each seeing only what stands', async () => {
    const store = await filled(join(dir, 'layers.db'), 6);
    await store.rewind('a', 3);
    const newIds = await store.living.insertFacts('a', 5, facts('a', 5, 4));
    expect(await store.living.countFacts('a')).toBe(3 * PER_TURN + 4);
    expect((await store.living.getFacts('a', { turnId: 5 })).map((fact) => fact.factId)).toEqual([...newIds].reverse());
    // Re-extracting turn 5 replaces the four standing facts only (the hidden ones of the old turn 5 are not its).
    await store.living.replaceTurnFacts('a', 5, facts('a', 5, 2));
    expect(await store.living.countFacts('a')).toBe(3 * PER_TURN + 2);
    expect((await store.rewind('a', 4)).removed.living.facts).toBe(2);
    await store.living.insertFacts('a', 6, facts('a', 6, 5));
    const fork = await store.fork('a', 'a-copy', 9);
    expect(fork.living.facts).toBe(3 * PER_TURN + 5);
    expect(await store.living.countFacts('a-copy')).toBe(3 * PER_TURN + 5);
    expect((await store.rewind('a', 2)).removed.living.facts).toBe(PER_TURN + 5);
    expect([...new Set((await store.living.getFacts('a')).map((fact) => fact.turnId))].sort()).toEqual([1, 2]);
    await store.close();
  });

  it('deletes a save with its hidden facts and their rewind records in the delete', async () => {
    const path = join(dir, 'deleted.db');
    const store = await filled(path, 4);
    await store.rewind('a', 1);
    const deleted = await store.deleteSave('a');
    expect(deleted.living.facts).toBe(PER_TURN);
    expect(inFile(path, -1)).toEqual({ rows: 0, rewinds: 0 });
    expect(await store.living.countFacts('a')).toBe(0);
    expect(await store.living.countFacts('b')).toBe(8);
    await store.close();
  });

  it('migrates a file made before fact_rewinds (living-002), and opens one read-only', async () => {
    const path = join(dir, 'old-schema.db');
    const store = await filled(path, 4);
    await store.close();
    const raw = new Database(path);
    raw.exec("DROP TABLE fact_rewinds; DELETE FROM schema_migrations WHERE id = 'living-002'");
    raw.pragma(`user_version = ${(raw.pragma('user_version', { simple: true }) as number) - 1}`);
    raw.close();
    const reader = openSqliteStore({ path, readonly: true });
    expect(await reader.living.countFacts('a')).toBe(4 * PER_TURN);
    await reader.close();
    const writer = openSqliteStore({ path, durability: 'normal' });
    expect((await writer.rewind('a', 2)).removed.living.facts).toBe(2 * PER_TURN);
    expect(await writer.living.countFacts('a')).toBe(2 * PER_TURN);
    await vi.waitFor(() => expect(inFile(path, 2)).toEqual({ rows: 0, rewinds: 0 }), { timeout: 30_000, interval: 20 });
    await writer.close();
  });
});
