// The PostgreSQL adapter of the Store seam: a connection pool, migrations, one transaction per write, pgvector.
import { MnemoError } from '../../core/errors.js';
import { forkTargetTaken, requireForkable, requireForkTarget, saveTaken } from '../../core/fork-rules.js';
import { runRowProgramAsync } from '../../core/row-program.js';
import type { Chunk, Metadata, SaveSummary } from '../../core/types.js';
import { deleteLiving } from '../../living/store/delete-living.js';
import { forkLiving } from '../../living/store/fork-living.js';
import { writeLivingLayer } from '../../living/store/save-layer.js';
import { rewindLiving } from '../../living/store/rewind-living.js';
import { RowLivingStore } from '../../living/store/row-living-store.js';
import type { LivingStore } from '../../seams/living-store.js';
import type { ChunkPage, ChunkSelection, DeleteChunksOptions, ListChunksOptions, NewChunk, TurnSummary } from '../../seams/chunk-store.js';
import type { EmbeddingStore } from '../../seams/embedding-store.js';
import type { IndexRow, ScanOptions } from '../../seams/index-row.js';
import type { LoreStore } from '../../seams/lore-store.js';
import type { RecallStore } from '../../seams/recall-store.js';
import type { DeleteCounts, ForkCounts, ImportCounts, RewindCounts, SaveImport } from '../../seams/save-store.js';
import type { Store } from '../../seams/store.js';
import type { WriteResult } from '../../seams/write-result.js';
import type { VectorSearch } from '../../seams/vector-search.js';
import { isPostgresUrl, quoteLiteral, redactUrl, requireSchemaName } from './identifiers.js';
import { detectCitus, requireDistribution } from './distribution.js';
import { POSTGRES_MIGRATIONS, checkPostgresSchema, migratePostgres } from './migrations.js';
import { poolQueryable } from './queryable.js';
import { PostgresEmbeddingStore } from './embedding-store.js';
import { postgresLivingBackend, PostgresLivingRows, livingTables } from './living-rows.js';
import type { LivingTables } from './living-rows.js';
import { PostgresLoreStore } from './lore-store.js';
import { registerPostgresConnection, schemaTable } from './postgres-connection.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { PgPoolLike, Queryable, SqlClient, SqlResult, TransactionOptions } from './queryable.js';
import { PostgresRecallStore } from './recall-store.js';
import { BackgroundPurge } from '../background-purge.js';
import { deleteAllRows, hideRowsAfter, pendingRewinds, PURGE_BATCH, purgeRewoundRows, rewoundTables, visibleAmong, visibleRow } from './rewound-rows.js';
import type { RewoundTables } from './rewound-rows.js';
import { PostgresVectorSearch } from './vector-search.js';
import type { VectorSearchSettings } from './vector-search.js';
import { literalToVector, vectorToLiteral } from './vectors.js';
import { requireListChunksOptions } from '../list-chunks-options.js';

/** Options of the PostgreSQL store: give exactly one of `url`, `pool` or `client`. */
export interface PostgresStoreOptions {
  /** A `postgres://` URL: Mnemo makes a `pg` pool for it and ends it on close. */
  url?: string;
  /** A `pg.Pool` you made; left open on close. */
  pool?: PgPoolLike;
  /** Any Queryable, e.g. PGlite through `pgliteQueryable(db)`. */
  client?: Queryable;
  /** The schema holding Mnemo's tables (created if absent); default `mnemo`. */
  schema?: string;
  /** Connections of the pool Mnemo makes for `url` (default 10). */
  poolSize?: number;
  /** Tuning of the semantic arm (exact-search threshold, HNSW scan limits). */
  vectorSearch?: Partial<VectorSearchSettings>;
  /**
   * `automatic` (default): the HNSW index of a vector length is created when the first vector of that length is
   * written, and every later write updates it. `manual`: writes never create one; call `createVectorIndexes()`
   * after a bulk import (building an index once is several times faster than growing it row by row).
   */
  vectorIndexes?: 'automatic' | 'manual';
  /**
   * Open without writing (a read replica): no migrations (the schema must already be at this build's), and
   * every write fails with UNSUPPORTED.
   */
  readonly?: boolean;
  /**
   * Citus: distribute the per-save tables by save id (co-located, one shard group per save) and make the shared
   * tables reference tables, at migration. Default: whenever the database has the citus extension. `true` without
   * Citus fails with UNSUPPORTED; so does a writable store opened on a Citus worker node (open the coordinator).
   */
  distributed?: boolean;
}

interface ChunkRow {
  id: string;
  save_id: string;
  turn_id: string | number;
  chunk_type: string;
  text: string;
  entry_id: string | null;
  metadata: Metadata;
  created_at: string | number;
}

