// The SQLite adapter of the Store seam: one file, WAL, every write one IMMEDIATE transaction.
import { randomUUID } from 'node:crypto';
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { MnemoError, asBusyError, busyError, isMnemoError } from '../../core/errors.js';
import { requireForkable } from '../../core/fork-rules.js';
import { pickMetadata } from '../../core/pick-metadata.js';
import { runRowProgram } from '../../core/row-program.js';
import type { Chunk, SaveSummary } from '../../core/types.js';
import { deleteLiving } from '../../living/store/delete-living.js';
import { forkLiving } from '../../living/store/fork-living.js';
import { writeLivingLayer } from '../../living/store/save-layer.js';
import { rewindLiving } from '../../living/store/rewind-living.js';
import { RowLivingStore } from '../../living/store/row-living-store.js';
import { syncLivingBackend } from '../../living/store/sync-living-backend.js';
import type { EmbeddingStore } from '../../seams/embedding-store.js';
import type { LivingStore } from '../../seams/living-store.js';
import type { LoreStore } from '../../seams/lore-store.js';
import type { RecallStore } from '../../seams/recall-store.js';
import type { IndexRow, ScanOptions } from '../../seams/index-row.js';
import type { ChunkPage, ChunkSelection, DeleteChunksOptions, ListChunksOptions, NewChunk, TurnSummary } from '../../seams/chunk-store.js';
import type { DeleteCounts, ForkCounts, ImportCounts, RewindCounts, SaveImport } from '../../seams/save-store.js';
import type { ChunkVectors, Store } from '../../seams/store.js';
import type { WriteResult } from '../../seams/write-result.js';
import { saveTaken } from '../../core/fork-rules.js';
import { SqliteEmbeddingStore } from './embedding-store.js';
import { SqliteLoreStore } from './lore-store.js';
import { SqliteLivingRows } from './living-rows.js';
import { LOCK_ATTEMPT_MS, openDatabase } from './open-database.js';
import { registerSqliteConnection } from './sqlite-connection.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { SqliteRecallStore } from './recall-store.js';
import { BackgroundPurge } from '../background-purge.js';
import { deleteAllRows, hideChunksAfter, PURGE_BATCH, purgePending, purgeRewoundRows, releaseHiddenIds, REWOUND_CHUNKS, REWOUND_FACTS, REWOUND_TABLES, visibleChunk } from './rewound-rows.js';
import { decodeChunkMetadata, encodeChunkMetadata, METADATA_WITH_NEW_SAVE_ID } from './chunk-metadata.js';
import { blobAsVector, vectorToBlob } from './vectors.js';
import { chunkIdText, storedChunkId, storedChunkIdSql } from './chunk-ids.js';
import { requireListChunksOptions } from '../list-chunks-options.js';

/** Options of the SQLite store. */
export interface SqliteStoreOptions {
  /** The database file (created if absent), or `:memory:`. */
  path: string;
  /**
   * How long a write waits for another process's write lock, in milliseconds (default 5000), before STORE_BUSY.
   * The wait is asynchronous: other calls (reads, other saves, `/health`) go on meanwhile.
   */
  busyTimeoutMs?: number;
  /** `full` (default) survives power loss; `normal` survives a process crash and writes faster. */
  durability?: 'full' | 'normal';
  /** Open without writing (no migrations; writes fail). */
  readonly?: boolean;
}

interface ChunkRow {
  id: string;
  save_id: string;
  turn_id: number;
  chunk_type: string;
  text: string;
  entry_id: string | null;
  metadata: string;
  created_at: number;
}

/** The chunk columns a Chunk is made of (see `toChunk`), the id as its text. */
const CHUNK_COLUMNS = `${chunkIdText('id')} AS id, save_id, turn_id, chunk_type, text, entry_id, metadata, created_at`;

