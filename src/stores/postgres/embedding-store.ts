// The PostgreSQL adapter of the embedding sub-store: identity in meta, a first-in-first-out cache, reindex staging.
import { renderValue } from '../../core/json-value.js';
import type { JsonValue } from '../../core/types.js';
import type { CachedVector, EmbedderIdentity, EmbeddingStore, IdentityClaim, ReindexItem, ReindexProgress, ReindexVector } from '../../seams/embedding-store.js';
import { IDENTITY_KEY, REINDEX_KEY, sameIdentity } from '../embedder-meta.js';
import { schemaTable } from './postgres-connection.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { SqlClient } from './queryable.js';
import { rewoundTables, visibleRow } from './rewound-rows.js';
import type { RewoundTable } from './rewound-rows.js';
import { literalToVector, vectorToLiteral } from './vectors.js';

/** Rows per statement when reading the cache. */
const BATCH = 1000;

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
  /** The table holding the layer's version, bumped after the swap. */
  versionTable: string;
  /** Whether the swap also records the embedder (lore entries keep `embedding_model`). */
  recordsModel: boolean;
}

/**
 * The embedding layer's tables in Mnemo's PostgreSQL schema, the same as SQLite's: it reads and writes the vectors
 * of every layer that stores some (chunks, recall entries, lore entries). A finished reindex also creates the HNSW
 * index of the new vector length (with `vectorIndexes: 'automatic'`).
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url });
 * await store.embeddings.identity(); // { provider: 'static', modelId: '...', dimensions: 100 } or null
 * ```
 */
export class PostgresEmbeddingStore implements EmbeddingStore {
  private readonly families: readonly EntryFamily[];
  private readonly meta: string;
  private readonly chunks: string;
  /** The chunks with their rewind records: a reindex leaves the chunks a rewind hid out (rewound-rows.ts). */
  private readonly rewoundChunks: RewoundTable;
  private readonly cache: string;
  private readonly staging: string;

  /**
   * @param connection the store's connection
   * @param afterReindex called after a finished reindex with the new vector length (the store creates its HNSW
   *   index there, unless its indexes are manual)
   */
  constructor(private readonly connection: PostgresConnection, private readonly afterReindex: (dimensions: number) => Promise<void>) {
    this.meta = schemaTable(connection.schema, 'meta');
    this.chunks = schemaTable(connection.schema, 'chunks');
    this.rewoundChunks = rewoundTables(connection.schema).chunks;
    this.cache = schemaTable(connection.schema, 'embedding_cache');
    this.staging = schemaTable(connection.schema, 'reindex_staging');
    this.families = [
      {
        family: 'recall',
        table: schemaTable(connection.schema, 'recall_entries'),
        staging: schemaTable(connection.schema, 'reindex_staging_recall'),
        // SQLite joins with char(0), which PostgreSQL text cannot hold; the unit separator serves the same end.
        source: "r.key || chr(31) || r.value",
        columns: 'r.key AS key, r.value AS value',
        item: (row) => ({ family: 'recall', seq: Number(row.seq), key: row.key as string, valueText: renderValue(JSON.parse(row.value as string) as JsonValue), source: row.source as string }),
        versionTable: schemaTable(connection.schema, 'recall_state'),
        recordsModel: false,
      },
      {
        family: 'lore',
        table: schemaTable(connection.schema, 'lore_entries'),
        staging: schemaTable(connection.schema, 'reindex_staging_lore'),
        source: 'r.content',
        columns: 'r.content AS text',
        item: (row) => ({ family: 'lore', seq: Number(row.seq), text: row.text as string, source: row.source as string }),
        versionTable: schemaTable(connection.schema, 'lore_book'),
        recordsModel: true,
      },
    ];
  }

  private pendingFrom(family: EntryFamily): string {
    return `FROM ${family.table} r LEFT JOIN ${family.staging} s ON s.seq = r.seq AND s.source = ${family.source} WHERE s.seq IS NULL`;
  }

  private async readMeta<T>(client: SqlClient, key: string): Promise<T | null> {
    const row = (await client.query<{ value: string }>(`SELECT value FROM ${this.meta} WHERE key = $1`, [key])).rows[0];
    return row === undefined ? null : (JSON.parse(row.value) as T);
  }

