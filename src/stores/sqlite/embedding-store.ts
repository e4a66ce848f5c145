// The SQLite adapter of the embedding sub-store: identity in meta, a FIFO-capped cache table, reindex staging.
import { renderValue } from '../../core/json-value.js';
import type { JsonValue } from '../../core/types.js';
import type { CachedVector, EmbedderIdentity, EmbeddingStore, IdentityClaim, ReindexItem, ReindexProgress, ReindexVector } from '../../seams/embedding-store.js';
import type { SqliteStore } from './sqlite-store.js';
import { blobToVector, vectorToBlob } from './vectors.js';

const IDENTITY_KEY = 'embedder.identity';
const REINDEX_KEY = 'embedder.reindex';

const sameIdentity = (a: EmbedderIdentity, b: EmbedderIdentity) => a.provider === b.provider && a.modelId === b.modelId && a.dimensions === b.dimensions;

/** A recall entry's staged version: its key and value as stored (rewriting the entry changes it). */
const RECALL_SOURCE = "r.key || char(0) || r.value";
const RECALL_PENDING = `FROM recall_entries r LEFT JOIN reindex_staging_recall s ON s.seq = r.seq AND s.source = ${RECALL_SOURCE} WHERE s.seq IS NULL`;

/**
 * The embedding layer's tables in the store's SQLite file. It reads and writes the vectors of the chunks and of
 * the recall entries, the two layers that store vectors.
 *
 * @example
 * ```ts
 * const store = openSqliteStore({ path: 'game.db' });
 * await store.embeddings.identity(); // { provider: 'static', modelId: 'glove-sg-100d-top100k-sif-rank', dimensions: 100 } or null
 * ```
 */
export class SqliteEmbeddingStore implements EmbeddingStore {
  constructor(private readonly store: SqliteStore) {}

  private readMeta<T>(key: string): T | null {
    const row = this.store.database.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row === undefined ? null : (JSON.parse(row.value) as T);
  }

  private writeMeta(key: string, value: unknown): void {
    this.store.database.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }

  async identity(): Promise<EmbedderIdentity | null> {
    return this.readMeta<EmbedderIdentity>(IDENTITY_KEY);
  }

  async claimIdentity(identity: EmbedderIdentity): Promise<IdentityClaim> {
    return this.store.write(() => {
      const recorded = this.readMeta<EmbedderIdentity>(IDENTITY_KEY);
      if (recorded !== null && sameIdentity(recorded, identity)) return { ok: true };
      const vectors = this.store.database
        .prepare('SELECT EXISTS (SELECT 1 FROM chunks WHERE embedding IS NOT NULL) OR EXISTS (SELECT 1 FROM recall_entries WHERE embedding IS NOT NULL) AS present')
        .get() as { present: number };
      if (vectors.present === 1) return { ok: false, recorded };
      this.writeMeta(IDENTITY_KEY, { provider: identity.provider, modelId: identity.modelId, dimensions: identity.dimensions });
      return { ok: true };
    });
  }

  async getCached(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const database = this.store.database;
    for (let start = 0; start < hashes.length; start += 500) {
      const batch = hashes.slice(start, start + 500);
      const rows = database.prepare(`SELECT hash, vector FROM embedding_cache WHERE model = ? AND hash IN (${batch.map(() => '?').join(',')})`).all(model, ...batch) as { hash: string; vector: Buffer }[];
      for (const row of rows) found.set(row.hash, blobToVector(row.vector) as Float32Array);
    }
    return found;
  }

  async putCached(model: string, entries: readonly CachedVector[], limit: number): Promise<void> {
    if (entries.length === 0 || limit <= 0) return;
    const database = this.store.database;
    // A cache write need not survive a power cut: skip its fsync (WAL keeps the file consistent either way).
    const synchronous = database.pragma('synchronous', { simple: true }) as number;
    database.pragma('synchronous = NORMAL');
    try {
      this.store.write(() => {
        const insert = database.prepare('INSERT OR IGNORE INTO embedding_cache (model, hash, vector) VALUES (?, ?, ?)');
        for (const entry of entries) insert.run(model, entry.hash, vectorToBlob(entry.vector));
        database.prepare('DELETE FROM embedding_cache WHERE rowid <= (SELECT MAX(rowid) FROM embedding_cache) - ?').run(limit);
      });
    } finally {
      database.pragma(`synchronous = ${synchronous}`);
    }
  }