/** The bound parameters of a listing: save, turn range, excluded type, limit (-1 = none), offset. */
function listingParameters(saveId: string, options: ListChunksOptions): [string, number, number, string | null, number, number] {
  return [saveId, options.fromTurnId ?? 0, options.toTurnId ?? Number.MAX_SAFE_INTEGER, options.excludeChunkType ?? null, options.limit ?? -1, options.offset ?? 0];
}

/** True when the migration `id` is recorded in the file (false for a file older than the migrations table too). */
function migrationApplied(db: SqliteDatabase, id: string): boolean {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() === undefined) return false;
  return db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').get(id) !== undefined;
}

function toChunk(row: ChunkRow): Chunk {
  return {
    id: row.id,
    saveId: row.save_id,
    turnId: row.turn_id,
    chunkType: row.chunk_type,
    text: row.text,
    entryId: row.entry_id,
    metadata: decodeChunkMetadata(row.metadata, { saveId: row.save_id, turnId: row.turn_id, chunkType: row.chunk_type, entryId: row.entry_id }),
    createdAt: row.created_at,
  };
}

/** Fewest ids `vectorsOf` first looks for as one run of rows (see `vectorsInSequence`); fewer are read by id. */
const CONSECUTIVE_READ = 64;
/** Rows `vectorsInSequence` looks ahead for an id's row, past rows no id asks for. */
const SEQUENCE_LOOKAHEAD = 8;

/**
 * The embedded default store.
 *
 * @example
 * ```ts
 * const store = openSqliteStore({ path: 'game.db' });
 * await store.countChunks('campaign-1'); // 0
 * ```
 */
export class SqliteStore implements Store {
  readonly provider = 'sqlite';
  readonly location: string;
  readonly embeddings: EmbeddingStore;
  readonly recall: RecallStore;
  readonly lore: LoreStore;
  readonly living: LivingStore;
  readonly chunkVectors: ChunkVectors;
  private readonly livingRows: SqliteLivingRows;
  private readonly db: SqliteDatabase;
  private closed = false;
  private readonly busyTimeoutMs: number;
  private readonly byIdStatements = new Map<number, Statement>();
  /**
   * The stored form of a chunk id for a lookup (`storedChunkId`), or the id itself in a file opened read-only
   * before migration chunks-005, whose ids are all text.
   */
  private readonly storedId: (id: string) => string | Buffer;
  private readonly statements: {
    insertChunk: Statement;
    bumpVersion: Statement;
    readVersion: Statement;
    /** A row for the save that is not a tombstone. */
    isLive: Statement;
    deleteTurn: Statement;
    vectorById: Statement;
    vectorsByIds: Statement;
    seqById: Statement;
    vectorsBySeq: Statement;
  };
  /** The purge of rewound chunks and facts (rewound-rows.ts): a batch per write transaction, between other work. */
  private readonly purge = new BackgroundPurge({
    step: () => this.transact(() => purgeRewoundRows(this.db, PURGE_BATCH)),
    // Another process holds the lock: try again later. Any other failure leaves the rows hidden until the next open.
    retryAfter: (error) => (isMnemoError(error, 'STORE_BUSY') ? 1000 : null),
  });

