// sqliteAddonPath: better-sqlite3's compiled addon found in its package, so opening a database loads it without better-sqlite3's own search.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, sqliteAddonPath } from '../src/stores/sqlite/open-database.js';

describe('sqliteAddonPath', () => {
  it('finds the addon better-sqlite3 built or downloaded, which opens a database', () => {
    const path = sqliteAddonPath();
    expect(path).toMatch(/better-sqlite3[\\/]build[\\/]Release[\\/]better_sqlite3\.node$/);
    expect(existsSync(path as string)).toBe(true);
    expect(sqliteAddonPath()).toBe(path);
    const db = new Database(':memory:', { nativeBinding: path });
    expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    db.close();
  });

  it('leaves openDatabase opening and migrating a database as before', () => {
    const db = openDatabase({ path: ':memory:' });
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThan(0);
    db.close();
  });
});
