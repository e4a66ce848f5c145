// The SQLite adapter of the embedding sub-store: identity in meta, a FIFO-capped cache table, reindex staging.
import { isMnemoError } from '../../core/errors.js';
import { renderValue } from '../../core/json-value.js';
import type { JsonValue } from '../../core/types.js';
import type { CachedVector, EmbedderIdentity, EmbeddingStore, IdentityClaim, ReindexItem, ReindexProgress, ReindexVector } from '../../seams/embedding-store.js';
import { IDENTITY_KEY, REINDEX_KEY, sameIdentity } from '../embedder-meta.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { visibleChunk } from './rewound-rows.js';
import { blobToVector, vectorToBlob } from './vectors.js';
import { chunkIdText } from './chunk-ids.js';

/** A layer whose entries are rewritten in place: staged with the `source` (what the vector was made from) they had. */
interface EntryFamily {
  family: 'recall' | 'lore';
  table: string;
  staging: string;
  /** SQL, over alias r, of what the vector is made from. */
  source: string;
  /** Extra columns selected for the item. */
  columns: string;
  item(row: Record<string, unknown>): ReindexItem;
  /** Extra assignments of the swap (`embedding_model = ?` for lore), with their parameters. */
  swapExtra(target: EmbedderIdentity): { sql: string; parameters: unknown[] };
  /** The statement that bumps the layer's version after the swap. */
  bump: string;
}

const FAMILIES: readonly EntryFamily[] = [
  {
    family: 'recall',
    table: 'recall_entries',
    staging: 'reindex_staging_recall',
    source: "r.key || char(0) || r.value",
    columns: 'r.key AS key, r.value AS value',
    item: (row) => ({ family: 'recall', seq: row.seq as number, key: row.key as string, valueText: renderValue(JSON.parse(row.value as string) as JsonValue), source: row.source as string }),
    swapExtra: () => ({ sql: '', parameters: [] }),
    bump: 'UPDATE recall_state SET version = version + 1 WHERE id = 1',
  },
  {
    family: 'lore',
    table: 'lore_entries',
    staging: 'reindex_staging_lore',
    source: 'r.content',
    columns: 'r.content AS text',
    item: (row) => ({ family: 'lore', seq: row.seq as number, text: row.text as string, source: row.source as string }),
    swapExtra: (target) => ({ sql: ', embedding_model = ?', parameters: [`${target.provider}/${target.modelId}/${target.dimensions}`] }),
    bump: 'UPDATE lore_book SET version = version + 1 WHERE id = 1',
  },
];

const pendingFrom = (family: EntryFamily) => `FROM ${family.table} r LEFT JOIN ${family.staging} s ON s.seq = r.seq AND s.source = ${family.source} WHERE s.seq IS NULL`;

/**
 * The embedding layer's tables in the store's SQLite file. It reads and writes the vectors of every layer that
 * stores some: chunks, recall entries and lore entries.
 *
 * @example
 * ```ts
 * const store = openSqliteStore({ path: 'game.db' });
 * await store.embeddings.identity(); // { provider: 'static', modelId: 'glove-sg-100d-top100k-sif-rank', dimensions: 100 } or null
 * ```
 */
export class SqliteEmbeddingStore implements EmbeddingStore {
  constructor(private readonly connection: SqliteConnection) {}

  private readMeta<T>(key: string): T | null {
    const row = this.connection.database().prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row === undefined ? null : (JSON.parse(row.value) as T);
  }

  private writeMeta(key: string, value: unknown): void {
    this.connection.database().prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }

  private count(sql: string, ...parameters: unknown[]): number {
    return (this.connection.database().prepare(sql).get(...parameters) as { n: number }).n;
  }

  async identity(): Promise<EmbedderIdentity | null> {
    return this.readMeta<EmbedderIdentity>(IDENTITY_KEY);
  }

  async claimIdentity(identity: EmbedderIdentity): Promise<IdentityClaim> {
    return this.connection.transact(() => {
      const recorded = this.readMeta<EmbedderIdentity>(IDENTITY_KEY);
      if (recorded !== null && sameIdentity(recorded, identity)) return { ok: true };
      // A chunk a rewind hid still holds its vector until the purge deletes it, but it is gone for every read: it
      // does not make the store another embedder's.
      const holders = [`chunks WHERE embedding IS NOT NULL AND ${visibleChunk('chunks')}`, ...FAMILIES.map((family) => `${family.table} WHERE embedding IS NOT NULL`)];
      const present = this.count(`SELECT ${holders.map((holder) => `EXISTS (SELECT 1 FROM ${holder})`).join(' OR ')} AS n`);
      if (present === 1) return { ok: false, recorded };
      this.writeMeta(IDENTITY_KEY, { provider: identity.provider, modelId: identity.modelId, dimensions: identity.dimensions });
      return { ok: true };
    });
  }

  async getCached(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const database = this.connection.database();
    for (let start = 0; start < hashes.length; start += 500) {
      const batch = hashes.slice(start, start + 500);
      const rows = database.prepare(`SELECT hash, vector FROM embedding_cache WHERE model = ? AND hash IN (${batch.map(() => '?').join(',')})`).all(model, ...batch) as { hash: string; vector: Buffer }[];
      for (const row of rows) found.set(row.hash, blobToVector(row.vector) as Float32Array);
    }
    return found;
  }

