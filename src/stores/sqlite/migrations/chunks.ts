// Schema of the narrative layer: the key/value meta table, saves with their versions, and chunks.
import { decodeChunkMetadata, encodeChunkMetadata } from '../chunk-metadata.js';
import { blobToVector, vectorToBlob } from '../vectors.js';
import { storedChunkIdSql } from '../chunk-ids.js';
import type { Database } from 'better-sqlite3';
import type { Migration } from './migration.js';

/**
 * Rewrites one column of the chunk rows a page of 10,000 at a time, in seq order (a statement cannot write while
 * another iterates, and a large file is never read whole): `rewrite` gets the `columns` of each row that
 * `condition` (SQL after the seq bound, may be '') keeps, and gives the column's new value, or undefined to leave
 * the row as it is.
 */
function rewriteChunkRows(db: Database, column: string, columns: string, condition: string, rewrite: (row: unknown[]) => unknown): void {
  const update = db.prepare(`UPDATE chunks SET ${column} = ? WHERE seq = ?`);
  const page = db.prepare(`SELECT seq, ${columns} FROM chunks WHERE seq > ? ${condition} ORDER BY seq LIMIT 10000`).raw(true);
  for (let after = 0; ; ) {
    const rows = page.all(after) as [number, ...unknown[]][];
    if (rows.length === 0) break;
    for (const [seq, ...values] of rows) {
      const value = rewrite(values);
      if (value !== undefined) update.run(value, seq);
      after = seq;
    }
  }
}

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
  {
    id: 'chunks-003',
    description: "chunk metadata keeps only the keys its columns do not hold (src/stores/sqlite/chunk-metadata.ts): saveId, turnId, chunkType and entryId are read from the row's columns",
    up(db) {
      rewriteChunkRows(db, 'metadata', 'save_id, turn_id, chunk_type, entry_id, metadata', '', ([saveId, turnId, chunkType, entryId, stored]) => {
        const columns = { saveId: saveId as string, turnId: turnId as number, chunkType: chunkType as string, entryId: entryId as string | null };
        const encoded = encodeChunkMetadata(decodeChunkMetadata(stored as string, columns), columns);
        return encoded === stored ? undefined : encoded;
      });
    },
  },
  {
    id: 'chunks-004',
    description: 'chunk vectors packed (src/stores/sqlite/packed-vector.ts: exact, about 15% smaller): rows written before keep raw float32 bytes until this rewrites them',
    up(db) {
      // Raw float32 bytes are a multiple of 4 long, packed ones never are.
      rewriteChunkRows(db, 'embedding', 'embedding', 'AND length(embedding) % 4 = 0 AND length(embedding) > 0', ([raw]) => {
        const packed = vectorToBlob(blobToVector(raw as Buffer));
        return packed !== null && packed.byteLength < (raw as Buffer).byteLength ? packed : undefined;
      });
    },
  },
  {
    id: 'chunks-005',
    description: 'chunk ids that are canonical UUIDs kept as their 16 bytes (src/stores/sqlite/chunk-ids.ts): 20 bytes less per row and per id index entry',
    up(db) {
      db.exec(`UPDATE chunks SET id = ${storedChunkIdSql('id')} WHERE typeof(id) = 'text' AND id <> ${storedChunkIdSql('id')}`);
    },
  },
];
