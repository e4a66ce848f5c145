// Schema of the embedding layer: the embedding cache and the staging table of a resumable reindex.
import type { Migration } from './migration.js';

/** Migrations of the embedding layer, oldest first. */
export const EMBEDDING_MIGRATIONS: readonly Migration[] = [
  {
    id: 'embeddings-001',
    description: 'embedding cache and reindex staging (chunks, recall entries, lore entries)',
    up(db) {
      db.exec(`
        CREATE TABLE embedding_cache (
          model TEXT NOT NULL,
          hash TEXT NOT NULL,
          vector BLOB NOT NULL,
          UNIQUE (model, hash)
        );
        CREATE TABLE reindex_staging (
          seq INTEGER PRIMARY KEY,
          chunk_id TEXT NOT NULL,
          vector BLOB
        );
        CREATE TABLE reindex_staging_recall (
          seq INTEGER PRIMARY KEY,
          source TEXT NOT NULL,
          vector BLOB
        );
        CREATE TABLE reindex_staging_lore (
          seq INTEGER PRIMARY KEY,
          source TEXT NOT NULL,
          vector BLOB
        );
      `);
    },
  },
];
