// The SQLite store: the embedded default (one file, WAL, transactions for every write).
import { SqliteStore } from './sqlite-store.js';
import type { SqliteStoreOptions } from './sqlite-store.js';

export { SqliteStore } from './sqlite-store.js';
export type { SqliteStoreOptions } from './sqlite-store.js';
export { SCHEMA_VERSION, MIGRATIONS } from './migrations.js';

/**
 * Opens (creating and migrating if needed) a SQLite store.
 *
 * @example
 * ```ts
 * const store = openSqliteStore({ path: 'game.db' });
 * ```
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}