  private chunkCursor(): number {
    return (this.store.database.prepare('SELECT COALESCE(MAX(seq), 0) AS cursor FROM reindex_staging').get() as { cursor: number }).cursor;
  }

  private progress(target: EmbedderIdentity): ReindexProgress {
    const database = this.store.database;
    const chunks = database.prepare('SELECT COUNT(*) AS done, COALESCE(MAX(seq), 0) AS cursor FROM reindex_staging').get() as { done: number; cursor: number };
    const pendingChunks = (database.prepare('SELECT COUNT(*) AS n FROM chunks WHERE seq > ?').get(chunks.cursor) as { n: number }).n;
    const pendingRecall = (database.prepare(`SELECT COUNT(*) AS n ${RECALL_PENDING}`).get() as { n: number }).n;
    const recallTotal = (database.prepare('SELECT COUNT(*) AS n FROM recall_entries').get() as { n: number }).n;
    const done = chunks.done + recallTotal - pendingRecall;
    return { target, done, total: done + pendingChunks + pendingRecall };
  }

  async beginReindex(target: EmbedderIdentity): Promise<ReindexProgress> {
    return this.store.write(() => {
      const current = this.readMeta<EmbedderIdentity>(REINDEX_KEY);
      if (current === null || !sameIdentity(current, target)) {
        this.store.database.exec('DELETE FROM reindex_staging; DELETE FROM reindex_staging_recall;');
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
    const database = this.store.database;
    const chunks = database.prepare('SELECT seq, id, text FROM chunks WHERE seq > ? ORDER BY seq LIMIT ?').all(this.chunkCursor(), limit) as { seq: number; id: string; text: string }[];
    if (chunks.length > 0) return chunks.map((row) => ({ family: 'chunks', ...row }));
    const entries = database.prepare(`SELECT r.seq AS seq, r.key AS key, r.value AS value, ${RECALL_SOURCE} AS source ${RECALL_PENDING} ORDER BY r.seq LIMIT ?`).all(limit) as { seq: number; key: string; value: string; source: string }[];
    return entries.map((row) => ({ family: 'recall', seq: row.seq, key: row.key, valueText: renderValue(JSON.parse(row.value) as JsonValue), source: row.source }));
  }

  async stageReindex(vectors: readonly ReindexVector[]): Promise<ReindexProgress> {
    return this.store.write(() => {
      const target = this.readMeta<EmbedderIdentity>(REINDEX_KEY);
      if (target === null) throw new Error('stageReindex: no reindex in progress; call beginReindex first');
      const chunk = this.store.database.prepare('INSERT OR REPLACE INTO reindex_staging (seq, chunk_id, vector) VALUES (?, ?, ?)');
      const entry = this.store.database.prepare('INSERT OR REPLACE INTO reindex_staging_recall (seq, source, vector) VALUES (?, ?, ?)');
      for (const vector of vectors) {
        if (vector.family === 'chunks') chunk.run(vector.seq, vector.id, vectorToBlob(vector.embedding));
        else entry.run(vector.seq, vector.source, vectorToBlob(vector.embedding));
      }
      return this.progress(target);
    });
  }

  async finishReindex(target: EmbedderIdentity): Promise<{ finished: boolean; pending: number }> {
    return this.store.write(() => {
      const database = this.store.database;
      const progress = this.progress(target);
      const pending = progress.total - progress.done;
      if (pending > 0) return { finished: false, pending };
      database.prepare('UPDATE chunks SET embedding = (SELECT s.vector FROM reindex_staging s WHERE s.seq = chunks.seq AND s.chunk_id = chunks.id)').run();
      database.prepare(`UPDATE recall_entries AS r SET embedding = (SELECT s.vector FROM reindex_staging_recall s WHERE s.seq = r.seq AND s.source = ${RECALL_SOURCE})`).run();
      database.prepare('UPDATE saves SET version = version + 1, updated_at = ?').run(Date.now());
      database.prepare('UPDATE recall_state SET version = version + 1 WHERE id = 1').run();
      database.exec('DELETE FROM reindex_staging; DELETE FROM reindex_staging_recall;');
      database.prepare('DELETE FROM meta WHERE key = ?').run(REINDEX_KEY);
      this.writeMeta(IDENTITY_KEY, { provider: target.provider, modelId: target.modelId, dimensions: target.dimensions });
      return { finished: true, pending: 0 };
    });
  }
}
