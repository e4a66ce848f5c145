// The PostgreSQL side of the peer benchmark: one schema per collection folder, its size, the server's versions.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import type { SqlClient } from '../../src/stores/postgres/index.js';

/**
 * The schema of the collection in `folder`: `peers_` and the first 12 hex digits of the SHA-1 of its absolute
 * path, so the worker that creates it and the one that opens it agree without being told.
 *
 * @example
 * ```ts
 * collectionSchema('/tmp/mnemo-peers/data/mnemo-pg-10000'); // 'peers_' + 12 hex digits
 * ```
 */
export function collectionSchema(folder: string): string {
  return `peers_${createHash('sha1').update(resolve(folder)).digest('hex').slice(0, 12)}`;
}

/** Bytes of a schema's tables, their indexes and TOAST included (`pg_total_relation_size`). */
export async function schemaBytes(client: SqlClient, schema: string): Promise<number> {
  const result = await client.query<{ bytes: string | null }>(
    "SELECT SUM(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'm')",
    [schema],
  );
  return Number(result.rows[0]?.bytes ?? 0);
}

/** Runs `work` on a one-connection pool of `url`, then ends the pool. */
async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

/** Drops the schemas (and everything in them) if they exist. */
export function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  return withPool(url, async (pool) => {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
}

/** The server's version and pgvector's, e.g. `PostgreSQL 15.20 + pgvector 0.8.0`. */
export function postgresVersion(url: string): Promise<string> {
  return withPool(url, async (pool) => {
    const result = await pool.query<{ server: string; vector: string | null }>(
      "SELECT current_setting('server_version') AS server, COALESCE((SELECT extversion FROM pg_extension WHERE extname = 'vector'), (SELECT default_version FROM pg_available_extensions WHERE name = 'vector')) AS vector",
    );
    const row = result.rows[0];
    return `PostgreSQL ${row?.server.split(' ')[0] ?? '?'} + pgvector ${row?.vector ?? 'not installed'}`;
  });
}