interface ScanRow {
  seq: string | number;
  id: string;
  turn_id: string | number;
  chunk_type: string;
  text: string;
  embedding?: string | null;
  dimensions?: number | null;
  metadata?: Metadata;
}

/** The conditions of a listing: save, turn range, and a type left out (none when $4 is null), as on SQLite. */
const LISTING = 'save_id = $1 AND turn_id >= $2 AND turn_id <= $3 AND chunk_type IS DISTINCT FROM $4::text';

/** The parameters of a listing: save, turn range, excluded type, limit (null = none), offset. */
function listingParameters(saveId: string, options: ListChunksOptions): unknown[] {
  return [saveId, options.fromTurnId ?? 0, options.toTurnId ?? Number.MAX_SAFE_INTEGER, options.excludeChunkType ?? null, options.limit ?? null, options.offset ?? 0];
}

const CHUNK_COLUMNS = 'id, save_id, turn_id, chunk_type, text, entry_id, metadata, created_at';
/** How long the purge of rewound rows waits after its first failed step (it doubles after each, up to a minute). */
const PURGE_RETRY_MS = 1000;
/** Rows per statement when inserting, reading by id, or scanning. */
const BATCH = 2000;

function toChunk(row: ChunkRow): Chunk {
  return {
    id: row.id,
    saveId: row.save_id,
    turnId: Number(row.turn_id),
    chunkType: row.chunk_type,
    text: row.text,
    entryId: row.entry_id,
    metadata: row.metadata,
    createdAt: Number(row.created_at),
  };
}

function versionAtLeast(version: string, minimum: readonly number[]): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < minimum.length; index++) {
    const part = parts[index] ?? 0;
    const wanted = minimum[index] as number;
    if (part !== wanted) return part > wanted;
  }
  return true;
}

async function loadPg(): Promise<{ Pool: new (config: { connectionString: string; max: number }) => PgPoolLike & { on(event: 'error', listener: (error: Error) => void): unknown } }> {
  try {
    const module = (await import('pg')) as unknown as { default?: unknown; Pool?: unknown };
    return (module.default ?? module) as Awaited<ReturnType<typeof loadPg>>;
  } catch (error) {
    throw new MnemoError('DEPENDENCY_MISSING', `Opening a postgres:// URL needs \`pg\`, an optional peer dependency, which could not be loaded (${(error as Error).message}). Install it with \`npm i pg@8\`.`, { cause: error });
  }
}

/**
 * Mnemo on PostgreSQL with pgvector: every application server can open the same database. Each write is one
 * transaction that bumps the save's version (so every process's in-memory BM25 index knows when to refresh);
 * vectors are searched in the database through HNSW (`vectorSearch`), so processes do not hold them.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url: 'postgres://mnemo@db.internal/game' });
 * const memory = await openMemory({ store, embedder });
 * ```
 */
export class PostgresStore implements Store {
  readonly provider = 'postgres';
  readonly location: string;
  /** The schema holding Mnemo's tables. */
  readonly schema: string;
  /** The semantic arm (HNSW indexes per vector length, filtered search). */
  readonly vectors: PostgresVectorSearch;
  /**
   * The store's vector-search capability, on `vectors`: nearest neighbours searched in PostgreSQL (HNSW with
   * iterative scans, exact when small or starved, with neighbour context when asked), scores of given chunks, and
   * scans without vectors.
   */
  readonly vectorSearch: VectorSearch;
  readonly embeddings: EmbeddingStore;
  readonly recall: RecallStore;
  readonly lore: LoreStore;
  readonly living: LivingStore;
  private readonly livingTables: LivingTables;
  private readonly rewound: RewoundTables;
  /** The purge of rewound rows (rewound-rows.ts), save by save. */
  private readonly purge = new BackgroundPurge({
    step: (saveId) => this.sql.transaction((client) => purgeRewoundRows(client, this.rewound.all, PURGE_BATCH, saveId)),
    retryAfter: (_error, previousMs) => (previousMs === null ? PURGE_RETRY_MS : Math.min(60_000, previousMs * 2)),
  });
  private closed = false;
  private readonly tables: { meta: string; saves: string; chunks: string };
  /** Whether writes create the HNSW index of a new vector length (`automatic`) or leave it to you (`manual`). */
  readonly vectorIndexes: 'automatic' | 'manual';
  /** True when opened with `readonly` (writes refused). */
  readonly readonly: boolean;
  /** True on Citus with the per-save tables distributed by save id (see distribution.ts). */
  readonly distributed: boolean;

