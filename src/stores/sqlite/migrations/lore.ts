// Schema of the lore book: its entries (unique on source and title), the book's version and where its live lore came from.
import type { Migration } from './migration.js';

/** Migrations of the lore layer, oldest first. */
export const LORE_MIGRATIONS: readonly Migration[] = [
  {
    id: 'lore-001',
    description: 'lore entries and the lore book version',
    up(db) {
      db.exec(`
        CREATE TABLE lore_entries (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          source TEXT NOT NULL,
          title TEXT NOT NULL,
          content TEXT NOT NULL,
          scope_level TEXT NOT NULL CHECK (scope_level IN ('continental', 'regional', 'local', 'faction')),
          scope_tags TEXT NOT NULL CHECK (json_valid(scope_tags) AND json_type(scope_tags) = 'array'),
          content_hash TEXT NOT NULL,
          embedding_model TEXT,
          embedding BLOB,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          UNIQUE (source, title)
        );
        CREATE INDEX lore_entries_scope_level ON lore_entries (scope_level);
        CREATE TABLE lore_book (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          version INTEGER NOT NULL
        );
        INSERT INTO lore_book (id, version) VALUES (1, 0);
      `);
    },
  },
  {
    id: 'lore-002',
    description: 'where the live lore came from: reader, location, ref, commit, time of import',
    up(db) {
      db.exec(`
        ALTER TABLE lore_book ADD COLUMN origin_reader TEXT CHECK (origin_reader IN ('folder', 'git', 'entries'));
        ALTER TABLE lore_book ADD COLUMN origin_location TEXT;
        ALTER TABLE lore_book ADD COLUMN origin_ref TEXT;
        ALTER TABLE lore_book ADD COLUMN origin_commit TEXT;
        ALTER TABLE lore_book ADD COLUMN origin_imported_at INTEGER;
      `);
    },
  },
  {
    id: 'lore-003',
    description: 'free metadata on lore entries (a JSON object; existing entries get {})',
    up(db) {
      db.exec(`ALTER TABLE lore_entries ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object')`);
    },
  },
];
