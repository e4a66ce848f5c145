// Schema of the narrative layer: the key/value meta table, saves with their versions, and chunks with vectors.
import type { PostgresMigration } from './migration.js';

/**
 * Migrations of the narrative layer, oldest first. Keys start with `save_id` so the tables can be distributed
 * by save (Citus). `embedding` is an untyped `vector`: the HNSW index of each vector length is created when the
 * first vector of that length arrives (see vector-search.ts), as a partial index on `embedding::vector(dims)`.
 * Chunk ids are random UUIDs made by Mnemo; `chunks_id` finds them without the save.
 */
export const CHUNK_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: 'chunks-001',
    description: 'meta, saves and chunks',
    async up(client) {
      await client.query('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      await client.query(`
        CREATE TABLE saves (
          save_id TEXT PRIMARY KEY,
          version BIGINT NOT NULL DEFAULT 0,
          chunk_count BIGINT NOT NULL DEFAULT 0,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL
        )`);
      await client.query(`
        CREATE TABLE chunks (
          seq BIGINT GENERATED ALWAYS AS IDENTITY,
          id TEXT NOT NULL,
          save_id TEXT NOT NULL,
          turn_id BIGINT NOT NULL CHECK (turn_id >= 0),
          chunk_type TEXT NOT NULL,
          text TEXT NOT NULL,
          entry_id TEXT,
          metadata JSONB NOT NULL,
          created_at BIGINT NOT NULL,
          embedding vector,
          PRIMARY KEY (save_id, seq)
        )`);
      await client.query('CREATE INDEX chunks_id ON chunks (id)');
      await client.query('CREATE INDEX chunks_save_turn ON chunks (save_id, turn_id)');
    },
  },
  {
    id: 'saves-001',
    description: 'a deleted save keeps its row as a tombstone (deleted_at), so its version never repeats',
    async up(client) {
      await client.query('ALTER TABLE saves ADD COLUMN deleted_at BIGINT');
    },
  },
  {
    id: 'chunks-002',
    description: 'chunk_rewinds: the chunks a rewind hid, until the purge deletes them (src/stores/postgres/rewound-rows.ts)',
    async up(client) {
      await client.query('CREATE TABLE chunk_rewinds (save_id TEXT NOT NULL, turn_id BIGINT NOT NULL, seq BIGINT NOT NULL, PRIMARY KEY (save_id))');
    },
  },
];
