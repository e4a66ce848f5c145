// Schema of the embedding layer: the embedding cache and the staging tables of a resumable reindex.
import type { PostgresMigration } from './migration.js';

/** Migrations of the embedding layer, oldest first (the same tables as SQLite's `embeddings-001`). */
export const EMBEDDING_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: 'embeddings-001',
    description: 'embedding cache and reindex staging (chunks, recall entries, lore entries)',
    async up(client) {
      // `seq` orders the cache first in, first out (SQLite uses its rowid).
      await client.query(`
        CREATE TABLE embedding_cache (
          seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          model TEXT NOT NULL,
          hash TEXT NOT NULL,
          vector vector NOT NULL,
          UNIQUE (model, hash)
        )`);
      await client.query('CREATE TABLE reindex_staging (seq BIGINT PRIMARY KEY, chunk_id TEXT NOT NULL, vector vector)');
      await client.query('CREATE TABLE reindex_staging_recall (seq BIGINT PRIMARY KEY, source TEXT NOT NULL, vector vector)');
      await client.query('CREATE TABLE reindex_staging_lore (seq BIGINT PRIMARY KEY, source TEXT NOT NULL, vector vector)');
      // A reindex walks every save's chunks in insertion order; the chunks' key starts with save_id.
      await client.query('CREATE INDEX chunks_seq ON chunks (seq)');
    },
  },
];