  constructor(options: SqliteStoreOptions) {
    this.location = options.path;
    this.busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (!Number.isSafeInteger(this.busyTimeoutMs) || this.busyTimeoutMs < 0) {
      throw new MnemoError('INVALID_INPUT', `busyTimeoutMs: expected a whole number of milliseconds >= 0, got ${JSON.stringify(options.busyTimeoutMs)}.`, { details: { field: 'busyTimeoutMs' } });
    }
    this.db = openDatabase(options);
    // A file opened read-only before its schema knew rewinds: nothing is hidden (a temporary table says so).
    for (const table of REWOUND_TABLES) {
      if (options.readonly === true && this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(table.rewinds) === undefined) {
        this.db.exec(`CREATE TEMP TABLE ${table.rewinds} (save_id TEXT NOT NULL, turn_id INTEGER NOT NULL, ${table.order} INTEGER NOT NULL)`);
      }
    }
    const textIds = options.readonly === true && !migrationApplied(this.db, 'chunks-005');
    this.storedId = textIds ? (id) => id : storedChunkId;
    this.statements = {
      insertChunk: this.db.prepare(
        `INSERT INTO chunks (id, save_id, turn_id, chunk_type, text, entry_id, metadata, created_at, embedding)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      bumpVersion: this.db.prepare(
        `INSERT INTO saves (save_id, version, created_at, updated_at) VALUES (?, 1, ?, ?)
         ON CONFLICT (save_id) DO UPDATE SET version = version + 1, updated_at = excluded.updated_at,
           created_at = CASE WHEN deleted_at IS NULL THEN created_at ELSE excluded.created_at END, deleted_at = NULL
         RETURNING version`,
      ),
      readVersion: this.db.prepare('SELECT version FROM saves WHERE save_id = ?'),
      isLive: this.db.prepare('SELECT 1 FROM saves WHERE save_id = ? AND deleted_at IS NULL'),
      deleteTurn: this.db.prepare(`DELETE FROM chunks WHERE save_id = ? AND turn_id = ? AND chunk_type = ? AND ${visibleChunk('chunks')}`),
      vectorById: this.db.prepare('SELECT embedding FROM chunks WHERE id = ?').raw(true),
      seqById: this.db.prepare('SELECT seq FROM chunks WHERE id = ?').pluck(),
      vectorsBySeq: this.db.prepare('SELECT id, embedding FROM chunks WHERE seq BETWEEN ? AND ? ORDER BY seq').raw(true),
      // Each row is named by its id's place in the JSON array, so that no id is formatted back to text.
      vectorsByIds: this.db.prepare(`SELECT ids.key, chunks.embedding FROM json_each(?) AS ids JOIN chunks ON chunks.id = ${textIds ? 'ids.value' : storedChunkIdSql('ids.value')}`).raw(true),
    };
    const connection: SqliteConnection = {
      database: () => this.database(),
      write: <T>(work: () => T) => this.write(work),
      transact: <T>(work: () => T) => this.transact(work),
    };
    registerSqliteConnection(this, connection);
    this.chunkVectors = { vectorsOf: (ids) => this.vectorsOf(ids) };
    this.embeddings = new SqliteEmbeddingStore(connection);
    this.recall = new SqliteRecallStore(connection);
    this.lore = new SqliteLoreStore(connection);
    this.db.function('mnemo_uuid', { deterministic: false }, () => storedChunkId(randomUUID()));
    this.livingRows = new SqliteLivingRows(connection);
    // Living writes wait for another process's lock as every other write does: between attempts, on timers.
    this.living = new RowLivingStore(syncLivingBackend(this.livingRows, { read: (work) => work(), write: (work) => this.transact(work) }));
    // A purge a crash or `close` cut short goes on (the check is a read: opening takes no write lock for it).
    if (options.readonly !== true && purgePending(this.db)) this.schedulePurge();
  }

  /**
   * Deletes the chunks and facts rewinds hid, a batch per write transaction, between other work, until none is
   * left: after each rewind and when the file is opened (a purge a crash or `close` cut short goes on). Reads never
   * see them.
   */
  private schedulePurge(): void {
    if (!this.closed) this.purge.schedule(null);
  }

  /** The open better-sqlite3 handle, for the sub-stores that share this file (through their connection). */
  private database(): SqliteDatabase {
    this.ensureOpen();
    return this.db;
  }

  private ensureOpen(): void {
    if (this.closed) throw new MnemoError('STORE_CLOSED', `The store at ${this.location} is closed. Open it again with openMemory().`);
  }

  /**
   * Runs `work` in one IMMEDIATE transaction (the write lock is taken at BEGIN, so no upgrade deadlock), waiting at
   * most LOCK_ATTEMPT_MS for a lock another process holds; then STORE_BUSY (nothing was written). Prefer
   * `transact`, which retries without holding the event loop.
   */
  private write<T>(work: () => T): T {
    this.ensureOpen();
    try {
      return this.db.transaction(work).immediate();
    } catch (error) {
      throw asBusyError(error, this.location, LOCK_ATTEMPT_MS) ?? error;
    }
  }

  /**
   * Runs `work` in one IMMEDIATE transaction like `write`, but when another process holds the write lock, tries
   * again after a pause (10, 20, 40 ... 200 ms) until `busyTimeoutMs` has passed, then throws STORE_BUSY. The
   * pauses are timers, so the rest of the process goes on while this write waits.
   *
   * @example
   * ```ts
   * await connection.transact(() => statement.run(saveId));
   * ```
   */
  private async transact<T>(work: () => T): Promise<T> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return this.write(work);
      } catch (error) {
        const waited = Date.now() - started;
        if (!isMnemoError(error, 'STORE_BUSY') || waited >= this.busyTimeoutMs) throw isMnemoError(error, 'STORE_BUSY') ? busyError(this.location, waited) : error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 * 2 ** attempt, Math.max(1, this.busyTimeoutMs - waited))));
      }
    }
  }

  /** Bumps a save's version inside a write; returns [previous, current]. */
  private bump(saveId: string): [number, number] {
    const now = Date.now();
    const row = this.statements.bumpVersion.get(saveId, now, now) as { version: number };
    return [row.version - 1, row.version];
  }

  private currentVersion(saveId: string): number {
    const row = this.statements.readVersion.get(saveId) as { version: number } | undefined;
    return row?.version ?? 0;
  }

  private insertAll(chunks: readonly NewChunk[]): void {
    releaseHiddenIds(this.db, chunks.map((chunk) => chunk.id));
    // Positional parameters: better-sqlite3 binds them without looking up names (a bulk load's rows go faster).
    const insert = this.statements.insertChunk;
    for (const chunk of chunks) {
      insert.run(storedChunkId(chunk.id), chunk.saveId, chunk.turnId, chunk.chunkType, chunk.text, chunk.entryId, encodeChunkMetadata(chunk.metadata, chunk), chunk.createdAt, vectorToBlob(chunk.embedding));
    }
  }

  async insertChunks(chunks: readonly NewChunk[]): Promise<WriteResult> {
    if (chunks.length === 0) return { previousVersion: 0, version: 0, count: 0 };
    const saveIds = new Set(chunks.map((chunk) => chunk.saveId));
    if (saveIds.size !== 1) throw new MnemoError('INVALID_INPUT', `One write holds chunks of one save, got ${saveIds.size} saves. Write each save separately.`);
    const saveId = chunks[0]!.saveId;
    return this.transact(() => {
      this.insertAll(chunks);
      const [previousVersion, version] = this.bump(saveId);
      return { previousVersion, version, count: chunks.length };
    });
  }

  async replaceTurn(saveId: string, turnId: number, chunkType: string, chunks: readonly NewChunk[]): Promise<WriteResult & { removed: number }> {
    return this.transact(() => {
      const removed = this.statements.deleteTurn.run(saveId, turnId, chunkType).changes;
      this.insertAll(chunks);
      if (removed === 0 && chunks.length === 0) {
        const version = this.currentVersion(saveId);
        return { previousVersion: version, version, count: 0, removed };
      }
      const [previousVersion, version] = this.bump(saveId);
      return { previousVersion, version, count: chunks.length, removed };
    });
  }

  async deleteChunks(saveId: string, selection: ChunkSelection, options: DeleteChunksOptions = {}): Promise<WriteResult & { removed: string[] }> {
    const kept = options.excludeChunkType ?? null;
    return this.transact(() => {
      const removed: string[] = [];
      const collect = (rows: unknown[]) => {
        for (const row of rows as { id: string }[]) removed.push(row.id);
      };
      if ('entryId' in selection) {
        collect(this.db.prepare(`DELETE FROM chunks WHERE save_id = ? AND entry_id = ? AND chunk_type IS NOT ? RETURNING ${chunkIdText('id')} AS id`).all(saveId, selection.entryId, kept));
      } else {
        for (let start = 0; start < selection.ids.length; start += 500) {
          const batch = selection.ids.slice(start, start + 500);
          const marks = batch.map(() => '?').join(',');
          collect(this.db.prepare(`DELETE FROM chunks WHERE save_id = ? AND id IN (${marks}) AND chunk_type IS NOT ? RETURNING ${chunkIdText('id')} AS id`).all(saveId, ...batch.map(this.storedId), kept));
        }
      }
      if (removed.length === 0) {
        const version = this.currentVersion(saveId);
        return { previousVersion: version, version, count: 0, removed };
      }
      const [previousVersion, version] = this.bump(saveId);
      return { previousVersion, version, count: removed.length, removed };
    });
  }

  async rewind(saveId: string, turnId: number): Promise<WriteResult & { removed: RewindCounts }> {
    return this.transact(() => {
      // Chunks and facts are hidden at once and deleted by the purge: deleting many rows here would hold the write lock.
      const chunks = hideChunksAfter(this.db, saveId, turnId);
      const living = runRowProgram(rewindLiving(saveId, turnId), this.livingRows);
      if (chunks > 0 || living.facts > 0) this.schedulePurge();
      if (chunks === 0) {
        const version = this.currentVersion(saveId);
        return { previousVersion: version, version, count: 0, removed: { chunks, living } };
      }
      const [previousVersion, version] = this.bump(saveId);
      return { previousVersion, version, count: chunks, removed: { chunks, living } };
    });
  }

  async fork(saveId: string, newSaveId: string, atTurn: number): Promise<ForkCounts> {
    return this.transact(() => {
      const holdsData = (id: string) => this.statements.isLive.get(id) !== undefined || this.livingRows.holdsData(id);
      requireForkable(saveId, newSaveId, { targetHoldsData: holdsData(newSaveId), sourceHoldsData: holdsData(saveId) });
      const chunks = this.db.prepare(
        `INSERT INTO chunks (id, save_id, turn_id, chunk_type, text, entry_id, metadata, created_at, embedding)
         SELECT mnemo_uuid(), @newSaveId, turn_id, chunk_type, text, entry_id, ${METADATA_WITH_NEW_SAVE_ID}, created_at, embedding
         FROM chunks WHERE save_id = @saveId AND turn_id <= @atTurn AND ${visibleChunk('chunks')} ORDER BY seq`,
      ).run({ newSaveId, saveId, atTurn }).changes;
      this.bump(newSaveId);
      return { chunks, living: runRowProgram(forkLiving(saveId, newSaveId, atTurn), this.livingRows) };
    });
  }

  async deleteSave(saveId: string): Promise<DeleteCounts> {
    return this.transact(() => {
      const chunks = deleteAllRows(this.db, REWOUND_CHUNKS, saveId);
      const living = runRowProgram(deleteLiving(saveId), this.livingRows);
      // deleteLiving hid the facts; a deleted save's rows go now, hidden ones and the rewinds' records too.
      deleteAllRows(this.db, REWOUND_FACTS, saveId);
      // The row stays as a tombstone one version on: a save written again under this id never has a version it
      // had before, so no index of the old save (another process's, or a persisted one) is ever taken as current.
      const now = Date.now();
      this.db.prepare('UPDATE saves SET version = version + 1, updated_at = ?, deleted_at = ? WHERE save_id = ? AND deleted_at IS NULL').run(now, now, saveId);
      return { chunks, living };
    });
  }

  async importSave(saveId: string, save: SaveImport): Promise<WriteResult & { imported: ImportCounts }> {
    return this.write(() => {
      if (this.statements.isLive.get(saveId) !== undefined || this.livingRows.holdsData(saveId)) throw saveTaken(saveId, 'import');
      let chunks = 0;
      for (const batch of save.chunks) {
        this.insertAll(batch);
        chunks += batch.length;
      }
      const living = runRowProgram(writeLivingLayer(saveId, save.living), this.livingRows);
      const [previousVersion, version] = this.bump(saveId);
      return { previousVersion, version, count: chunks, imported: { chunks, living } };
    });
  }

  async pageChunks(saveId: string, options: { after?: number; limit: number; vectors?: boolean }): Promise<ChunkPage> {
    this.ensureOpen();
    const vectors = options.vectors !== false;
    // Walks the table in seq order from the cursor (seq is the rowid), skipping other saves' rows: one pass in all.
    const rows = this.db
      .prepare(`SELECT seq, ${CHUNK_COLUMNS}${vectors ? ', embedding' : ''} FROM chunks WHERE seq > ? AND +save_id = ? AND ${visibleChunk('chunks')} ORDER BY seq LIMIT ?`)
      .all(options.after ?? 0, saveId, options.limit) as (ChunkRow & { seq: number; embedding?: Buffer | null })[];
    const chunks = rows.map((row) => ({ ...toChunk(row), embedding: blobAsVector(row.embedding ?? null) }));
    return { chunks, next: rows.length < options.limit ? null : (rows[rows.length - 1] as { seq: number }).seq };
  }

  async countChunks(saveId: string, chunkType?: string): Promise<number> {
    this.ensureOpen();
    const row = chunkType === undefined
      ? this.db.prepare(`SELECT COUNT(*) AS n FROM chunks WHERE save_id = ? AND ${visibleChunk('chunks')}`).get(saveId)
      : this.db.prepare(`SELECT COUNT(*) AS n FROM chunks WHERE save_id = ? AND chunk_type = ? AND ${visibleChunk('chunks')}`).get(saveId, chunkType);
    return (row as { n: number }).n;
  }

  async getChunks(ids: readonly string[], saveId?: string): Promise<Chunk[]> {
    this.ensureOpen();
    if (ids.length === 0) return [];
    const found = new Map<string, Chunk>();
    for (let start = 0; start < ids.length; start += 500) {
      const batch = ids.slice(start, start + 500);
      const rows = this.chunksById(batch.length).all(...batch.map(this.storedId)) as ChunkRow[];
      for (const row of rows) if (saveId === undefined || row.save_id === saveId) found.set(row.id, toChunk(row));
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /**
   * The vectors of the chunks `ids`, in order (null: no such row, or no vector), read by id now. Rows a rewind hid
   * are read too: an index read back at the save's version holds them as that version did, until it moves on.
   */
  private vectorsOf(ids: readonly string[]): (Float32Array | null)[] {
    this.ensureOpen();
    if (ids.length === 1) {
      const row = this.statements.vectorById.get(this.storedId(ids[0] as string)) as [Buffer | null] | undefined;
      return [row === undefined ? null : blobAsVector(row[0])];
    }
    const vectors: (Float32Array | null)[] = ids.map(() => null);
    const missing = ids.length >= CONSECUTIVE_READ ? this.vectorsInSequence(ids, vectors) : ids.map((_, place) => place);
    if (missing.length === 0) return vectors;
    // One statement whatever the count: the ids go in as one JSON array.
    const asked = missing.length === ids.length ? ids : missing.map((place) => ids[place] as string);
    for (const [at, embedding] of this.statements.vectorsByIds.all(JSON.stringify(asked)) as [number, Buffer | null][]) vectors[missing[at] as number] = blobAsVector(embedding);
    return vectors;
  }

  /**
   * Reads the vectors of `ids` that lie in one run of rows in insertion order (a pass over a bulk load's slots
   * asks for its rows in the order they were written): when the rows of the first and last id are at most a
   * quarter more apart than the ids are many, the rows between are read in order (a range of the table, not an
   * index lookup per id) and each is matched to the id asked at its place by its stored id. Fills `vectors`;
   * returns the places of the ids not found so (read by id after).
   */
  private vectorsInSequence(ids: readonly string[], vectors: (Float32Array | null)[]): number[] {
    const first = this.statements.seqById.get(this.storedId(ids[0] as string)) as number | undefined;
    const last = this.statements.seqById.get(this.storedId(ids[ids.length - 1] as string)) as number | undefined;
    const all = ids.map((_, place) => place);
    if (first === undefined || last === undefined || last < first || last - first + 1 > ids.length + (ids.length >> 2)) return all;
    const rows = this.statements.vectorsBySeq.all(first, last) as [Buffer | string, Buffer | null][];
    const missing: number[] = [];
    let row = 0;
    for (let place = 0; place < ids.length; place++) {
      const id = this.storedId(ids[place] as string);
      // The rows between that no id asks for (no vector, another save's) are stepped over, a few at a time.
      let found = -1;
      for (let at = row; at < Math.min(rows.length, row + SEQUENCE_LOOKAHEAD); at++) {
        const stored = (rows[at] as [Buffer | string, Buffer | null])[0];
        if (typeof id === 'string' ? stored === id : typeof stored !== 'string' && id.equals(stored)) {
          found = at;
          break;
        }
      }
      if (found < 0) {
        missing.push(place);
        continue;
      }
      vectors[place] = blobAsVector((rows[found] as [Buffer | string, Buffer | null])[1]);
      row = found + 1;
    }
    return missing;
  }

  /** The statement reading `count` chunks by id, prepared once per count (a query reads k of them every time). */
  private chunksById(count: number): Statement {
    let statement = this.byIdStatements.get(count);
    if (statement === undefined) {
      statement = this.db.prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id IN (${Array.from({ length: count }, () => '?').join(',')}) AND ${visibleChunk('chunks')}`);
      if (this.byIdStatements.size < 64) this.byIdStatements.set(count, statement);
    }
    return statement;
  }

