// Chunks a rewind hid in its transaction (one row of chunk_rewinds per rewind) and the purge that deletes them later.
import type { Database as SqliteDatabase } from 'better-sqlite3';

/** How many hidden chunks one purge step deletes, in one short transaction (a few milliseconds of write lock). */
export const PURGE_BATCH = 1000;

/**
 * SQL that holds for a row `alias` of `chunks` that no pending rewind hides. A rewind of save S to turn T records
 * (S, T, the save's highest seq then): the rows of S after T up to that seq are gone for every read at once, while
 * rows written later (a higher seq, AUTOINCREMENT) are not. With no rewind pending, the first test is a constant
 * SQLite evaluates once per statement, so reads pay nothing per row.
 *
 * @example
 * ```ts
 * db.prepare(`SELECT COUNT(*) AS n FROM chunks WHERE save_id = ? AND ${visibleChunk('chunks')}`).get('run-1');
 * ```
 */
export function visibleChunk(alias: string): string {
  return `(NOT EXISTS (SELECT 1 FROM chunk_rewinds) OR NOT EXISTS (SELECT 1 FROM chunk_rewinds r
    WHERE r.save_id = ${alias}.save_id AND ${alias}.turn_id > r.turn_id AND ${alias}.seq <= r.seq))`;
}

/**
 * Hides the chunks of `saveId` after `turnId` inside the caller's write transaction and returns how many it hid:
 * one count over the save's (save_id, turn_id) index and one small insert, whatever the number of rows. Rewinds
 * this one covers are folded into it.
 *
 * @example
 * ```ts
 * const removed = hideChunksAfter(db, 'run-1', 12); // inside SqliteStore.rewind's transaction
 * ```
 */
export function hideChunksAfter(db: SqliteDatabase, saveId: string, turnId: number): number {
  const { hidden, last } = db.prepare(`SELECT COUNT(*) AS hidden, MAX(seq) AS last FROM chunks WHERE save_id = ? AND turn_id > ? AND ${visibleChunk('chunks')}`)
    .get(saveId, turnId) as { hidden: number; last: number | null };
  if (hidden === 0 || last === null) return 0;
  db.prepare('DELETE FROM chunk_rewinds WHERE save_id = ? AND turn_id >= ? AND seq <= ?').run(saveId, turnId, last);
  db.prepare('INSERT INTO chunk_rewinds (save_id, turn_id, seq) VALUES (?, ?, ?)').run(saveId, turnId, last);
  return hidden;
}

/**
 * Deletes hidden chunks whose ids are in `ids`, so that a write may use an id again once its rewind hid it. One
 * statement, and none at all when no rewind is pending.
 *
 * @example
 * ```ts
 * releaseHiddenIds(db, ['c-1', 'c-2']); // before inserting chunks c-1 and c-2
 * ```
 */
export function releaseHiddenIds(db: SqliteDatabase, ids: readonly string[]): void {
  if (db.prepare('SELECT 1 FROM chunk_rewinds LIMIT 1').get() === undefined) return;
  db.prepare(`DELETE FROM chunks WHERE id IN (SELECT value FROM json_each(?)) AND NOT ${visibleChunk('chunks')}`).run(JSON.stringify(ids));
}

/**
 * One step of the purge: deletes up to `limit` chunks of the oldest pending rewind, and the rewind's record once
 * its rows are gone. Returns how many rows it deleted plus whether rewinds remain; run it in a write transaction
 * until `pending` is false. A crash between steps loses nothing: the record stays and hides what is left.
 *
 * @example
 * ```ts
 * while (db.transaction(() => purgeRewoundChunks(db, PURGE_BATCH)).immediate().pending);
 * ```
 */
export function purgeRewoundChunks(db: SqliteDatabase, limit: number): { deleted: number; pending: boolean } {
  const rewind = db.prepare('SELECT save_id, turn_id, seq FROM chunk_rewinds LIMIT 1').get() as { save_id: string; turn_id: number; seq: number } | undefined;
  if (rewind === undefined) return { deleted: 0, pending: false };
  const deleted = db.prepare('DELETE FROM chunks WHERE seq IN (SELECT seq FROM chunks WHERE save_id = ? AND turn_id > ? AND seq <= ? LIMIT ?)')
    .run(rewind.save_id, rewind.turn_id, rewind.seq, limit).changes;
  if (deleted < limit) {
    db.prepare('DELETE FROM chunk_rewinds WHERE save_id = ? AND turn_id = ? AND seq = ?').run(rewind.save_id, rewind.turn_id, rewind.seq);
    return { deleted, pending: db.prepare('SELECT 1 FROM chunk_rewinds LIMIT 1').get() !== undefined };
  }
  return { deleted, pending: true };
}