  private constructor(private readonly sql: Queryable, location: string, schema: string, vectors: PostgresVectorSearch, options: { automaticIndexes: boolean; readonly: boolean; distributed: boolean }) {
    this.location = location;
    this.schema = schema;
    this.vectors = vectors;
    this.vectorSearch = {
      search: async (saveId, vector, filter, limit, options = {}) => {
        this.ensureOpen();
        return vectors.search(saveId, vector, filter, limit, options.neighbourWeight ?? 0, options.statistics);
      },
      score: async (saveId, vector, ids, options = {}) => {
        this.ensureOpen();
        return vectors.score(saveId, vector, ids, options.neighbourWeight ?? 0);
      },
      scanChunks: async (saveId, visit, options) => this.scan(saveId, visit, false, options),
    };
    this.vectorIndexes = options.automaticIndexes ? 'automatic' : 'manual';
    this.readonly = options.readonly;
    this.distributed = options.distributed;
    this.tables = { meta: schemaTable(schema, 'meta'), saves: schemaTable(schema, 'saves'), chunks: schemaTable(schema, 'chunks') };
    const connection: PostgresConnection = { schema, read: () => this.database(), write: (work, transaction) => this.write(work, transaction) };
    registerPostgresConnection(this, connection);
    this.embeddings = new PostgresEmbeddingStore(connection, async (dimensions) => {
      if (this.vectorIndexes === 'automatic') await this.vectors.ensureIndex(dimensions);
    });
    this.recall = new PostgresRecallStore(connection);
    this.lore = new PostgresLoreStore(connection);
    this.livingTables = livingTables(schema);
    this.rewound = rewoundTables(schema);
    this.living = new RowLivingStore(postgresLivingBackend(connection));
  }

  /**
   * Runs the purge of rewound rows in short transactions, one step after another, until `saveId`'s are gone (null:
   * every save's, when the store is opened, so that a purge a crash or `close` cut short goes on). A step names its
   * save (one shard on Citus); only the search of any save reads every shard. Reads never see hidden rows, so when
   * the purge runs does not change them; after a failed step the purge waits (1 s, doubling up to a minute).
   */
  private schedulePurge(saveId: string | null): void {
    if (this.closed || this.readonly) return;
    this.purge.schedule(saveId);
  }

  /**
   * SQL that holds for a chunk `alias` (`chunks` for the table named without one) that no pending rewind hides;
   * `save` is the SQL of the save's id when the statement reads one save. Every read of chunks applies it.
   */
  private visible(alias: string, save?: string): string {
    return visibleRow(this.rewound.chunks, alias, save);
  }

