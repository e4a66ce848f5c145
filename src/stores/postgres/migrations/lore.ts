// Schema of the lore book: its entries (unique on source and title), the book's version and where its live lore came from.
import type { PostgresMigration } from './migration.js';

/** Migrations of the lore layer, oldest first (the same tables as SQLite's `lore-001` to `lore-003`). */
export const LORE_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: 'lore-001',
    description: 'lore entries and the lore book version',
    async up(client) {
      await client.query(`
        CREATE TABLE lore_entries (
          seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          source TEXT NOT NULL,
          title TEXT NOT NULL,
          content TEXT NOT NULL,
          scope_level TEXT NOT NULL CHECK (scope_level IN ('continental', 'regional', 'local', 'faction')),
          scope_tags TEXT NOT NULL CHECK (jsonb_typeof(scope_tags::jsonb) = 'array'),  -- a JSON array, as written
          content_hash TEXT NOT NULL,
          embedding_model TEXT,
          embedding vector,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL,
          UNIQUE (source, title)
        )`);
      await client.query('CREATE INDEX lore_entries_scope_level ON lore_entries (scope_level)');
      await client.query('CREATE TABLE lore_book (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)');
      await client.query('INSERT INTO lore_book (id, version) VALUES (1, 0)');
    },
  },
  {
    id: 'lore-002',
    description: 'where the live lore came from: reader, location, ref, commit, time of import',
    async up(client) {
      await client.query(`
        ALTER TABLE lore_book
          ADD COLUMN origin_reader TEXT CHECK (origin_reader IN ('folder', 'git', 'entries')),
          ADD COLUMN origin_location TEXT,
          ADD COLUMN origin_ref TEXT,
          ADD COLUMN origin_commit TEXT,
          ADD COLUMN origin_imported_at BIGINT`);
    },
  },
  {
    id: 'lore-003',
    description: 'free metadata on lore entries (a JSON object; existing entries get {})',
    async up(client) {
      // JSON text as Mnemo wrote it (like scope_tags), so keys keep their order on every store. The CHECK is added on
      // its own, named: Citus refuses a column added with a constraint to a distributed or reference table.
      await client.query(`ALTER TABLE lore_entries ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}'`);
      await client.query(`ALTER TABLE lore_entries ADD CONSTRAINT lore_entries_metadata_object CHECK (jsonb_typeof(metadata::jsonb) = 'object')`);
    },
  },
];
