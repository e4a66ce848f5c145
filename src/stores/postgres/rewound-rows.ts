// Rows a PostgreSQL rewind hid in its transaction (chunks, and living memory's facts) and the purge that deletes them
// later: the SQL of src/stores/sqlite/rewound-rows.ts's rule, for this adapter.
import { quoteIdentifier } from './identifiers.js';
import type { SqlClient } from './queryable.js';

/** How many hidden rows one purge step deletes, in one short transaction. */
export const PURGE_BATCH = 2000;

/**
 * A table whose rows a rewind hides rather than deletes: `rows` (with `save_id`, `turn_id` and the increasing id
 * `order`) and `rewinds`, its records of pending rewinds (`save_id`, `turn_id` and the largest `order` then), both
 * qualified with the schema.
 */
export interface RewoundTable {
  rows: string;
  rewinds: string;
  order: string;
}

/** The tables of `schema` with a rewind horizon: chunks (migration chunks-002) and facts (living-003). */
export interface RewoundTables {
  chunks: RewoundTable;
  facts: RewoundTable;
  /** Both, in the order the purge empties them. */
  all: readonly RewoundTable[];
}

/**
 * The rewound tables of `schema`.
 *
 * @example
 * ```ts
 * rewoundTables('mnemo').chunks.rewinds; // '"mnemo"."chunk_rewinds"'
 * ```
 */
