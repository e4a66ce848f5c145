// Schema of the narrative layer: the key/value meta table, saves with their versions, and chunks.
import type { Migration } from './migration.js';

/** Migrations of the narrative layer, oldest first. */
export const CHUNK_MIGRATIONS: readonly Migration[] = [
  {
    id: 'chunks-001',
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
  {
    id: 'chunks-002',
    description: 'chunk_rewinds: the chunks a rewind hid, until the purge deletes them (src/stores/sqlite/rewound-rows.ts)',
    up(db) {
      db.exec(`
        CREATE TABLE chunk_rewinds (
          save_id TEXT NOT NULL,
          turn_id INTEGER NOT NULL,
          seq INTEGER NOT NULL,
          PRIMARY KEY (save_id, turn_id, seq)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    id: 'saves-001',
    description: 'a deleted save keeps its row as a tombstone (deleted_at), so its version never repeats',
    up(db) {
      db.exec('ALTER TABLE saves ADD COLUMN deleted_at INTEGER');
    },
  },
];
