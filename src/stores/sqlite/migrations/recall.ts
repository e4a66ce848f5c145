// Schema of the recall layer (seed 001): remembered entries, unique per (scope, key), and one version counter.
import type { Migration } from './migration.js';

/** Migrations of the recall layer, oldest first. */
export const RECALL_MIGRATIONS: readonly Migration[] = [
  {
    id: 'recall-001',
    description: 'recall entries and the recall version',
    up(db) {
      db.exec(`
        CREATE TABLE recall_entries (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          scope TEXT NOT NULL,            -- '' for an unscoped entry (a scope is never empty)
          key TEXT NOT NULL CHECK (key <> ''),
          folded_key TEXT NOT NULL,       -- key.toLowerCase(), for exact-key matches
          value TEXT NOT NULL,            -- JSON
          metadata TEXT NOT NULL,         -- JSON object
          created_at INTEGER NOT NULL,    -- ms since the epoch
          expires_at INTEGER,             -- ms since the epoch, NULL = never
          embedding BLOB,
          UNIQUE (scope, key)
        );
        CREATE INDEX recall_entries_folded_key ON recall_entries (folded_key);
        CREATE INDEX recall_entries_expires_at ON recall_entries (expires_at) WHERE expires_at IS NOT NULL;
        CREATE TABLE recall_state (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
        INSERT INTO recall_state (id, version) VALUES (1, 0);
      `);
    },
  },
];
