// Schema of the recall layer (seed 001): remembered entries, unique per (scope, key), and one version counter.
import type { PostgresMigration } from './migration.js';

/** Migrations of the recall layer, oldest first (the same tables as SQLite's `recall-001`). */
export const RECALL_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: 'recall-001',
    description: 'recall entries and the recall version',
    async up(client) {
      await client.query(`
        CREATE TABLE recall_entries (
          seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          scope TEXT NOT NULL,          -- '' for an unscoped entry (a scope is never empty)
          key TEXT NOT NULL CHECK (key <> ''),
          folded_key TEXT NOT NULL,     -- key.toLowerCase(), for exact-key matches
          value TEXT NOT NULL,          -- JSON, as written
          metadata TEXT NOT NULL,       -- JSON object, as written
          created_at BIGINT NOT NULL,   -- ms since the epoch
          expires_at BIGINT,            -- ms since the epoch, NULL = never
          embedding vector,
          UNIQUE (scope, key)
        )`);
      await client.query('CREATE INDEX recall_entries_folded_key ON recall_entries (folded_key)');
      await client.query('CREATE INDEX recall_entries_expires_at ON recall_entries (expires_at) WHERE expires_at IS NOT NULL');
      await client.query('CREATE TABLE recall_state (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)');
      await client.query('INSERT INTO recall_state (id, version) VALUES (1, 0)');
    },
  },
];