  private async writeMeta(client: SqlClient, key: string, value: unknown): Promise<void> {
    await client.query(`INSERT INTO ${this.meta} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [key, JSON.stringify(value)]);
  }

  private async count(client: SqlClient, sql: string, params: unknown[] = []): Promise<number> {
    return Number((await client.query<{ n: string | number }>(sql, params)).rows[0]?.n ?? 0);
  }

  async identity(): Promise<EmbedderIdentity | null> {
    return this.readMeta<EmbedderIdentity>(this.connection.read(), IDENTITY_KEY);
  }

  async claimIdentity(identity: EmbedderIdentity): Promise<IdentityClaim> {
    return this.connection.write(async (client) => {
      // The meta row of the identity is the lock two openers queue on (written or not, the key is claimed here).
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mnemo:identity:${this.meta}`]);
      const recorded = await this.readMeta<EmbedderIdentity>(client, IDENTITY_KEY);
      if (recorded !== null && sameIdentity(recorded, identity)) return { ok: true };
      // A chunk a rewind hid still holds its vector until the purge deletes it, but it is gone for every read: it
      // does not make the store another embedder's.
      const holders = [`${this.chunks} WHERE embedding IS NOT NULL AND ${visibleRow(this.rewoundChunks, 'chunks')}`, ...this.families.map((family) => `${family.table} WHERE embedding IS NOT NULL`)];
      const present = (await client.query<{ present: boolean }>(`SELECT ${holders.map((holder) => `EXISTS (SELECT 1 FROM ${holder})`).join(' OR ')} AS present`)).rows[0]?.present;
      if (present === true) return { ok: false, recorded };
      await this.writeMeta(client, IDENTITY_KEY, { provider: identity.provider, modelId: identity.modelId, dimensions: identity.dimensions });
      return { ok: true };
    });
  }

  async getCached(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const database = this.connection.read();
    for (let start = 0; start < hashes.length; start += BATCH) {
      const result = await database.query<{ hash: string; vector: string }>(
        `SELECT hash, vector::text AS vector FROM ${this.cache} WHERE model = $1 AND hash = ANY($2::text[])`,
        [model, hashes.slice(start, start + BATCH)],
      );
      for (const row of result.rows) found.set(row.hash, literalToVector(row.vector) as Float32Array);
    }
    return found;
  }

  async putCached(model: string, entries: readonly CachedVector[], limit: number): Promise<void> {
    if (entries.length === 0 || limit <= 0) return;
    await this.connection.write(async (client) => {
      // A cache write need not survive a power cut: do not wait for the disk at commit.
      await client.query("SELECT set_config('synchronous_commit', 'off', true)");
      await client.query(
        `INSERT INTO ${this.cache} (model, hash, vector) SELECT $1, hash, vector::vector FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS input (hash, vector, position)
         ORDER BY position ON CONFLICT (model, hash) DO NOTHING`,
        [model, entries.map((entry) => entry.hash), entries.map((entry) => vectorToLiteral(entry.vector))],
      );
      await client.query(`DELETE FROM ${this.cache} WHERE seq <= (SELECT MAX(seq) FROM ${this.cache}) - $1`, [limit]);
    });
  }

  private async chunkCursor(client: SqlClient): Promise<number> {
    return this.count(client, `SELECT COALESCE(MAX(seq), 0) AS n FROM ${this.staging}`);
  }

  private async progress(client: SqlClient, target: EmbedderIdentity): Promise<ReindexProgress> {
    const cursor = await this.chunkCursor(client);
    let done = await this.count(client, `SELECT COUNT(*) AS n FROM ${this.staging}`);
    let pending = await this.count(client, `SELECT COUNT(*) AS n FROM ${this.chunks} WHERE seq > $1 AND ${visibleRow(this.rewoundChunks, 'chunks')}`, [cursor]);
    for (const family of this.families) {
      const waiting = await this.count(client, `SELECT COUNT(*) AS n ${this.pendingFrom(family)}`);
      done += (await this.count(client, `SELECT COUNT(*) AS n FROM ${family.table}`)) - waiting;
      pending += waiting;
    }
    return { target, done, total: done + pending };
  }

  async beginReindex(target: EmbedderIdentity): Promise<ReindexProgress> {
    return this.connection.write(async (client) => {
      const current = await this.readMeta<EmbedderIdentity>(client, REINDEX_KEY);
      if (current === null || !sameIdentity(current, target)) {
        for (const table of [this.staging, ...this.families.map((family) => family.staging)]) await client.query(`DELETE FROM ${table}`);
        await this.writeMeta(client, REINDEX_KEY, target);
      }
      return this.progress(client, target);
    });
  }

  async reindexProgress(): Promise<ReindexProgress | null> {
    return this.connection.read().transaction(async (client) => {
      const target = await this.readMeta<EmbedderIdentity>(client, REINDEX_KEY);
      return target === null ? null : this.progress(client, target);
    }, { isolation: 'repeatable read', readOnly: true });
  }

  async nextToReindex(limit: number): Promise<ReindexItem[]> {
    const database = this.connection.read();
    const chunks = await database.query<{ seq: string | number; id: string; text: string }>(
      `SELECT seq, id, text FROM ${this.chunks} WHERE seq > $1 AND ${visibleRow(this.rewoundChunks, 'chunks')} ORDER BY seq LIMIT $2`,
      [await this.chunkCursor(database), limit],
    );
    if (chunks.rows.length > 0) return chunks.rows.map((row) => ({ family: 'chunks', seq: Number(row.seq), id: row.id, text: row.text }));
    for (const family of this.families) {
      const rows = await database.query<Record<string, unknown>>(`SELECT r.seq AS seq, ${family.columns}, ${family.source} AS source ${this.pendingFrom(family)} ORDER BY r.seq LIMIT $1`, [limit]);
      if (rows.rows.length > 0) return rows.rows.map(family.item);
    }
    return [];
  }

  async stageReindex(vectors: readonly ReindexVector[]): Promise<ReindexProgress> {
    return this.connection.write(async (client) => {
      const target = await this.readMeta<EmbedderIdentity>(client, REINDEX_KEY);
      if (target === null) throw new Error('stageReindex: no reindex in progress; call beginReindex first');
      for (const vector of vectors) {
        if (vector.family === 'chunks') {
          await client.query(
            `INSERT INTO ${this.staging} (seq, chunk_id, vector) VALUES ($1, $2, $3::vector) ON CONFLICT (seq) DO UPDATE SET chunk_id = EXCLUDED.chunk_id, vector = EXCLUDED.vector`,
            [vector.seq, vector.id, vectorToLiteral(vector.embedding)],
          );
          continue;
        }
        const family = this.families.find((candidate) => candidate.family === vector.family);
        if (family === undefined) continue;
        await client.query(
          `INSERT INTO ${family.staging} (seq, source, vector) VALUES ($1, $2, $3::vector) ON CONFLICT (seq) DO UPDATE SET source = EXCLUDED.source, vector = EXCLUDED.vector`,
          [vector.seq, vector.source, vectorToLiteral(vector.embedding)],
        );
      }
      return this.progress(client, target);
    });
  }

  async finishReindex(target: EmbedderIdentity): Promise<{ finished: boolean; pending: number }> {
    const result = await this.connection.write(async (client) => {
      const progress = await this.progress(client, target);
      const pending = progress.total - progress.done;
      if (pending > 0) return { finished: false, pending };
      await client.query(`UPDATE ${this.chunks} AS c SET embedding = (SELECT s.vector FROM ${this.staging} s WHERE s.seq = c.seq AND s.chunk_id = c.id)`);
      await client.query(`UPDATE ${schemaTable(this.connection.schema, 'saves')} SET version = version + 1, updated_at = $1`, [Date.now()]);
      await client.query(`DELETE FROM ${this.staging}`);
      for (const family of this.families) {
        const model = family.recordsModel ? ', embedding_model = $1' : '';
        await client.query(
          `UPDATE ${family.table} AS r SET embedding = (SELECT s.vector FROM ${family.staging} s WHERE s.seq = r.seq AND s.source = ${family.source})${model}`,
          family.recordsModel ? [`${target.provider}/${target.modelId}/${target.dimensions}`] : [],
        );
        await client.query(`UPDATE ${family.versionTable} SET version = version + 1 WHERE id = 1`);
        await client.query(`DELETE FROM ${family.staging}`);
      }
      await client.query(`DELETE FROM ${this.meta} WHERE key = $1`, [REINDEX_KEY]);
      await this.writeMeta(client, IDENTITY_KEY, { provider: target.provider, modelId: target.modelId, dimensions: target.dimensions });
      return { finished: true, pending: 0 };
    });
    if (result.finished) await this.afterReindex(target.dimensions);
    return result;
  }
}
