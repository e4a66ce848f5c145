// SQLite specifics: WAL, schema version and migrations, refusing a newer schema, two handles on one file.
import { LOCK_ATTEMPT_MS } from '../src/stores/sqlite/open-database.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, openSqliteStore, SCHEMA_VERSION } from '../src/stores/sqlite/index.js';
import { openMemory } from '../src/open-memory.js';
import { silentLogger } from '../src/core/logger.js';
import { blobAsVector, blobToVector } from '../src/stores/sqlite/vectors.js';
import type { IndexRow } from '../src/seams/store.js';
import { tempDir } from './helpers.js';
import { sqliteConnectionOf } from '../src/stores/sqlite/sqlite-connection.js';

const dir = tempDir();

describe('SQLite store', () => {
  it('creates the file in WAL mode at the current schema version', async () => {
    const path = join(dir, 'fresh.db');
    const store = openSqliteStore({ path });
    expect(sqliteConnectionOf(store).database().pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqliteConnectionOf(store).database().pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    // Each lock attempt holds the event loop at most LOCK_ATTEMPT_MS; longer waits are timers (see store-busy.test.ts).
    expect(sqliteConnectionOf(store).database().pragma('busy_timeout', { simple: true })).toBe(LOCK_ATTEMPT_MS);
    await store.close();
  });

  it('makes new files with 16 KiB pages, and keeps the page size of an existing file', async () => {
    const fresh = openSqliteStore({ path: join(dir, 'pages-new.db') });
    expect(sqliteConnectionOf(fresh).database().pragma('page_size', { simple: true })).toBe(16384);
    await fresh.close();

    const path = join(dir, 'pages-old.db');
    const raw = new Database(path);
    raw.pragma('page_size = 4096');
    raw.exec('CREATE TABLE keep (x INTEGER)');
    raw.close();
    const old = await openMemory({ path, logger: silentLogger });
    await old.add({ saveId: 's', turnId: 1, text: 'the ferry leaves at dawn' });
    expect((await old.query('s', 'ferry')).map((hit) => hit.turnId)).toEqual([1]);
    await old.close();
    const reopened = new Database(path, { readonly: true });
    expect(reopened.pragma('page_size', { simple: true })).toBe(4096);
    reopened.close();
  });

  it('refuses a database written by a newer Mnemo, naming both versions', async () => {
    const path = join(dir, 'newer.db');
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    expect(() => openSqliteStore({ path })).toThrow(expect.objectContaining({ code: 'SCHEMA_TOO_NEW', message: expect.stringContaining(`version ${SCHEMA_VERSION + 5}`) }));
  });

  it('reports an unopenable path clearly', () => {
    // A folder that does not exist is the caller's mistake (exit 2), not Mnemo's.
    expect(() => openSqliteStore({ path: join(dir, 'missing-folder', 'x.db') })).toThrow(expect.objectContaining({ code: 'NOT_A_DATABASE', category: 'USER', message: expect.stringContaining('does not exist') }));
  });

  it('sees writes of a second connection to the same file', async () => {
    const path = join(dir, 'shared.db');
    const first = await openMemory({ path, logger: silentLogger });
    const second = await openMemory({ path, logger: silentLogger });
    await first.add({ saveId: 's', turnId: 1, text: 'a lantern in the fog' });
    expect(await first.query('s', 'lantern')).toHaveLength(1);
    await second.add({ saveId: 's', turnId: 2, text: 'another lantern on the pier' });
    expect(await first.query('s', 'lantern', { k: 5 })).toHaveLength(2);
    await second.rewind('s', 0);
    expect(await first.query('s', 'lantern', { k: 5 })).toHaveLength(0);
    await first.close();
    await second.close();
  });
});

describe('SQLite chunk scan', () => {
  const chunk = (saveId: string, index: number) => ({
    id: `${saveId}-${index}`,
    saveId,
    turnId: 100 - index,
    chunkType: 'narrative',
    text: `${saveId} chunk ${index}`,
    entryId: null,
    metadata: {},
    createdAt: 0,
    embedding: index % 3 === 0 ? null : new Float32Array([index, -index, 0.5]),
  });
  const scan = async (store: Awaited<ReturnType<typeof openSqliteStore>>, saveId: string) => {
    const rows: IndexRow[] = [];
    await store.scanChunks(saveId, (row) => rows.push(row));
    return rows.map((row) => ({ id: row.id, turnId: row.turnId, text: row.text, embedding: row.embedding === null ? null : [...row.embedding] }));
  };

  it('reads a save in insertion order whether it fills its range or is interleaved with others', async () => {
    const store = await openSqliteStore({ path: join(tempDir(), 'scan.db') });
    // "alone" is written in one piece (its rows fill their seq range: walked in seq order); "odd" and "even"
    // alternate, with a few of "odd" written far apart (under half of its range: read through the index).
    await store.insertChunks(Array.from({ length: 40 }, (_, index) => chunk('alone', index)));
    for (let index = 0; index < 30; index++) {
      await store.insertChunks([chunk('odd', index)]);
      await store.insertChunks([chunk('even', index)]);
    }
    await store.insertChunks(Array.from({ length: 50 }, (_, index) => chunk('filler', index)));
    await store.insertChunks([chunk('odd', 30), chunk('odd', 31)]);
    for (const [saveId, count] of [['alone', 40], ['even', 30], ['odd', 32]] as const) {
      const expected = Array.from({ length: count }, (_, index) => chunk(saveId, index)).map((row) => ({ id: row.id, turnId: row.turnId, text: row.text, embedding: row.embedding === null ? null : [...row.embedding] }));
      expect(await scan(store, saveId)).toEqual(expected);
    }
    expect(await scan(store, 'missing')).toEqual([]);
    await store.close();
  });

  it('views a blob it owns whole and copies any other', () => {
    const owned = Buffer.from(new Float32Array([1, 2, 3]).buffer);
    const view = blobAsVector(owned) as Float32Array;
    expect([...view]).toEqual([1, 2, 3]);
    expect(view.buffer).toBe(owned.buffer);
    const shared = new Uint8Array(20);
    shared.set(new Uint8Array(new Float32Array([4, 5]).buffer), 4);
    const slice = shared.subarray(4, 12);
    const copy = blobAsVector(slice) as Float32Array;
    expect([...copy]).toEqual([4, 5]);
    expect(copy.buffer).not.toBe(shared.buffer);
    const unaligned = new Uint8Array(9).subarray(1);
    expect(blobAsVector(unaligned)?.buffer).not.toBe(unaligned.buffer);
    expect(blobAsVector(null)).toBeNull();
    expect(blobAsVector(Buffer.alloc(0))).toBeNull();
    expect(blobToVector(owned)?.buffer).not.toBe(owned.buffer);
  });
});

describe('SQLite migrations', () => {
  it('records every migration by id and applies none twice', async () => {
    const path = join(dir, 'migrated.db');
    const first = openSqliteStore({ path });
    const ids = (sqliteConnectionOf(first).database().prepare('SELECT id FROM schema_migrations ORDER BY rowid').all() as { id: string }[]).map((row) => row.id);
    expect(ids).toEqual(MIGRATIONS.map((migration) => migration.id));
    await first.close();
    const second = openSqliteStore({ path });
    expect((sqliteConnectionOf(second).database().prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(MIGRATIONS.length);
    await second.close();
  });

  it('gives lore entries written before lore-003 empty metadata', async () => {
    const path = join(dir, 'lore-before-metadata.db');
    const first = await openMemory({ path, logger: silentLogger, embedder: null });
    await first.lore.importEntries([{ source: 's', title: 'Old', content: 'An entry from before metadata.', scopeLevel: 'continental', scopeTags: [] }]);
    await first.close();
    const raw = new Database(path);
    raw.exec("ALTER TABLE lore_entries DROP COLUMN metadata; DELETE FROM schema_migrations WHERE id = 'lore-003'");
    raw.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    raw.close();
    const again = await openMemory({ path, logger: silentLogger, embedder: null });
    expect((await again.lore.list()).map((entry) => entry.metadata)).toEqual([{}]);
    await again.close();
  });

  it('refuses a database holding a migration this build does not know', () => {
    const path = join(dir, 'unknown-migration.db');
    openSqliteStore({ path }).close();
    const raw = new Database(path);
    raw.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, 0)').run('future-999');
    raw.close();
    expect(() => openSqliteStore({ path })).toThrow(expect.objectContaining({ code: 'SCHEMA_TOO_NEW', message: expect.stringContaining('future-999') }));
  });
});
