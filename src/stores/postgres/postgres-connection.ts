// What a sub-store of the PostgreSQL store is given: its schema, the connection for reads and its write transaction.
import type { SqlClient } from './queryable.js';

/** The PostgreSQL store's connection, as its sub-stores use it. */
export interface PostgresConnection {
  /** The schema holding Mnemo's tables. */
  readonly schema: string;
  /** The connection for single reads (throws STORE_CLOSED once the store is closed). */
  read(): SqlClient;
  /** Runs `work` in one transaction on one client (throws once closed, or when the store is read-only). */
  write<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
}