  async listChunks(saveId: string, given?: ListChunksOptions): Promise<Chunk[]> {
    const options = requireListChunksOptions(given);
    this.ensureOpen();
    const columns = CHUNK_COLUMNS;
    const listing = `FROM chunks WHERE save_id = ? AND turn_id >= ? AND turn_id <= ? AND chunk_type IS NOT ? AND ${visibleChunk('chunks')} ORDER BY turn_id, seq LIMIT ? OFFSET ?`;
    if (options.maxTextBytes === undefined) return (this.db.prepare(`SELECT ${columns} ${listing}`).all(...listingParameters(saveId, options)) as ChunkRow[]).map(toChunk);
    // The page's chunks by their text sizes first (octet_length reads no text), then only those chunks' rows.
    const rows = this.db
      .prepare(
        `SELECT ${columns} FROM chunks WHERE save_id = ? AND seq IN (
           SELECT seq FROM (SELECT seq, SUM(bytes) OVER (ORDER BY turn_id, seq ROWS UNBOUNDED PRECEDING) - bytes AS before
                            FROM (SELECT seq, turn_id, octet_length(text) AS bytes ${listing}))
           WHERE before < ?)
         ORDER BY turn_id, seq`,
      )
      .all(saveId, ...listingParameters(saveId, options), options.maxTextBytes) as ChunkRow[];
    return rows.map(toChunk);
  }

