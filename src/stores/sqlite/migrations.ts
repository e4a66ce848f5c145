// The SQLite schema, as numbered migrations applied in order; PRAGMA user_version records the last one applied.
import type { Database } from 'better-sqlite3';
import { MnemoError } from '../../core/errors.js';

/** One schema step. `up` runs inside a transaction with the others still to apply. */
export interface Migration {
  version: number;
  description: string;
  up(db: Database): void;
}

/** Every migration, oldest first. Append; never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'meta, saves and chunks',
    up(db) {
      db.exec(`
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE saves (
          save_id TEXT PRIMARY KEY,
          version INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE chunks (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          save_id TEXT NOT NULL,
          turn_id INTEGER NOT NULL CHECK (turn_id >= 0),
          chunk_type TEXT NOT NULL,
          text TEXT NOT NULL,
          entry_id TEXT,
          metadata TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          embedding BLOB
        );
        CREATE INDEX chunks_save_turn ON chunks (save_id, turn_id);
      `);
    },
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.reduce((latest, migration) => Math.max(latest, migration.version), 0);

/**
 * Brings a database up to SCHEMA_VERSION in one transaction. A database written by a newer Mnemo is refused.
 *
 * @example
 * ```ts
 * migrate(new Database('game.db')); // { from: 0, to: 1 }
 * ```
 */
export function migrate(db: Database): { from: number; to: number } {
  const from = db.pragma('user_version', { simple: true }) as number;
  if (from > SCHEMA_VERSION) {
    throw new MnemoError('SCHEMA_TOO_NEW', `The database is at schema version ${from}, but this Mnemo knows versions up to ${SCHEMA_VERSION}. Upgrade Mnemo to open it.`, {
      details: { found: from, supported: SCHEMA_VERSION },
    });
  }
  if (from === SCHEMA_VERSION) return { from, to: from };
  db.transaction(() => {
    for (const migration of MIGRATIONS) if (migration.version > from) migration.up(db);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
  return { from, to: SCHEMA_VERSION };
}