export function rewoundTables(schema: string): RewoundTables {
  const table = (name: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
  const chunks = { rows: table('chunks'), rewinds: table('chunk_rewinds'), order: 'seq' };
  const facts = { rows: table('living_facts'), rewinds: table('fact_rewinds'), order: 'fact_id' };
  return { chunks, facts, all: [chunks, facts] };
}

/**
 * SQL that holds for a row `alias` of `table.rows` that no pending rewind hides. A save has at most one record (see
 * hideRowsAfter): a rewind of save S to turn T records (S, T, the save's highest id then), and the rows of S after T
 * up to that id are gone for every read at once, while rows written later (a higher id: the identity grows, and a
 * save's writers are ordered by its row lock) are not. `save` is the SQL of the save's id when the statement reads
 * one save (`$1`): the record is then read once per statement (InitPlans), the test costs two comparisons a row
 * and is a filter, never a join, so an index scan's order (HNSW's) is kept. Without `save` the record is looked up
 * for each row's save. On Citus the record table is distributed by save like the rows, and every look-up names the
 * save (the constant when given, which Citus needs to route a test nested in a LATERAL join to the save's shard).
 *
 * @example
 * ```ts
 * await client.query(`SELECT COUNT(*) AS n FROM ${facts.rows} f WHERE f.save_id = $1 AND ${visibleRow(facts, 'f', '$1')}`, ['run-1']);
 * ```
 */
export function visibleRow(table: RewoundTable, alias: string, save?: string): string {
  const of = save ?? `${alias}.save_id`;
  const record = (column: string) => `(SELECT r.${column} FROM ${table.rewinds} r WHERE r.save_id = ${of})`;
  return `(${record('turn_id')} IS NULL OR ${alias}.turn_id <= ${record('turn_id')} OR ${alias}.${table.order} > ${record(table.order)})`;
}

/** A save's pending rewinds of one table, read in the caller's transaction: turns and largest ids, pairwise. */
export interface PendingRewinds {
  turns: number[];
  orders: number[];
}

/**
 * The pending rewind of `saveId` in `table` (none or one), read in the caller's transaction: for a statement that
 * cannot read the record itself (on Citus, an INSERT ... SELECT from one save into another, a fork, may read no
 * second table: see visibleAmong).
 *
 * @example
 * ```ts
 * const rewinds = await pendingRewinds(client, rewoundTables('mnemo').chunks, 'run-1'); // { turns: [12], orders: [4810] }
 * ```
 */
export async function pendingRewinds(client: SqlClient, table: RewoundTable, saveId: string): Promise<PendingRewinds> {
  const result = await client.query<{ turn_id: string | number; last: string | number }>(
    `SELECT turn_id, ${table.order} AS last FROM ${table.rewinds} WHERE save_id = $1`,
    [saveId],
  );
  return { turns: result.rows.map((row) => Number(row.turn_id)), orders: result.rows.map((row) => Number(row.last)) };
}

/**
 * visibleRow's rule over records given as two parameters (`turns` and `orders`: SQL of bigint arrays, from
 * pendingRewinds) instead of the record table.
 *
 * @example
 * ```ts
 * `SELECT ... FROM ${chunks.rows} c WHERE c.save_id = 'run-1' AND ${visibleAmong(chunks, 'c', '$2', '$3')}`; // [rewinds.turns, rewinds.orders]
 * ```
 */
export function visibleAmong(table: RewoundTable, alias: string, turns: string, orders: string): string {
  return `NOT EXISTS (SELECT 1 FROM unnest(${turns}::bigint[], ${orders}::bigint[]) AS r (turn_id, last)
    WHERE ${alias}.turn_id > r.turn_id AND ${alias}.${table.order} <= r.last)`;
}

/**
 * Hides the rows of `saveId` after `turnId` in `table` inside the caller's write transaction (which holds the save's
 * row lock) and returns how many it hid, keeping one record per save: one statement whatever the number of rows
 * (under load every round trip costs a wait for the CPU), which reads the save's record once and takes one branch:
 * - No record, or one of a turn at or after `turnId`: the rows after the turn are counted (the (save_id, turn_id)
 *   index alone when no record) and the record becomes (save, turn, the save's largest id: one step down its
 *   primary key), which hides everything the old one did.
 * - A record of an earlier turn T0 (a rewind the purge has not finished): it already hides the rows after T0 up to
 *   its id, so only the rows after `turnId` written since are left, and they are deleted here (the turns played
 *   since that rewind: usually few).
 * The branches not taken cost nothing: a CASE on the record picks the count, and the DELETE's condition on it is a
 * one-time filter.
 *
 * @example
 * ```ts
 * const removed = await hideRowsAfter(client, rewoundTables('mnemo').chunks, 'run-1', 12); // inside PostgresStore.rewind's transaction
 * ```
 */
export async function hideRowsAfter(client: SqlClient, table: RewoundTable, saveId: string, turnId: number): Promise<number> {
  const { rows, rewinds, order } = table;
  const result = await client.query<{ hidden: string | number }>(
    `WITH pending AS MATERIALIZED (
        SELECT turn_id, ${order} AS last FROM ${rewinds} WHERE save_id = $1
      ), deleted AS (
        DELETE FROM ${rows} WHERE save_id = $1 AND turn_id > $2 AND ${order} > (SELECT last FROM pending) AND (SELECT turn_id FROM pending) < $2
        RETURNING 1
      ), counted AS MATERIALIZED (
        SELECT CASE WHEN (SELECT turn_id FROM pending) IS NULL THEN (SELECT COUNT(*) FROM ${rows} WHERE save_id = $1 AND turn_id > $2)
          WHEN (SELECT turn_id FROM pending) >= $2 THEN (SELECT COUNT(*) FROM ${rows} WHERE save_id = $1 AND turn_id > $2
            AND (turn_id <= (SELECT turn_id FROM pending) OR ${order} > (SELECT last FROM pending)))
          ELSE 0 END AS n
      ), recorded AS (
        INSERT INTO ${rewinds} (save_id, turn_id, ${order})
        SELECT $1, $2, (SELECT MAX(m.${order}) FROM ${rows} m WHERE m.save_id = $1) FROM counted WHERE n > 0
        ON CONFLICT (save_id) DO UPDATE SET turn_id = EXCLUDED.turn_id, ${order} = EXCLUDED.${order}
      ) SELECT (SELECT n FROM counted) + (SELECT COUNT(*) FROM deleted) AS hidden`,
    [saveId, turnId],
  );
  return Number(result.rows[0]?.hidden ?? 0);
}

/**
 * Deletes every row of `saveId` in `table`, hidden ones too, and its pending rewinds (what deleting a save does),
 * inside the caller's transaction. Returns how many visible rows it deleted.
 *
 * @example
 * ```ts
 * const facts = await deleteAllRows(client, rewoundTables('mnemo').facts, 'run-1');
 * ```
 */
export async function deleteAllRows(client: SqlClient, table: RewoundTable, saveId: string): Promise<number> {
  const counted = await client.query<{ n: string | number }>(`SELECT COUNT(*) AS n FROM ${table.rows} t WHERE t.save_id = $1 AND ${visibleRow(table, 't', '$1')}`, [saveId]);
  await client.query(`DELETE FROM ${table.rows} WHERE save_id = $1`, [saveId]);
  await client.query(`DELETE FROM ${table.rewinds} WHERE save_id = $1`, [saveId]);
  return Number(counted.rows[0]?.n ?? 0);
}

/**
 * True when a rewind's hidden rows are waiting for the purge, in any of `tables`: of the save `saveId`, or of any
 * save when it is null (a read of every shard on Citus).
 *
 * @example
 * ```ts
 * if (await purgePending(client, rewoundTables('mnemo').all, 'run-1')) await purgeRewoundRows(client, tables, PURGE_BATCH, 'run-1');
 * ```
 */
export async function purgePending(client: SqlClient, tables: readonly RewoundTable[], saveId: string | null): Promise<boolean> {
  const where = saveId === null ? '' : ' WHERE save_id = $1';
  const pending = tables.map((table) => `EXISTS (SELECT 1 FROM ${table.rewinds}${where})`).join(' OR ');
  const result = await client.query<{ pending: boolean }>(`SELECT ${pending} AS pending`, saveId === null ? [] : [saveId]);
  return result.rows[0]?.pending === true;
}

/**
 * One step of the purge, in the caller's transaction: deletes up to `limit` rows of the pending rewind of the save
 * `saveId` (of any save when null) in the first table that has one, and the record once its rows are gone. Returns
 * how many rows it deleted and whether rewinds remain (of that save, or of any); run it in short transactions until
 * `pending` is false. A crash between steps loses nothing: the record stays and hides what is left. With a save,
 * every statement names it (one shard on Citus); without, finding a record reads every shard.
 *
 * @example
 * ```ts
 * while ((await sql.transaction((client) => purgeRewoundRows(client, rewoundTables('mnemo').all, PURGE_BATCH, 'run-1'))).pending);
 * ```
 */
export async function purgeRewoundRows(client: SqlClient, tables: readonly RewoundTable[], limit: number, saveId: string | null): Promise<{ deleted: number; pending: boolean }> {
  for (const table of tables) {
    const found = await client.query<{ save_id: string; turn_id: string | number; last: string | number }>(
      `SELECT save_id, turn_id, ${table.order} AS last FROM ${table.rewinds}${saveId === null ? '' : ' WHERE save_id = $1'} LIMIT 1`,
      saveId === null ? [] : [saveId],
    );
    const rewind = found.rows[0];
    if (rewind === undefined) continue;
    const params = [rewind.save_id, rewind.turn_id, rewind.last];
    const deleted = (await client.query(
      `DELETE FROM ${table.rows} WHERE save_id = $1 AND ${table.order} IN
        (SELECT ${table.order} FROM ${table.rows} WHERE save_id = $1 AND turn_id > $2 AND ${table.order} <= $3 LIMIT $4)`,
      [...params, limit],
    )).rowCount;
    if (deleted < limit) {
      // A rewind since may have replaced the record (same save, other values): that one stays.
      await client.query(`DELETE FROM ${table.rewinds} WHERE save_id = $1 AND turn_id = $2 AND ${table.order} = $3`, params);
      return { deleted, pending: await purgePending(client, tables, saveId) };
    }
    return { deleted, pending: true };
  }
  return { deleted: 0, pending: false };
}
