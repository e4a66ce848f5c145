// The little the PostgreSQL store needs of a connection: queries and transactions, over pg.Pool or PGlite.

/** The rows of a query and how many rows a write touched. */
export interface SqlResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** Something that runs one SQL statement with `$1`-style parameters. */
export interface SqlClient {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>>;
}

/** How a transaction reads. Writes use the default (READ COMMITTED with row locks). */
export interface TransactionOptions {
  /** `repeatable read` gives every statement of the transaction one snapshot (for a consistent scan). */
  isolation?: 'read committed' | 'repeatable read';
  readOnly?: boolean;
}

/**
 * A database connection source: single statements, and transactions that run on one connection and are
 * exclusive (no other statement of this process slips into them). Both `pg.Pool` (through `poolQueryable`)
 * and PGlite (through `pgliteQueryable`) satisfy it.
 */
export interface Queryable extends SqlClient {
  /** Runs `work` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (client: SqlClient) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Releases what this queryable owns (a pool Mnemo created); leaves alone what the caller passed in. */
  close(): Promise<void>;
}

/** The part of a `pg` client Mnemo uses (structural, so `pg` is only needed at run time). */
export interface PgClientLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** The part of a `pg.Pool` Mnemo uses. */
export interface PgPoolLike extends PgClientLike {
  connect(): Promise<PgClientLike & { release(error?: Error | boolean): void }>;
  end(): Promise<void>;
}

/** The part of a PGlite instance Mnemo uses. */
export interface PgliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[]; affectedRows?: number }>;
  transaction<T>(work: (transaction: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[]; affectedRows?: number }> }) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** SQLSTATE codes after which a whole transaction may simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 3;

function beginStatement(options: TransactionOptions | undefined): string {
  const isolation = options?.isolation === 'repeatable read' ? ' ISOLATION LEVEL REPEATABLE READ' : '';
  return `BEGIN${isolation}${options?.readOnly ? ' READ ONLY' : ''}`;
}

function isRetryable(error: unknown): boolean {
  return RETRYABLE.has((error as { code?: string } | null)?.code ?? '');
}

function fromPg(client: PgClientLike): SqlClient {
  return {
    async query<Row>(text: string, params?: readonly unknown[]) {
      const result = await client.query(text, params === undefined ? undefined : [...params]);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
  };
}

/**
 * Wraps a `pg.Pool`. Transactions check out one client, retry on serialization failures and deadlocks (the
 * work is run again from the start), and always give the client back.
 *
 * @example
 * ```ts
 * const sql = poolQueryable(new pg.Pool({ connectionString: 'postgres://localhost/game' }), { owned: true });
 * await sql.transaction(async (client) => client.query('SELECT 1'));
 * ```
 */
export function poolQueryable(pool: PgPoolLike, options: { owned: boolean }): Queryable {
  const direct = fromPg(pool);
  return {
    query: direct.query,
    async transaction<T>(work: (client: SqlClient) => Promise<T>, transactionOptions?: TransactionOptions): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query(beginStatement(transactionOptions));
          const result = await work(fromPg(client));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          try {
            await client.query('ROLLBACK');
          } catch (rollbackError) {
            broken = rollbackError as Error;
          }
          if (attempt < ATTEMPTS && isRetryable(error)) continue;
          throw error;
        } finally {
          client.release(broken);
        }
      }
    },
    async close() {
      if (options.owned) await pool.end();
    },
  };
}

/**
 * Wraps a PGlite instance (PostgreSQL in WebAssembly, in process). PGlite runs one statement at a time and its
 * transactions are exclusive, which is what the store needs. Load it with the `vector` extension.
 *
 * @example
 * ```ts
 * const db = await PGlite.create({ extensions: { vector } });
 * const store = await openPostgresStore({ client: pgliteQueryable(db) });
 * ```
 */
export function pgliteQueryable(db: PgliteLike, options: { owned?: boolean } = {}): Queryable {
  const wrap = (runner: Pick<PgliteLike, 'query'>): SqlClient => ({
    async query<Row>(text: string, params?: readonly unknown[]) {
      const result = await runner.query(text, params === undefined ? undefined : [...params]);
      return { rows: result.rows as Row[], rowCount: result.affectedRows ?? 0 };
    },
  });
  const direct = wrap(db);
  return {
    query: direct.query,
    transaction<T>(work: (client: SqlClient) => Promise<T>, transactionOptions?: TransactionOptions): Promise<T> {
      return db.transaction(async (transaction) => {
        const begin = beginStatement(transactionOptions);
        if (begin !== 'BEGIN') await transaction.query(`SET TRANSACTION${begin.slice('BEGIN'.length)}`);
        return work(wrap(transaction));
      });
    },
    async close() {
      if (options.owned) await db.close();
    },
  };
}
