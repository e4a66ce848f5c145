// Applies the PostgreSQL schema migrations in one transaction under an advisory lock, and records them by id.
import { MnemoError } from '../../core/errors.js';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';
import type { PostgresMigration } from './migrations/index.js';
import type { Queryable } from './queryable.js';
import { quoteIdentifier } from './identifiers.js';
import { distributeSchema } from './distribution.js';

export { POSTGRES_MIGRATIONS } from './migrations/index.js';
export type { PostgresMigration } from './migrations/index.js';

/** The advisory lock every Mnemo process takes to change the schema (migrations, new vector indexes). */
export const SCHEMA_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('mnemo:schema'))";

function refuseUnknown(schema: string, done: ReadonlySet<string>, migrations: readonly PostgresMigration[]): void {
  const known = new Set(migrations.map((migration) => migration.id));
  const unknown = [...done].filter((id) => !known.has(id)).sort();
  if (unknown.length > 0) {
    throw new MnemoError('SCHEMA_TOO_NEW', `The PostgreSQL schema ${schema} holds migrations this Mnemo does not know (${unknown.join(', ')}), but this Mnemo knows ${migrations.length}. Upgrade Mnemo to open it.`, {
      details: { schema, supported: migrations.length, unknown },
    });
  }
}

/**
 * Checks, without writing, that a schema is exactly at this build's migrations (for a read-only store on a
 * replica, which cannot migrate).
 *
 * @example
 * ```ts
 * await checkPostgresSchema(sql, 'mnemo'); // throws unless every known migration, and no other, is applied
 * ```
 */
export async function checkPostgresSchema(sql: Queryable, schema: string, migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS): Promise<void> {
  const exists = await sql.query('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [schema, 'schema_migrations']);
  if (exists.rows.length === 0) {
    throw new MnemoError('STORE_FAILURE', `The PostgreSQL schema ${schema} holds no Mnemo tables, and a read-only store cannot create them. Open it once without \`readonly\` (on the primary) first.`, { details: { schema } });
  }
  const done = new Set((await sql.query<{ id: string }>(`SELECT id FROM ${quoteIdentifier(schema)}.schema_migrations`)).rows.map((row) => row.id));
  refuseUnknown(schema, done, migrations);
  const missing = migrations.filter((migration) => !done.has(migration.id)).map((migration) => migration.id);
  if (missing.length > 0) {
    throw new MnemoError('STORE_FAILURE', `The PostgreSQL schema ${schema} lacks migrations this Mnemo needs (${missing.join(', ')}), and a read-only store cannot apply them. Open it once without \`readonly\` (on the primary) first.`, { details: { schema, missing } });
  }
}

/** How `migratePostgres` lays the tables out. */
export interface MigrateOptions {
  /** On Citus: distribute the per-save tables by save id and make the shared ones reference tables (distribution.ts). */
  distribute?: boolean;
}

/**
 * Brings a schema up to date in one transaction. The transaction first takes an advisory lock, so two
 * processes migrating at once run one after the other (the second finds nothing left to do). With `distribute`,
 * every table not yet distributed is distributed in the same transaction (new tables of later migrations too). Applied
 * migrations are recorded by id in `schema_migrations`; a schema holding a migration this build does not know
 * (written by a newer Mnemo) is refused rather than guessed at.
 *
 * @example
 * ```ts
 * await migratePostgres(poolQueryable(pool, { owned: false }), 'mnemo'); // { applied: ['chunks-001', ...], distributed: [] }
 * ```
 */
export async function migratePostgres(sql: Queryable, schema: string, migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS, options: MigrateOptions = {}): Promise<{ applied: string[]; distributed: string[] }> {
  return sql.transaction(async (client) => {
    await client.query(SCHEMA_LOCK_SQL);
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    } catch (error) {
      throw new MnemoError('STORE_FAILURE', `Could not enable the pgvector extension: ${(error as Error).message}. Install pgvector (0.8 or newer) on the server and run CREATE EXTENSION vector once as a user allowed to.`, { cause: error });
    }
    const extension = await client.query<{ schema: string }>("SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'");
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
    const searchPath = [schema, extension.rows[0]?.schema ?? 'public'].map(quoteIdentifier).join(', ');
    await client.query("SELECT set_config('search_path', $1, true)", [searchPath]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const done = new Set((await client.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((row) => row.id));
    refuseUnknown(schema, done, migrations);
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      await migration.up(client);
      await client.query('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [migration.id, Date.now()]);
      applied.push(migration.id);
    }
    return { applied, distributed: options.distribute === true ? await distributeSchema(client, schema) : [] };
  });
}