  async listTurns(saveId: string, given?: ListChunksOptions): Promise<TurnSummary[]> {
    const options = requireListChunksOptions(given);
    this.ensureOpen();
    const rows = this.db
      .prepare(
        `SELECT turn_id, COUNT(*) AS chunks, GROUP_CONCAT(DISTINCT chunk_type) AS types FROM chunks
         WHERE save_id = ? AND turn_id >= ? AND turn_id <= ? AND chunk_type IS NOT ? AND ${visibleChunk('chunks')} GROUP BY turn_id ORDER BY turn_id LIMIT ? OFFSET ?`,
      )
      .all(...listingParameters(saveId, options)) as { turn_id: number; chunks: number; types: string }[];
    return rows.map((row) => ({ turnId: row.turn_id, chunks: row.chunks, chunkTypes: row.types.split(',').sort() }));
  }

  async scanChunks(saveId: string, visit: (row: IndexRow) => void, options: ScanOptions = {}): Promise<number> {
    this.ensureOpen();
    const keys = options.metadataKeys !== undefined && options.metadataKeys.length > 0 ? options.metadataKeys : undefined;
    const columns = `${chunkIdText('id')}, turn_id, chunk_type, text, embedding${keys === undefined ? '' : ', metadata, entry_id'}`;
    return this.db.transaction(() => {
      const version = this.currentVersion(saveId);
      const span = this.db.prepare(`SELECT MIN(seq) AS first, MAX(seq) AS last, COUNT(*) AS rows FROM chunks WHERE save_id = ? AND ${visibleChunk('chunks')}`).get(saveId) as { first: number | null; last: number | null; rows: number };
      if (span.first === null || span.last === null) return version;
      // Raw rows (arrays, not objects): a save is read whole when its index is built, so this loop is hot. When the
      // save holds at least half of its seq range (one save per file, or a few written apart), the table is walked
      // in seq order over that range, skipping other saves' rows; otherwise (saves interleaved) the save's rows are
      // found through its index and sorted. The same rows in the same order either way.
      const walk = span.rows * 2 >= span.last - span.first + 1;
      const statement = walk
        ? this.db.prepare(`SELECT ${columns} FROM chunks WHERE seq BETWEEN ? AND ? AND +save_id = ? AND ${visibleChunk('chunks')} ORDER BY seq`).raw(true)
        : this.db.prepare(`SELECT ${columns} FROM chunks WHERE save_id = ? AND ${visibleChunk('chunks')} ORDER BY seq`).raw(true);
      const rows = (walk ? statement.iterate(span.first, span.last, saveId) : statement.iterate(saveId)) as Iterable<[string, number, string, string, Buffer | null, string?, (string | null)?]>;
      for (const [id, turnId, chunkType, text, embedding, metadata, entryId] of rows) {
        // The blob is fresh from SQLite and held by no one else: its vector can be a view of it.
        const row: IndexRow = { id, turnId, chunkType, text, embedding: blobAsVector(embedding) };
        if (keys !== undefined) row.metadata = pickMetadata(decodeChunkMetadata(metadata as string, { saveId, turnId, chunkType, entryId: entryId ?? null }), keys);
        visit(row);
      }
      return version;
    }).deferred();
  }

  async saveVersion(saveId: string): Promise<number> {
    this.ensureOpen();
    return this.currentVersion(saveId);
  }

  async listSaves(): Promise<SaveSummary[]> {
    this.ensureOpen();
    const rows = this.db
      .prepare(
        `SELECT s.save_id AS saveId, s.version AS version, COUNT(c.seq) AS chunks, COUNT(DISTINCT c.turn_id) AS turns, MIN(c.turn_id) AS minTurnId, MAX(c.turn_id) AS maxTurnId
         FROM saves s LEFT JOIN chunks c ON c.save_id = s.save_id AND ${visibleChunk('c')} WHERE s.deleted_at IS NULL GROUP BY s.save_id ORDER BY s.save_id`,
      )
      .all() as SaveSummary[];
    return rows;
  }

  async getMeta(key: string): Promise<string | null> {
    this.ensureOpen();
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.transact(() => this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value));
  }

  /** Runs SQLite's integrity check; returns 'ok' or the problems found. */
  integrityCheck(): string {
    this.ensureOpen();
    const rows = this.db.pragma('integrity_check') as { integrity_check: string }[];
    return rows.map((row) => row.integrity_check).join('; ');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    void this.purge.stop();
    this.db.close();
  }
}
