// SQLite specifics: WAL, schema version and migrations, refusing a newer schema, two handles on one file.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, openSqliteStore, SCHEMA_VERSION } from '../src/stores/sqlite/index.js';
import { openMemory } from '../src/open-memory.js';
import { silentLogger } from '../src/core/logger.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

describe('SQLite store', () => {
  it('creates the file in WAL mode at the current schema version', async () => {
    const path = join(dir, 'fresh.db');
    const store = openSqliteStore({ path });
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(store.database.pragma('busy_timeout', { simple: true })).toBe(5000);
    await store.close();
  });

  it('refuses a database written by a newer Mnemo, naming both versions', async () => {
    const path = join(dir, 'newer.db');
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    expect(() => openSqliteStore({ path })).toThrow(expect.objectContaining({ code: 'SCHEMA_TOO_NEW', message: expect.stringContaining(`version ${SCHEMA_VERSION + 5}`) }));
  });

  it('reports an unopenable path clearly', () => {
    expect(() => openSqliteStore({ path: join(dir, 'missing-folder', 'x.db') })).toThrow(expect.objectContaining({ code: 'STORE_FAILURE', message: expect.stringContaining('Could not open the SQLite database') }));
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

describe('SQLite migrations', () => {
  it('records every migration by id and applies none twice', async () => {
    const path = join(dir, 'migrated.db');
    const first = openSqliteStore({ path });
    const ids = (first.database.prepare('SELECT id FROM schema_migrations ORDER BY rowid').all() as { id: string }[]).map((row) => row.id);
    expect(ids).toEqual(MIGRATIONS.map((migration) => migration.id));
    await first.close();
    const second = openSqliteStore({ path });
    expect((second.database.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(MIGRATIONS.length);
    await second.close();
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
