// What a sub-store of the SQLite store is given: the open database handle and its write transaction.
import type { Database } from 'better-sqlite3';

/** The SQLite store's connection, as its sub-stores use it. */
export interface SqliteConnection {
  /** The open handle (throws STORE_CLOSED once the store is closed). */
  database(): Database;
  /**
   * Runs `work` in one IMMEDIATE transaction, waiting at most one lock attempt for another process's lock, then
   * STORE_BUSY (throws STORE_CLOSED once the store is closed). For writes inside a synchronous program.
   */
  write<T>(work: () => T): T;
  /**
   * Runs `work` in one IMMEDIATE transaction like `write`, retrying on timers while another process holds the lock,
   * up to the store's busyTimeoutMs, then STORE_BUSY. What the sub-stores' writes use.
   */
  transact<T>(work: () => T): Promise<T>;
}

/** Each open SQLite store's connection, kept out of the store's public type (which names no better-sqlite3 type). */
const connections = new WeakMap<object, SqliteConnection>();

/** Records the connection of a SQLite store (called by its constructor). */
export function registerSqliteConnection(store: object, connection: SqliteConnection): void {
  connections.set(store, connection);
}

/**
 * The connection of a SQLite store, for the repository's own tests and benchmarks (not part of the package's API).
 *
 * @example
 * ```ts
 * const store = openSqliteStore({ path: ':memory:' });
 * sqliteConnectionOf(store).database().pragma('journal_mode', { simple: true }); // 'memory'
 * ```
 */
export function sqliteConnectionOf(store: object): SqliteConnection {
  const connection = connections.get(store);
  if (connection === undefined) throw new TypeError('sqliteConnectionOf: expected a store opened by openSqliteStore.');
  return connection;
}
