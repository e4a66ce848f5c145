// Mnemo on Citus: per-save tables distributed by save id and co-located, shared tables copied to every node.
import { MnemoError } from '../../core/errors.js';
import { quoteIdentifier } from './identifiers.js';
import type { SqlClient } from './queryable.js';

/**
 * Tables holding rows of one save each, distributed by `save_id` and co-located with `saves`: every row of a save
 * lives in one shard group (on one worker), so a statement naming the save runs on that worker alone and a
 * transaction of one save (a write, a rewind, a delete) commits there without two-phase commit. Their primary
 * keys and unique constraints start with, or include, `save_id` (Citus enforces them per shard).
 */
export const PER_SAVE_TABLES = [
  'saves', 'chunks', 'chunk_rewinds', 'living_facts', 'fact_rewinds', 'living_beliefs', 'living_models', 'living_model_versions', 'living_jobs',
] as const;

/**
 * Tables shared by every save (the schema's bookkeeping, the embedding cache and reindex staging, recall entries,
 * the lore book): Citus reference tables, one copy on every node, so a per-save statement may read them on its
 * worker; a write to one goes to every node in one transaction.
 */
export const SHARED_TABLES = [
  'schema_migrations', 'meta', 'embedding_cache', 'reindex_staging', 'reindex_staging_recall', 'reindex_staging_lore',
  'recall_entries', 'recall_state', 'lore_entries', 'lore_book',
] as const;

/** What the server says of Citus: whether the extension is there, and whether this node is the coordinator. */
export interface CitusNode {
  /** The citus extension's version in this database, or null when it is not installed. */
  version: string | null;
  /**
   * True on the coordinator (node group 0: also a single-node Citus database whose coordinator is not registered
   * yet), or on plain PostgreSQL, which has none; false on a worker.
   */
  coordinator: boolean;
}

/**
 * Asks the server whether this database runs Citus, and on which node we are.
 *
 * @example
 * ```ts
 * await detectCitus(client); // { version: '12.1-1', coordinator: true }, or { version: null, coordinator: true }
 * ```
 */
export async function detectCitus(client: SqlClient): Promise<CitusNode> {
  const extension = await client.query<{ version: string }>("SELECT extversion AS version FROM pg_extension WHERE extname = 'citus'");
  const version = extension.rows[0]?.version ?? null;
  if (version === null) return { version, coordinator: true };
  // Not citus_is_coordinator(): it is false until the coordinator is in pg_dist_node, which a fresh single-node
  // database (Citus 12 places the shards on the coordinator at the first distributed table) is not.
  const node = await client.query<{ coordinator: boolean }>('SELECT groupid = 0 AS coordinator FROM pg_dist_local_group');
  return { version, coordinator: node.rows[0]?.coordinator !== false };
}

/**
 * Decides whether a store distributes its schema: `distributed` as asked, else whenever the server runs Citus.
 * Refuses what Citus cannot do for Mnemo: distributing without Citus, and writing through a worker node (rows
 * made there take their `seq` from the worker's own range, which breaks a save's insertion order).
 *
 * @example
 * ```ts
 * requireDistribution({ version: '12.1-1', coordinator: true }, { location: 'db#mnemo', readonly: false }); // true
 * ```
 */
export function requireDistribution(node: CitusNode, options: { distributed?: boolean; readonly: boolean; location: string }): boolean {
  if (options.distributed === true && node.version === null) {
    throw new MnemoError('UNSUPPORTED', `distributed: true needs the citus extension, but the database at ${options.location} does not have it. Run CREATE EXTENSION citus on the coordinator (and add the workers), or leave \`distributed\` out to use plain PostgreSQL.`, {
      details: { location: options.location, feature: 'distributed' },
    });
  }
  if (node.version !== null && !node.coordinator && !options.readonly) {
    throw new MnemoError('UNSUPPORTED', `The database at ${options.location} is a Citus worker node. Mnemo writes only through the coordinator: rows made on a worker take their sequence numbers from the worker's own range, which would break a save's insertion order (and schema changes run on the coordinator). Connect to the coordinator, or open with \`readonly: true\` to query through this worker.`, {
      details: { location: options.location, feature: 'citus-worker-writes' },
    });
  }
  return options.distributed ?? node.version !== null;
}

interface TableState {
  name: string;
  /** Citus's partition method: 'h' (distributed by hash), 'n' (reference or Citus-local), null (a plain table). */
  method: string | null;
  /** Citus's replication model: 't' for a reference table. */
  model: string | null;
}

/**
 * Distributes the tables of a migrated schema that are not yet (run inside the migration transaction, with
 * `search_path` on the schema): per-save tables by `save_id`, co-located with `saves`, in a colocation group of
 * their own with the cluster's `citus.shard_count` shards; shared tables as reference tables. Idempotent: a schema
 * already distributed costs one catalogue read. Returns the tables it changed.
 *
 * @example
 * ```ts
 * await distributeSchema(client, 'mnemo'); // ['schema_migrations', ..., 'saves', 'chunks', ...] the first time, [] after
 * ```
 */
export async function distributeSchema(client: SqlClient, schema: string): Promise<string[]> {
  const result = await client.query<TableState>(
    `SELECT c.relname AS name, p.partmethod AS method, p.repmodel AS model FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
    [schema],
  );
  const states = new Map(result.rows.map((row) => [row.name, row]));
  const qualified = (table: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
  const changed: string[] = [];
  for (const table of SHARED_TABLES) {
    const state = states.get(table);
    if (state === undefined || (state.method === 'n' && state.model === 't')) continue;
    await client.query('SELECT create_reference_table($1)', [qualified(table)]);
    changed.push(table);
  }
  for (const table of PER_SAVE_TABLES) {
    const state = states.get(table);
    if (state === undefined || state.method === 'h') continue;
    const colocate = table === 'saves' ? 'none' : qualified('saves');
    await client.query("SELECT create_distributed_table($1, 'save_id', colocate_with => $2)", [qualified(table), colocate]);
    changed.push(table);
  }
  return changed;
}
