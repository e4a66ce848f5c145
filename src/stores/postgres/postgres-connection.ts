// What a sub-store of the PostgreSQL store is given: its schema, the connection for reads and its write transaction.
import { quoteIdentifier } from './identifiers.js';
import type { Queryable, SqlClient, TransactionOptions } from './queryable.js';

/** The PostgreSQL store's connection, as its sub-stores use it. */
export interface PostgresConnection {
  /** The schema holding Mnemo's tables. */
  readonly schema: string;
  /** The connection for reads, single or in a read transaction (throws STORE_CLOSED once the store is closed). */
  read(): Queryable;
  /** Runs `work` in one transaction on one client (throws once closed, or when the store is read-only). */
  write<T>(work: (client: SqlClient) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/**
 * The qualified name of one of Mnemo's tables in `schema`.
 *
 * @example
 * ```ts
 * schemaTable('mnemo', 'chunks'); // '"mnemo"."chunks"'
 * ```
 */
export function schemaTable(schema: string, name: string): string {
  return `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
}

/** Each open PostgreSQL store's connection, kept out of the store's public type. */
const connections = new WeakMap<object, PostgresConnection>();

/** Records the connection of a PostgreSQL store (called by its constructor). */
export function registerPostgresConnection(store: object, connection: PostgresConnection): void {
  connections.set(store, connection);
}

/**
 * The connection of a PostgreSQL store, for the repository's own tests and benchmarks (not part of the package's API).
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url });
 * await postgresConnectionOf(store).read().query('SELECT 1');
 * ```
 */
export function postgresConnectionOf(store: object): PostgresConnection {
  const connection = connections.get(store);
  if (connection === undefined) throw new TypeError('postgresConnectionOf: expected a store opened by openPostgresStore.');
  return connection;
}
