// Rows a rewind hid in its transaction (chunks, and living memory's facts) and the purge that deletes them later.
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { storedChunkIdSql } from './chunk-ids.js';

/** How many hidden rows one purge step deletes, in one short transaction (a few milliseconds of write lock). */
export const PURGE_BATCH = 1000;

/**
 * A table whose rows a rewind hides rather than deletes: `rows` (with `save_id`, `turn_id` and the increasing id
 * `order`) and `rewinds`, its records of pending rewinds (`save_id`, `turn_id` and the largest `order` then).
 */
export interface RewoundTable {
  rows: string;
  rewinds: string;
  order: string;
}

/** The narrative layer's chunks (src/stores/sqlite/migrations/chunks.ts, chunks-002). */
export const REWOUND_CHUNKS: RewoundTable = { rows: 'chunks', rewinds: 'chunk_rewinds', order: 'seq' };
/** Living memory's facts (src/stores/sqlite/migrations/living.ts, living-002). */
export const REWOUND_FACTS: RewoundTable = { rows: 'living_facts', rewinds: 'fact_rewinds', order: 'fact_id' };
/** Every table with a rewind horizon, in the order the purge empties them. */
export const REWOUND_TABLES: readonly RewoundTable[] = [REWOUND_CHUNKS, REWOUND_FACTS];

/**
 * SQL that holds for a row `alias` of `table.rows` that no pending rewind hides. A rewind of save S to turn T
 * records (S, T, the save's highest id then): the rows of S after T up to that id are gone for every read at once,
 * while rows written later (a higher id, AUTOINCREMENT) are not. With no rewind pending, the first test is a
 * constant SQLite evaluates once per statement, so reads pay nothing per row.
 *
 * @example
 * ```ts
 * db.prepare(`SELECT COUNT(*) AS n FROM living_facts WHERE save_id = ? AND ${visibleRow(REWOUND_FACTS, 'living_facts')}`).get('run-1');
 * ```
 */
export function visibleRow(table: RewoundTable, alias: string): string {
  return `(NOT EXISTS (SELECT 1 FROM ${table.rewinds}) OR NOT EXISTS (SELECT 1 FROM ${table.rewinds} r
    WHERE r.save_id = ${alias}.save_id AND ${alias}.turn_id > r.turn_id AND ${alias}.${table.order} <= r.${table.order}))`;
}

/**
 * SQL that holds for a chunk `alias` no pending rewind hides (see visibleRow).
 *
 * @example
 * ```ts
 * db.prepare(`SELECT COUNT(*) AS n FROM chunks WHERE save_id = ? AND ${visibleChunk('chunks')}`).get('run-1');
 * ```
 */
export function visibleChunk(alias: string): string {
  return visibleRow(REWOUND_CHUNKS, alias);
}

/**
 * Hides the rows of `saveId` after `turnId` in `table` inside the caller's write transaction and returns how many
 * it hid: one count over the table's (save_id, turn_id) index and one small insert, whatever the number of rows.
 * Rewinds this one covers are folded into it.
 *
 * @example
 * ```ts
 * const removed = hideRowsAfter(db, REWOUND_CHUNKS, 'run-1', 12); // inside SqliteStore.rewind's transaction
 * ```
 */
export function hideRowsAfter(db: SqliteDatabase, table: RewoundTable, saveId: string, turnId: number): number {
  const { hidden, last } = db.prepare(`SELECT COUNT(*) AS hidden, MAX(${table.order}) AS last FROM ${table.rows}
    WHERE save_id = ? AND turn_id > ? AND ${visibleRow(table, table.rows)}`).get(saveId, turnId) as { hidden: number; last: number | null };
  if (hidden === 0 || last === null) return 0;
  db.prepare(`DELETE FROM ${table.rewinds} WHERE save_id = ? AND turn_id >= ? AND ${table.order} <= ?`).run(saveId, turnId, last);
  db.prepare(`INSERT INTO ${table.rewinds} (save_id, turn_id, ${table.order}) VALUES (?, ?, ?)`).run(saveId, turnId, last);
  return hidden;
}

/**
 * Hides the chunks of `saveId` after `turnId` (see hideRowsAfter).
 *
 * @example
 * ```ts
 * const removed = hideChunksAfter(db, 'run-1', 12); // inside SqliteStore.rewind's transaction
 * ```
 */
export function hideChunksAfter(db: SqliteDatabase, saveId: string, turnId: number): number {
  return hideRowsAfter(db, REWOUND_CHUNKS, saveId, turnId);
}

/**
 * Deletes every row of `saveId` in `table`, hidden ones too, and its pending rewinds: what deleting a save does.
 * Returns how many visible rows it deleted.
 *
 * @example
 * ```ts
 * const chunks = deleteAllRows(db, REWOUND_CHUNKS, 'run-1'); // inside SqliteStore.deleteSave's transaction
 * ```
 */
export function deleteAllRows(db: SqliteDatabase, table: RewoundTable, saveId: string): number {
  const visible = db.prepare(`DELETE FROM ${table.rows} WHERE save_id = ? AND ${visibleRow(table, table.rows)}`).run(saveId).changes;
  db.prepare(`DELETE FROM ${table.rows} WHERE save_id = ?`).run(saveId);
  db.prepare(`DELETE FROM ${table.rewinds} WHERE save_id = ?`).run(saveId);
  return visible;
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
  db.prepare(`DELETE FROM chunks WHERE id IN (SELECT ${storedChunkIdSql('value')} FROM json_each(?)) AND NOT ${visibleChunk('chunks')}`).run(JSON.stringify(ids));
}

/**
 * True when a rewind's hidden rows are waiting for the purge, in any table.
 *
 * @example
 * ```ts
 * if (purgePending(db)) schedulePurge(); // when the file is opened
 * ```
 */
export function purgePending(db: SqliteDatabase): boolean {
  return REWOUND_TABLES.some((table) => db.prepare(`SELECT 1 FROM ${table.rewinds} LIMIT 1`).get() !== undefined);
}

/**
 * One step of the purge: deletes up to `limit` rows of the oldest pending rewind of the first table that has one,
 * and the rewind's record once its rows are gone. Returns how many rows it deleted plus whether rewinds remain; run
 * it in a write transaction until `pending` is false. A crash between steps loses nothing: the record stays and
 * hides what is left.
 *
 * @example
 * ```ts
 * while (db.transaction(() => purgeRewoundRows(db, PURGE_BATCH)).immediate().pending);
 * ```
 */
export function purgeRewoundRows(db: SqliteDatabase, limit: number): { deleted: number; pending: boolean } {
  for (const table of REWOUND_TABLES) {
    const rewind = db.prepare(`SELECT save_id, turn_id, ${table.order} AS last FROM ${table.rewinds} LIMIT 1`).get() as { save_id: string; turn_id: number; last: number } | undefined;
    if (rewind === undefined) continue;
    const deleted = db.prepare(`DELETE FROM ${table.rows} WHERE ${table.order} IN
      (SELECT ${table.order} FROM ${table.rows} WHERE save_id = ? AND turn_id > ? AND ${table.order} <= ? LIMIT ?)`).run(rewind.save_id, rewind.turn_id, rewind.last, limit).changes;
    if (deleted < limit) {
      db.prepare(`DELETE FROM ${table.rewinds} WHERE save_id = ? AND turn_id = ? AND ${table.order} = ?`).run(rewind.save_id, rewind.turn_id, rewind.last);
      return { deleted, pending: purgePending(db) };
    }
    return { deleted, pending: true };
  }
  return { deleted: 0, pending: false };
}