  /** Connects, migrates (under the schema lock) and returns the store. Prefer `openPostgresStore`. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const given = [options.url, options.pool, options.client].filter((value) => value !== undefined).length;
    if (given !== 1) {
      throw new MnemoError('INVALID_INPUT', `openPostgresStore: expected exactly one of \`url\`, \`pool\` or \`client\`, got ${given}. Pass a postgres:// URL, a pg.Pool, or a Queryable such as pgliteQueryable(db).`);
    }
    const schema = requireSchemaName(options.schema ?? 'mnemo');
    let sql: Queryable;
    let location: string;
    if (options.url !== undefined) {
      if (!isPostgresUrl(options.url)) {
        throw new MnemoError('INVALID_INPUT', `url: expected a postgres:// or postgresql:// URL, got ${JSON.stringify(redactUrl(options.url))}.`, { details: { field: 'url' } });
      }
      const { Pool } = await loadPg();
      const pool = new Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
      pool.on('error', () => { /* an idle client lost its connection; the pool replaces it on the next checkout */ });
      sql = poolQueryable(pool, { owned: true });
      location = redactUrl(options.url);
    } else if (options.pool !== undefined) {
      sql = poolQueryable(options.pool, { owned: false });
      location = 'postgres (pool)';
    } else {
      sql = options.client as Queryable;
      location = 'postgres (client)';
    }
    location = `${location}#${schema}`;
    try {
      const distributed = requireDistribution(await detectCitus(sql), { distributed: options.distributed, readonly: options.readonly ?? false, location });
      if (options.readonly) await checkPostgresSchema(sql, schema);
      else await migratePostgres(sql, schema, POSTGRES_MIGRATIONS, { distribute: distributed });
      const extension = await sql.query<{ version: string }>("SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'");
      const iterativeScan = versionAtLeast(extension.rows[0]?.version ?? '0', [0, 8, 0]);
      const vectors = new PostgresVectorSearch(sql, schema, { iterativeScan, distributed, settings: options.vectorSearch });
      const store = new PostgresStore(sql, location, schema, vectors, { automaticIndexes: (options.vectorIndexes ?? 'automatic') === 'automatic', readonly: options.readonly ?? false, distributed });
      store.schedulePurge(null);
      return store;
    } catch (error) {
      await sql.close().catch(() => undefined);
      if (error instanceof MnemoError) throw error;
      throw new MnemoError('STORE_FAILURE', `Could not open the PostgreSQL store at ${location}: ${(error as Error).message}. Check the URL, that the server is running, and that the user may create the schema.`, { cause: error, details: { location } });
    }
  }

  /** The connection, for the sub-stores that share this database (through their connection). */
  private database(): Queryable {
    this.ensureOpen();
    return this.sql;
  }

  private ensureOpen(): void {
    if (this.closed) throw new MnemoError('STORE_CLOSED', `The store at ${this.location} is closed. Open it again with openMemory().`);
  }

  private ensureWritable(): void {
    this.ensureOpen();
    if (this.readonly) throw new MnemoError('UNSUPPORTED', `The store at ${this.location} was opened read-only (a replica), so it cannot write. Write through a store opened on the primary.`);
  }

  /**
   * Runs `work` in one transaction on one connection (READ COMMITTED unless asked; writes lock their save's row
   * first). A serialization failure or deadlock runs `work` again from the start.
   */
  private write<T>(work: (client: SqlClient) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.ensureWritable();
    return this.sql.transaction(work, options);
  }

  /**
   * Bumps a save's version inside a write, creating the save if needed, and adds `delta` to its chunk count;
   * returns [previous, current]. The row lock it takes serializes writers of one save until commit.
   */
  private async bump(client: SqlClient, saveId: string, delta = 0): Promise<[number, number]> {
    const now = Date.now();
    const result = await client.query<{ version: string | number }>(
      `INSERT INTO ${this.tables.saves} AS s (save_id, version, chunk_count, created_at, updated_at) VALUES ($1, 1, $2, $3, $3)
       ON CONFLICT (save_id) DO UPDATE SET version = s.version + 1, chunk_count = s.chunk_count + EXCLUDED.chunk_count, updated_at = EXCLUDED.updated_at,
         created_at = CASE WHEN s.deleted_at IS NULL THEN s.created_at ELSE EXCLUDED.created_at END, deleted_at = NULL
       RETURNING version`,
      [saveId, delta, now],
    );
    const version = Number(result.rows[0]?.version);
    return [version - 1, version];
  }

  /**
   * Creates the row of a new save (version 1), or brings a deleted save's tombstone back one version on; returns the
   * version, or null when a live save holds the id (its row is locked until commit, so a second claim waits, then
   * gets null).
   */
  private async claimSave(client: SqlClient, saveId: string): Promise<number | null> {
    const now = Date.now();
    const claimed = await client.query<{ version: string | number }>(
      `INSERT INTO ${this.tables.saves} AS s (save_id, version, chunk_count, created_at, updated_at) VALUES ($1, 1, 0, $2, $2)
       ON CONFLICT (save_id) DO UPDATE SET version = s.version + 1, chunk_count = 0, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, deleted_at = NULL
       WHERE s.deleted_at IS NOT NULL
       RETURNING version`,
      [saveId, now],
    );
    return claimed.rows.length === 1 ? Number(claimed.rows[0]?.version) : null;
  }

  /** Locks a save's row for the rest of the write and returns its version (0 when the save does not exist). */
  private async lockSave(client: SqlClient, saveId: string): Promise<number> {
    const result = await client.query<{ version: string | number }>(`SELECT version FROM ${this.tables.saves} WHERE save_id = $1 FOR UPDATE`, [saveId]);
    return Number(result.rows[0]?.version ?? 0);
  }

  private async insertAll(client: SqlClient, saveId: string, chunks: readonly NewChunk[]): Promise<void> {
    for (let start = 0; start < chunks.length; start += BATCH) {
      const batch = chunks.slice(start, start + BATCH);
      await client.query(
        `INSERT INTO ${this.tables.chunks} (id, save_id, turn_id, chunk_type, text, entry_id, metadata, created_at, embedding)
         SELECT id, $1, turn_id, chunk_type, text, entry_id, metadata::jsonb, created_at, embedding::vector
         FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[])
           WITH ORDINALITY AS input (id, turn_id, chunk_type, text, entry_id, metadata, created_at, embedding, position)
         ORDER BY position`,
        [
          saveId,
          batch.map((chunk) => chunk.id),
          batch.map((chunk) => chunk.turnId),
          batch.map((chunk) => chunk.chunkType),
          batch.map((chunk) => chunk.text),
          batch.map((chunk) => chunk.entryId),
          batch.map((chunk) => JSON.stringify(chunk.metadata)),
          batch.map((chunk) => chunk.createdAt),
          batch.map((chunk) => vectorToLiteral(chunk.embedding)),
        ],
      );
    }
  }

  /** Creates the HNSW index of each vector length a write brings, before the write's transaction. */
  private async prepareVectors(chunks: readonly NewChunk[]): Promise<void> {
    if (this.vectorIndexes === 'manual') return;
    const lengths = new Set(chunks.flatMap((chunk) => (chunk.embedding === null ? [] : [chunk.embedding.length])));
    for (const length of lengths) await this.vectors.ensureIndex(length);
  }

  async insertChunks(chunks: readonly NewChunk[]): Promise<WriteResult> {
    this.ensureWritable();
    if (chunks.length === 0) return { previousVersion: 0, version: 0, count: 0 };
    const saveIds = new Set(chunks.map((chunk) => chunk.saveId));
    if (saveIds.size !== 1) throw new MnemoError('INVALID_INPUT', `One write holds chunks of one save, got ${saveIds.size} saves. Write each save separately.`);
    const saveId = chunks[0]!.saveId;
    await this.prepareVectors(chunks);
    return this.write(async (client) => {
      // The version first: its row lock orders this save's writers, so insertion order (seq) follows versions.
      const [previousVersion, version] = await this.bump(client, saveId, chunks.length);
      await this.insertAll(client, saveId, chunks);
      return { previousVersion, version, count: chunks.length };
    });
  }

  async replaceTurn(saveId: string, turnId: number, chunkType: string, chunks: readonly NewChunk[]): Promise<WriteResult & { removed: number }> {
    this.ensureWritable();
    await this.prepareVectors(chunks);
    return this.write(async (client) => {
      const current = await this.lockSave(client, saveId);
      const deleted = await client.query(`DELETE FROM ${this.tables.chunks} WHERE save_id = $1 AND turn_id = $2 AND chunk_type = $3 AND ${this.visible('chunks', '$1')}`, [saveId, turnId, chunkType]);
      const removed = deleted.rowCount;
      if (removed === 0 && chunks.length === 0) return { previousVersion: current, version: current, count: 0, removed };
      const [previousVersion, version] = await this.bump(client, saveId, chunks.length - removed);
      await this.insertAll(client, saveId, chunks);
      return { previousVersion, version, count: chunks.length, removed };
    });
  }

  /** Deletes the selected chunks of the save in one transaction; every statement names the save (one shard on Citus). */
  async deleteChunks(saveId: string, selection: ChunkSelection, options: DeleteChunksOptions = {}): Promise<WriteResult & { removed: string[] }> {
    this.ensureWritable();
    return this.write(async (client) => {
      const current = await this.lockSave(client, saveId);
      const [column, values] = 'entryId' in selection ? ['entry_id = $2', selection.entryId] : ['id = ANY($2::text[])', [...selection.ids]];
      const deleted = await client.query<{ id: string }>(
        `DELETE FROM ${this.tables.chunks} WHERE save_id = $1 AND ${column} AND chunk_type IS DISTINCT FROM $3 AND ${this.visible('chunks', '$1')} RETURNING id`,
        [saveId, values, options.excludeChunkType ?? null],
      );
      const removed = deleted.rows.map((row) => row.id);
      if (removed.length === 0) return { previousVersion: current, version: current, count: 0, removed };
      const [previousVersion, version] = await this.bump(client, saveId, -removed.length);
      return { previousVersion, version, count: removed.length, removed };
    });
  }

  /** Rewinds every layer of the save (chunks, and living memory's facts, beliefs, models and jobs) in one transaction. */
  async rewind(saveId: string, turnId: number): Promise<WriteResult & { removed: RewindCounts }> {
    this.ensureWritable();
    const result = await this.write(async (client): Promise<WriteResult & { removed: RewindCounts }> => {
      const current = await this.lockSave(client, saveId);
      // Chunks and facts are hidden at once and deleted by the purge: deleting many rows here would write each one.
      const chunks = await hideRowsAfter(client, this.rewound.chunks, saveId, turnId);
      const living = await runRowProgramAsync(rewindLiving(saveId, turnId), new PostgresLivingRows(client, this.livingTables));
      if (chunks === 0) return { previousVersion: current, version: current, count: 0, removed: { chunks, living } };
      const [previousVersion, version] = await this.bump(client, saveId, -chunks);
      return { previousVersion, version, count: chunks, removed: { chunks, living } };
    });
    if (result.removed.chunks > 0 || result.removed.living.facts > 0) this.schedulePurge(saveId);
    return result;
  }

  /**
   * Copies a save as of `atTurn` into a new save, every layer, in one REPEATABLE READ transaction (one snapshot of
   * the source; a concurrent write to it makes the fork run again). Copied chunks get new ids.
   */
  async fork(saveId: string, newSaveId: string, atTurn: number): Promise<ForkCounts> {
    this.ensureWritable();
    requireForkTarget(saveId, newSaveId);
    return this.write(async (client) => {
      const living = new PostgresLivingRows(client, this.livingTables);
      const holdsData = async (id: string) => (await client.query(`SELECT 1 FROM ${this.tables.saves} WHERE save_id = $1 AND deleted_at IS NULL`, [id])).rows.length > 0 || (await living.holdsData(id));
      requireForkable(saveId, newSaveId, { targetHoldsData: await holdsData(newSaveId), sourceHoldsData: await holdsData(saveId) });
      // The new save's row first: a second fork into the same id waits on it, then conflicts.
      if ((await this.claimSave(client, newSaveId)) === null) throw forkTargetTaken(newSaveId);
      // The save ids are literals (see quoteLiteral): on Citus the copy then reads one shard and writes one.
      const [target, source] = [quoteLiteral(newSaveId), quoteLiteral(saveId)];
      // The source's rewind records as parameters: the copy may read no second table on Citus.
      const rewinds = await pendingRewinds(client, this.rewound.chunks, saveId);
      const chunks = (await client.query(
        `INSERT INTO ${this.tables.chunks} (id, save_id, turn_id, chunk_type, text, entry_id, metadata, created_at, embedding)
         SELECT gen_random_uuid()::text, ${target}, turn_id, chunk_type, text, entry_id, jsonb_set(metadata, '{saveId}', to_jsonb(${target}::text)), created_at, embedding
         FROM ${this.tables.chunks} WHERE save_id = ${source} AND turn_id <= $1 AND ${visibleAmong(this.rewound.chunks, 'chunks', '$2', '$3')} ORDER BY seq`,
        [atTurn, rewinds.turns, rewinds.orders],
      )).rowCount;
      await client.query(`UPDATE ${this.tables.saves} SET chunk_count = $2 WHERE save_id = $1`, [newSaveId, chunks]);
      return { chunks, living: await runRowProgramAsync(forkLiving(saveId, newSaveId, atTurn), living) };
    }, { isolation: 'repeatable read' });
  }

  /** Removes every layer of the save and its row in one transaction; every statement names the save (one shard group on Citus). */
  async deleteSave(saveId: string): Promise<DeleteCounts> {
    this.ensureWritable();
    return this.write(async (client) => {
      await this.lockSave(client, saveId);
      const chunks = await deleteAllRows(client, this.rewound.chunks, saveId);
      const living = await runRowProgramAsync(deleteLiving(saveId), new PostgresLivingRows(client, this.livingTables));
      // The facts the living layer hid go too, with the save's rewind records, at once.
      await deleteAllRows(client, this.rewound.facts, saveId);
      // The row stays as a tombstone one version on: a save written again under this id never has a version it
      // had before, so no index of the old save (another process's, or a persisted one) is ever taken as current.
      const now = Date.now();
      await client.query(`UPDATE ${this.tables.saves} SET version = version + 1, chunk_count = 0, updated_at = $2, deleted_at = $2 WHERE save_id = $1 AND deleted_at IS NULL`, [saveId, now]);
      return { chunks, living };
    });
  }

  /**
   * Writes a whole save in one transaction: the save's row first (a concurrent import or fork into the same id waits
   * on it, then conflicts), the chunk batches as they come, the living layer, then the chunk count. Every statement
   * names the save, so on Citus the whole import stays on one shard group.
   */
  async importSave(saveId: string, save: SaveImport): Promise<WriteResult & { imported: ImportCounts }> {
    this.ensureWritable();
    if (save.vectorDimensions !== null && this.vectorIndexes === 'automatic') await this.vectors.ensureIndex(save.vectorDimensions);
    return this.write(async (client) => {
      const living = new PostgresLivingRows(client, this.livingTables);
      if (await living.holdsData(saveId)) throw saveTaken(saveId, 'import');
      const version = await this.claimSave(client, saveId);
      if (version === null) throw saveTaken(saveId, 'import');
      let chunks = 0;
      for (const batch of save.chunks) {
        await this.insertAll(client, saveId, batch);
        chunks += batch.length;
      }
      const imported = await runRowProgramAsync(writeLivingLayer(saveId, save.living), living);
      await client.query(`UPDATE ${this.tables.saves} SET chunk_count = $2 WHERE save_id = $1`, [saveId, chunks]);
      return { previousVersion: version - 1, version, count: chunks, imported: { chunks, living: imported } };
    });
  }

  async pageChunks(saveId: string, options: { after?: number; limit: number; vectors?: boolean }): Promise<ChunkPage> {
    this.ensureOpen();
    const vectors = options.vectors !== false;
    const result = await this.sql.query<ChunkRow & { seq: string | number; embedding?: string | null }>(
      `SELECT seq, ${CHUNK_COLUMNS}${vectors ? ', embedding::text AS embedding' : ''} FROM ${this.tables.chunks} WHERE save_id = $1 AND seq > $2 AND ${this.visible('chunks', '$1')} ORDER BY seq LIMIT $3`,
      [saveId, options.after ?? 0, options.limit],
    );
    const chunks = result.rows.map((row) => ({ ...toChunk(row), embedding: vectors ? literalToVector(row.embedding ?? null) : null }));
    return { chunks, next: result.rows.length < options.limit ? null : Number(result.rows[result.rows.length - 1]!.seq) };
  }

  async countChunks(saveId: string, chunkType?: string): Promise<number> {
    this.ensureOpen();
    const result = chunkType === undefined
      ? await this.sql.query<{ n: string | number }>(`SELECT COUNT(*) AS n FROM ${this.tables.chunks} WHERE save_id = $1 AND ${this.visible('chunks', '$1')}`, [saveId])
      : await this.sql.query<{ n: string | number }>(`SELECT COUNT(*) AS n FROM ${this.tables.chunks} WHERE save_id = $1 AND chunk_type = $2 AND ${this.visible('chunks', '$1')}`, [saveId, chunkType]);
    return Number(result.rows[0]?.n ?? 0);
  }

  async getChunks(ids: readonly string[], saveId?: string): Promise<Chunk[]> {
    this.ensureOpen();
    if (ids.length === 0) return [];
    const found = new Map<string, Chunk>();
    for (let start = 0; start < ids.length; start += BATCH) {
      const batch = ids.slice(start, start + BATCH);
      const result = saveId === undefined
        ? await this.sql.query<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${this.tables.chunks} WHERE id = ANY($1::text[]) AND ${this.visible('chunks')}`, [batch])
        : await this.sql.query<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${this.tables.chunks} WHERE save_id = $2 AND id = ANY($1::text[]) AND ${this.visible('chunks', '$2')}`, [batch, saveId]);
      for (const row of result.rows) found.set(row.id, toChunk(row));
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  async listChunks(saveId: string, given?: ListChunksOptions): Promise<Chunk[]> {
    const options = requireListChunksOptions(given);
    this.ensureOpen();
    const listing = `FROM ${this.tables.chunks} WHERE ${LISTING} AND ${this.visible('chunks', '$1')} ORDER BY turn_id, seq LIMIT $5 OFFSET $6`;
    if (options.maxTextBytes === undefined) return (await this.sql.query<ChunkRow>(`SELECT ${CHUNK_COLUMNS} ${listing}`, listingParameters(saveId, options))).rows.map(toChunk);
    // The page's chunks by their text sizes first (octet_length reads no text, TOASTed or not), then only those chunks' rows.
    const result = await this.sql.query<ChunkRow>(
      `SELECT ${CHUNK_COLUMNS} FROM ${this.tables.chunks} WHERE save_id = $1 AND seq IN (
         SELECT seq FROM (SELECT seq, SUM(bytes) OVER (ORDER BY turn_id, seq ROWS UNBOUNDED PRECEDING) - bytes AS before
                          FROM (SELECT seq, turn_id, octet_length(text) AS bytes ${listing}) AS page) AS sized
         WHERE before < $7)
       ORDER BY turn_id, seq`,
      [...listingParameters(saveId, options), options.maxTextBytes],
    );
    return result.rows.map(toChunk);
  }

  async listTurns(saveId: string, given?: ListChunksOptions): Promise<TurnSummary[]> {
    const options = requireListChunksOptions(given);
    this.ensureOpen();
    const result = await this.sql.query<{ turn_id: string | number; chunks: string | number; types: string[] }>(
      `SELECT turn_id, COUNT(*) AS chunks, array_agg(DISTINCT chunk_type) AS types FROM ${this.tables.chunks}
       WHERE ${LISTING} AND ${this.visible('chunks', '$1')} GROUP BY turn_id ORDER BY turn_id LIMIT $5 OFFSET $6`,
      listingParameters(saveId, options),
    );
    return result.rows.map((row) => ({ turnId: Number(row.turn_id), chunks: Number(row.chunks), chunkTypes: [...row.types].sort() }));
  }

  /**
   * Streams a save's chunks in insertion order, in batches read by keyset (`seq > last`), all inside one
   * REPEATABLE READ transaction: the version and every batch come from one snapshot, so the version returned is
   * exactly the one the rows reflect.
   */
  async scanChunks(saveId: string, visit: (row: IndexRow) => void, options?: ScanOptions): Promise<number> {
    return this.scan(saveId, visit, true, options);
  }

  /** `scanChunks`, or (`withVectors` false, for `vectorSearch.scanChunks`) the same rows with only the vectors' lengths read. */
  private async scan(saveId: string, visit: (row: IndexRow) => void, withVectors: boolean, options: ScanOptions = {}): Promise<number> {
    this.ensureOpen();
    const keys = options.metadataKeys !== undefined && options.metadataKeys.length > 0 ? options.metadataKeys : undefined;
    // Only the keys asked for leave the server: one jsonb object of them per row (or the whole metadata).
    const metadataColumn = keys === undefined ? '' : keys === 'all' ? ', metadata' : `, jsonb_strip_nulls(jsonb_build_object(${keys.map((_, index) => `$${index + 3}::text, metadata -> $${index + 3}::text`).join(', ')})) AS metadata`;
    const vectorColumn = (withVectors ? 'embedding::text AS embedding' : 'vector_dims(embedding) AS dimensions') + metadataColumn;
    return this.sql.transaction(async (client) => {
      const saved = await client.query<{ version: string | number }>(`SELECT version FROM ${this.tables.saves} WHERE save_id = $1`, [saveId]);
      const version = Number(saved.rows[0]?.version ?? 0);
      let last: string | number = 0;
      for (;;) {
        const batch: SqlResult<ScanRow> = await client.query<ScanRow>(
          `SELECT seq, id, turn_id, chunk_type, text, ${vectorColumn} FROM ${this.tables.chunks}
           WHERE save_id = $1 AND seq > $2 AND ${this.visible('chunks', '$1')} ORDER BY seq LIMIT ${BATCH}`,
          [saveId, last, ...(keys === undefined || keys === 'all' ? [] : keys)],
        );
        for (const row of batch.rows) {
          const indexRow: IndexRow = withVectors
            ? { id: row.id, turnId: Number(row.turn_id), chunkType: row.chunk_type, text: row.text, embedding: literalToVector(row.embedding) }
            : { id: row.id, turnId: Number(row.turn_id), chunkType: row.chunk_type, text: row.text, embedding: null, dimensions: row.dimensions ?? null };
          if (keys !== undefined) indexRow.metadata = row.metadata ?? {};
          visit(indexRow);
        }
        if (batch.rows.length < BATCH) return version;
        last = batch.rows[batch.rows.length - 1]!.seq;
      }
    }, { isolation: 'repeatable read', readOnly: true });
  }

  /**
   * Creates the HNSW index of every vector length stored that lacks one (with `vectorIndexes: 'manual'`, after a
   * bulk import); returns the lengths. Reads every row once.
   */
  async createVectorIndexes(): Promise<number[]> {
    this.ensureWritable();
    const result = await this.sql.query<{ dimensions: number }>(`SELECT DISTINCT vector_dims(embedding) AS dimensions FROM ${this.tables.chunks} WHERE embedding IS NOT NULL AND ${this.visible('chunks')} ORDER BY 1`);
    const lengths = result.rows.map((row) => Number(row.dimensions));
    for (const length of lengths) await this.vectors.ensureIndex(length);
    return lengths;
  }

  /**
   * Refreshes the planner's statistics of Mnemo's tables. Autovacuum does this on its own within minutes; call it
   * after a bulk import so PostgreSQL picks the HNSW index for large saves at once (without statistics it
   * assumes small tables and compares every vector: exact, but slow on a large save).
   */
  async analyze(): Promise<void> {
    this.ensureWritable();
    await this.sql.query(`ANALYZE ${this.tables.saves}, ${this.tables.chunks}`);
  }

  async saveVersion(saveId: string): Promise<number> {
    this.ensureOpen();
    const result = await this.sql.query<{ version: string | number }>(`SELECT version FROM ${this.tables.saves} WHERE save_id = $1`, [saveId]);
    return Number(result.rows[0]?.version ?? 0);
  }

  async listSaves(): Promise<SaveSummary[]> {
    this.ensureOpen();
    const result = await this.sql.query<{ save_id: string; version: string | number; chunks: string | number; turns: string | number; min_turn: string | number | null; max_turn: string | number | null }>(
      `SELECT s.save_id, s.version, COUNT(c.seq) AS chunks, COUNT(DISTINCT c.turn_id) AS turns, MIN(c.turn_id) AS min_turn, MAX(c.turn_id) AS max_turn
       FROM ${this.tables.saves} s LEFT JOIN ${this.tables.chunks} c ON c.save_id = s.save_id AND ${this.visible('c')}
       WHERE s.deleted_at IS NULL
       GROUP BY s.save_id, s.version ORDER BY s.save_id COLLATE "C"`,
    );
    return result.rows.map((row) => ({
      saveId: row.save_id,
      version: Number(row.version),
      chunks: Number(row.chunks),
      turns: Number(row.turns),
      minTurnId: row.min_turn === null ? null : Number(row.min_turn),
      maxTurnId: row.max_turn === null ? null : Number(row.max_turn),
    }));
  }

  async getMeta(key: string): Promise<string | null> {
    this.ensureOpen();
    const result = await this.sql.query<{ value: string }>(`SELECT value FROM ${this.tables.meta} WHERE key = $1`, [key]);
    return result.rows[0]?.value ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.ensureWritable();
    await this.sql.query(`INSERT INTO ${this.tables.meta} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [key, value]);
  }

  /** Closes the pool Mnemo made (a pool or client you passed stays open). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.purge.stop();
    await this.sql.close();
  }
}
