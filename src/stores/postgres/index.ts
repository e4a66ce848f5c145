// The PostgreSQL store: Mnemo beyond one machine (a pool, migrations, transactions, pgvector's HNSW).
import { PostgresStore } from './postgres-store.js';
import type { PostgresStoreOptions } from './postgres-store.js';

export { PostgresStore } from './postgres-store.js';
export { PostgresRecallStore } from './recall-store.js';
export { PostgresLoreStore } from './lore-store.js';
export { PostgresEmbeddingStore } from './embedding-store.js';
export type { PostgresStoreOptions } from './postgres-store.js';
export { POSTGRES_MIGRATIONS, migratePostgres, checkPostgresSchema } from './migrations.js';
export type { PostgresMigration } from './migrations.js';
export { poolQueryable, pgliteQueryable } from './queryable.js';
export type { Queryable, SqlClient, SqlResult, TransactionOptions, PgPoolLike, PgClientLike, PgliteLike } from './queryable.js';
export { PostgresVectorSearch, VECTOR_SEARCH_DEFAULTS, HNSW_MAX_DIMENSIONS, vectorIndexName } from './vector-search.js';
export type { VectorSearchSettings } from './vector-search.js';
export { isPostgresUrl, redactUrl } from './identifiers.js';

/**
 * Opens (creating the schema and migrating if needed) a PostgreSQL store. The server needs pgvector 0.8 or
 * newer (older versions work, with a starved approximate search redone exactly instead of scanned further).
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url: 'postgres://mnemo:secret@db.internal:5432/game' });
 * const memory = await openMemory({ store });
 * ```
 */
export function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  return PostgresStore.open(options);
}
