// Opening a SQLite file: its pragmas, its schema brought up to date, and clear errors for a path that holds no database.
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { MnemoError, asBusyError, isMnemoError } from '../../core/errors.js';
import { migrate } from './migrations.js';

/**
 * The page size of a new database file. Chunk rows are large (text, metadata and a vector, about 700 bytes at
 * 100 dimensions): with 16 KiB pages instead of SQLite's 4 KiB, deleting 50,000 of them in a rewind took 55
 * instead of 170 ms here, bulk inserts 30% less and a full scan 20% less, for about 10% more per lookup by id.
 */
export const PAGE_SIZE = 16384;

/**
 * How long one attempt to take a lock may hold the event loop, in milliseconds: SQLite's own busy handler waits this
 * long (synchronously, as better-sqlite3 does everything); a longer wait is made of asynchronous retries (see
 * `SqliteStore.transact`), so a lock held by another process never stalls the rest of the process for longer.
 */
export const LOCK_ATTEMPT_MS = 25;

/** How a database is opened (the SQLite store's options that concern the file). */
export interface OpenDatabaseOptions {
  path: string;
  /** How long opening waits for another process that is creating or migrating the same file (default 5000 ms). */
  busyTimeoutMs?: number;
  durability?: 'full' | 'normal';
  readonly?: boolean;
}

/** The path of better-sqlite3's addon where its install puts it (null: not found there); see `sqliteAddonPath`. */
let foundAddon: string | null | undefined;

/**
 * The path of better-sqlite3's compiled addon in its package (build/Release/better_sqlite3.node, where its
 * install builds or downloads it), looked up once; undefined when it is not there, and better-sqlite3 then finds it
 * itself. Given as `nativeBinding`, it is loaded straight away: better-sqlite3's own lookup (the `bindings`
 * package) first requires that package, then tries the candidate paths one by one, each miss a thrown
 * MODULE_NOT_FOUND, about 2-7 ms of the first open in a process.
 *
 * @example
 * ```ts
 * new Database('game.db', { nativeBinding: sqliteAddonPath() }); // undefined: better-sqlite3 looks for it itself
 * ```
 */
export function sqliteAddonPath(): string | undefined {
  if (foundAddon === undefined) {
    try {
      const path = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
      foundAddon = existsSync(path) ? path : null;
    } catch {
      foundAddon = null;
    }
  }
  return foundAddon ?? undefined;
}

/** What opening `path` failed with, as a MnemoError that says what the path is and what to do. */
function openError(path: string, error: unknown, waitedMs: number): MnemoError {
  if (isMnemoError(error)) return error;
  const busy = asBusyError(error, path, waitedMs);
  if (busy !== null) return busy;
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message ?? String(error);
  const kind = (() => {
    try {
      return statSync(path).isDirectory() ? 'folder' : 'file';
    } catch {
      return 'absent';
    }
  })();
  if (kind === 'absent' && /directory does not exist/iu.test(message)) {
    return new MnemoError('NOT_A_DATABASE', `Could not create the SQLite database ${path}: the folder ${dirname(path)} does not exist. Create the folder first, or pass another path (--db).`, { cause: error, details: { path, reason: 'folder missing' } });
  }
  if (kind === 'folder') {
    return new MnemoError('NOT_A_DATABASE', `${path} is a folder, not a SQLite database file. Pass a file path such as ${path.replace(/\/+$/u, '')}/mnemo.db (--db).`, { cause: error, details: { path, reason: 'folder' } });
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new MnemoError('NOT_A_DATABASE', `${path} is not a SQLite database (SQLite says: ${message}). Point --db / path at a Mnemo database, or at a new file name to create one.`, { cause: error, details: { path, reason: 'not a database' } });
  }
  return new MnemoError('STORE_FAILURE', `Could not open the SQLite database at ${path}: ${message}. Check the path and its permissions.`, { cause: error, details: { path } });
}

/**
 * Opens (or creates) a SQLite database for the store: WAL, 16 KiB pages for a new file, the chosen durability,
 * and the schema migrated. A database whose schema is current is opened without a write transaction, so a
 * read-only command works while another process holds the write lock. Opening waits up to `busyTimeoutMs` for a
 * process creating or migrating the same file; afterwards each lock attempt waits LOCK_ATTEMPT_MS.
 *
 * @example
 * ```ts
 * const db = openDatabase({ path: 'game.db' });
 * ```
 */
export function openDatabase(options: OpenDatabaseOptions): SqliteDatabase {
  const readonly = options.readonly ?? false;
  const openWaitMs = options.busyTimeoutMs ?? 5000;
  let db: SqliteDatabase;
  try {
    const nativeBinding = sqliteAddonPath();
    db = new Database(options.path, nativeBinding === undefined ? { readonly, fileMustExist: readonly } : { readonly, fileMustExist: readonly, nativeBinding });
  } catch (error) {
    throw openError(options.path, error, 0);
  }
  try {
    db.pragma(`busy_timeout = ${openWaitMs}`);
    if (readonly) {
      db.pragma('user_version');
    } else {
      // Only a new, empty file takes it (an existing one keeps its page size); see PAGE_SIZE.
      db.pragma(`page_size = ${PAGE_SIZE}`);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
      migrate(db);
    }
    db.pragma(`busy_timeout = ${LOCK_ATTEMPT_MS}`);
    return db;
  } catch (error) {
    db.close();
    throw openError(options.path, error, openWaitMs);
  }
}
