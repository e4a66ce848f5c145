// A PostgreSQL connection wrapper that counts the statements Mnemo sends, for tests and benchmarks of round trips.
import type { Queryable, SqlClient } from '../stores/postgres/queryable.js';

/** A Queryable that counts what passes through it. */
export interface CountingQueryable extends Queryable {
  /** Statements sent so far, on the connection and inside transactions (BEGIN and COMMIT are not Mnemo's, not counted). */
  readonly statements: number;
  /** Transactions run so far. */
  readonly transactions: number;
  /** Sets both counts back to zero. */
  reset(): void;
}

/**
 * Wraps a Queryable and counts its statements and transactions; the results are the inner connection's.
 *
 * @example
 * ```ts
 * const sql = countingQueryable(pgliteQueryable(db));
 * const store = await openPostgresStore({ client: sql });
 * sql.reset();
 * await store.rewind('run-1', 12);
 * sql.statements; // 13
 * ```
 */
export function countingQueryable(inner: Queryable): CountingQueryable {
  let statements = 0;
  let transactions = 0;
  const counted = (client: SqlClient): SqlClient => ({
    query(text, params) {
      statements++;
      return client.query(text, params);
    },
  });
  const direct = counted(inner);
  return {
    get statements() { return statements; },
    get transactions() { return transactions; },
    reset() { statements = 0; transactions = 0; },
    query: direct.query,
    transaction(work, options) {
      transactions++;
      return inner.transaction((client) => work(counted(client)), options);
    },
    close: () => inner.close(),
  };
}
