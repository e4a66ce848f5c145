// The rewind of the living layer alone (no chunks), in one transaction of the store, for bench:living's split.
import { runRowProgram, runRowProgramAsync } from '../src/core/row-program.js';
import { rewindLiving } from '../src/living/store/rewind-living.js';
import { PostgresStore } from '../src/stores/postgres/index.js';
import { livingTables, PostgresLivingRows } from '../src/stores/postgres/living-rows.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { SqliteLivingRows } from '../src/stores/sqlite/living-rows.js';
import { postgresConnectionOf } from '../src/stores/postgres/postgres-connection.js';
import { sqliteConnectionOf } from '../src/stores/sqlite/sqlite-connection.js';

/**
 * Rolls the living layer of a save back to `target` as `Store.rewind` does, without touching its chunks.
 *
 * @example
 * ```ts
 * await rewindLivingLayer(store, 'bench', 500);
 * ```
 */
export async function rewindLivingLayer(store: SqliteStore | PostgresStore, saveId: string, target: number): Promise<void> {
  if (store instanceof PostgresStore) {
    const tables = livingTables(store.schema);
    await postgresConnectionOf(store).write((client) => runRowProgramAsync(rewindLiving(saveId, target), new PostgresLivingRows(client, tables)));
    return;
  }
  const connection = sqliteConnectionOf(store);
  const rows = new SqliteLivingRows(connection);
  connection.write(() => runRowProgram(rewindLiving(saveId, target), rows));
}