  async putCached(model: string, entries: readonly CachedVector[], limit: number): Promise<void> {
    if (entries.length === 0 || limit <= 0) return;
    const database = this.connection.database();
    // A cache write need not survive a power cut: skip its fsync (WAL keeps the file consistent either way).
    const synchronous = database.pragma('synchronous', { simple: true }) as number;
    database.pragma('synchronous = NORMAL');
    try {
      this.connection.write(() => {
        const insert = database.prepare('INSERT OR IGNORE INTO embedding_cache (model, hash, vector) VALUES (?, ?, ?)');
        for (const entry of entries) insert.run(model, entry.hash, vectorToBlob(entry.vector));
        database.prepare('DELETE FROM embedding_cache WHERE rowid <= (SELECT MAX(rowid) FROM embedding_cache) - ?').run(limit);
      });
    } catch (error) {
      // The cache is an optimisation: while another process holds the lock, these vectors are simply not cached.
      if (!isMnemoError(error, 'STORE_BUSY')) throw error;
    } finally {
      database.pragma(`synchronous = ${synchronous}`);
    }
  }

  private chunkCursor(): number {
    return this.count('SELECT COALESCE(MAX(seq), 0) AS n FROM reindex_staging');
  }

  private progress(target: EmbedderIdentity): ReindexProgress {
    const cursor = this.chunkCursor();
    let done = this.count('SELECT COUNT(*) AS n FROM reindex_staging');
    let pending = this.count(`SELECT COUNT(*) AS n FROM chunks WHERE seq > ? AND ${visibleChunk('chunks')}`, cursor);
    for (const family of FAMILIES) {
      const waiting = this.count(`SELECT COUNT(*) AS n ${pendingFrom(family)}`);
      done += this.count(`SELECT COUNT(*) AS n FROM ${family.table}`) - waiting;
      pending += waiting;
    }
    return { target, done, total: done + pending };
  }

  async beginReindex(target: EmbedderIdentity): Promise<ReindexProgress> {
    return this.connection.transact(() => {
      const current = this.readMeta<EmbedderIdentity>(REINDEX_KEY);
      if (current === null || !sameIdentity(current, target)) {
        for (const table of ['reindex_staging', ...FAMILIES.map((family) => family.staging)]) this.connection.database().exec(`DELETE FROM ${table}`);
        this.writeMeta(REINDEX_KEY, target);
      }
      return this.progress(target);
    });
  }

  async reindexProgress(): Promise<ReindexProgress | null> {
    const target = this.readMeta<EmbedderIdentity>(REINDEX_KEY);
    return target === null ? null : this.progress(target);
  }

  async nextToReindex(limit: number): Promise<ReindexItem[]> {
    const database = this.connection.database();
    const chunks = database.prepare(`SELECT seq, ${chunkIdText('id')} AS id, text FROM chunks WHERE seq > ? AND ${visibleChunk('chunks')} ORDER BY seq LIMIT ?`).all(this.chunkCursor(), limit) as { seq: number; id: string; text: string }[];
    if (chunks.length > 0) return chunks.map((row) => ({ family: 'chunks', ...row }));
    for (const family of FAMILIES) {
      const rows = database.prepare(`SELECT r.seq AS seq, ${family.columns}, ${family.source} AS source ${pendingFrom(family)} ORDER BY r.seq LIMIT ?`).all(limit) as Record<string, unknown>[];
      if (rows.length > 0) return rows.map(family.item);
    }
    return [];
  }

  async stageReindex(vectors: readonly ReindexVector[]): Promise<ReindexProgress> {
    return this.connection.transact(() => {
      const target = this.readMeta<EmbedderIdentity>(REINDEX_KEY);
      if (target === null) throw new Error('stageReindex: no reindex in progress; call beginReindex first');
      const database = this.connection.database();
      const chunk = database.prepare('INSERT OR REPLACE INTO reindex_staging (seq, chunk_id, vector) VALUES (?, ?, ?)');
      const entries = new Map(FAMILIES.map((family) => [family.family, database.prepare(`INSERT OR REPLACE INTO ${family.staging} (seq, source, vector) VALUES (?, ?, ?)`)]));
      for (const vector of vectors) {
        if (vector.family === 'chunks') chunk.run(vector.seq, vector.id, vectorToBlob(vector.embedding));
        else entries.get(vector.family)?.run(vector.seq, vector.source, vectorToBlob(vector.embedding));
      }
      return this.progress(target);
    });
  }

  async finishReindex(target: EmbedderIdentity): Promise<{ finished: boolean; pending: number }> {
    return this.connection.transact(() => {
      const database = this.connection.database();
      const progress = this.progress(target);
      const pending = progress.total - progress.done;
      if (pending > 0) return { finished: false, pending };
      // The staging table holds each chunk's id as its text.
      database.prepare(`UPDATE chunks SET embedding = (SELECT s.vector FROM reindex_staging s WHERE s.seq = chunks.seq AND s.chunk_id = ${chunkIdText('chunks.id')})`).run();
      database.prepare('UPDATE saves SET version = version + 1, updated_at = ?').run(Date.now());
      database.exec('DELETE FROM reindex_staging');
      for (const family of FAMILIES) {
        const extra = family.swapExtra(target);
        database.prepare(`UPDATE ${family.table} AS r SET embedding = (SELECT s.vector FROM ${family.staging} s WHERE s.seq = r.seq AND s.source = ${family.source})${extra.sql}`).run(...extra.parameters);
        database.prepare(family.bump).run();
        database.exec(`DELETE FROM ${family.staging}`);
      }
      database.prepare('DELETE FROM meta WHERE key = ?').run(REINDEX_KEY);
      this.writeMeta(IDENTITY_KEY, { provider: target.provider, modelId: target.modelId, dimensions: target.dimensions });
      return { finished: true, pending: 0 };
    });
  }
}
