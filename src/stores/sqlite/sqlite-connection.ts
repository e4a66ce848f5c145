// What a sub-store of the SQLite store is given: the open database handle and its write transaction.
import type { Database } from 'better-sqlite3';

/** The SQLite store's connection, as its sub-stores use it. */
export interface SqliteConnection {
  /** The open handle (throws STORE_CLOSED once the store is closed). */
  database(): Database;
  /** Runs `work` in one IMMEDIATE transaction (throws STORE_CLOSED once the store is closed). */
  write<T>(work: () => T): T;
}
