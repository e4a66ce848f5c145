// Where the PostgreSQL suites run: PGlite in process (always), a real server (MNEMO_TEST_PG_URL) and a Citus cluster (MNEMO_TEST_CITUS_URL).
import { afterAll, beforeAll } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import pg from 'pg';
import { openPostgresStore, pgliteQueryable } from '../src/stores/postgres/index.js';
import type { PostgresStore, PostgresStoreOptions } from '../src/stores/postgres/index.js';

/** The URL of a real PostgreSQL server with pgvector, if the environment names one. */
export const SERVER_URL = process.env.MNEMO_TEST_PG_URL?.trim() || undefined;

/** Why the real-server suites are skipped here (null when they run). */
export const SERVER_SKIP_REASON = SERVER_URL === undefined
  ? 'skipped: MNEMO_TEST_PG_URL is not set (bash .ci/run starts a PostgreSQL server with pgvector and sets it; locally, point it at any server)'
  : null;

/** The URL of a Citus coordinator with pgvector (two workers behind it), if the environment names one. */
export const CITUS_URL = process.env.MNEMO_TEST_CITUS_URL?.trim() || undefined;

/** Why the Citus suites are skipped here (null when they run). */
export const CITUS_SKIP_REASON = CITUS_URL === undefined
  ? 'skipped: MNEMO_TEST_CITUS_URL is not set (bash .ci/run starts a Citus cluster with scripts/citus-test-server.sh and sets it)'
  : null;

/** Store options a test may pass, besides the connection. */
export type TargetOptions = Omit<PostgresStoreOptions, 'url' | 'pool' | 'client'>;

/** One place the PostgreSQL adapter can run. Every `open()` without a schema gets a fresh, empty one. */
export interface PostgresTarget {
  name: string;
  /** Null when this target runs; else why it is skipped. */
  skip: string | null;
  /** A fresh schema name, unique to this test process. */
  newSchema(): string;
  /** Opens a store (a fresh schema unless one is given). */
  open(options?: TargetOptions): Promise<PostgresStore>;
  /** Runs SQL outside any store (for inspecting or tampering with the schema). */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
}

let schemaCounter = 0;
const newSchema = () => `t${process.pid}_${++schemaCounter}`;

/** PGlite (PostgreSQL 17 in WebAssembly, with pgvector): one instance per test file, a schema per store. */
export function pgliteTarget(): PostgresTarget {
  let instance: Promise<PGlite> | null = null;
  const database = () => (instance ??= PGlite.create({ extensions: { vector } }));
  // Booting PostgreSQL in WebAssembly takes seconds (more on a busy machine): once per file, with room to spare.
  beforeAll(async () => { await database(); }, 120_000);
  afterAll(async () => {
    if (instance !== null) await (await instance).close();
  });
  return {
    name: 'PGlite',
    skip: null,
    newSchema,
    async open(options = {}) {
      return openPostgresStore({ ...options, schema: options.schema ?? newSchema(), client: pgliteQueryable(await database()) });
    },
    async query<Row>(text: string, params?: unknown[]) {
      return (await (await database()).query(text, params)).rows as Row[];
    },
  };
}

/** A server at a URL: each store in its own schema, every schema dropped when the file ends. */
function urlTarget(name: string, url: string | undefined, skip: string | null): PostgresTarget {
  const created: string[] = [];
  let admin: pg.Pool | null = null;
  const pool = () => (admin ??= new pg.Pool({ connectionString: url, max: 2 }));
  afterAll(async () => {
    if (admin === null && created.length === 0) return;
    // 20 schemas a statement: one commit (one fsync) for each batch, not each schema, and few enough locks per transaction
    for (let start = 0; start < created.length; start += 20) await pool().query(`DROP SCHEMA IF EXISTS ${created.slice(start, start + 20).map((schema) => `"${schema}"`).join(', ')} CASCADE`);
    await pool().end();
  }, 600_000); // a file's few hundred schemas (every contract suite runs in one file) take a while to drop on a busy machine (each holds a dozen tables; on Citus each also has shards on every worker, about 1.5 s a schema with load 8 on 2 cores)
  return {
    name,
    skip,
    newSchema() {
      const schema = newSchema();
      created.push(schema);
      return schema;
    },
    async open(options = {}) {
      return openPostgresStore({ ...options, schema: options.schema ?? this.newSchema(), url: url as string });
    },
    async query<Row>(text: string, params?: unknown[]) {
      return (await pool().query(text, params)).rows as Row[];
    },
  };
}

/** The real server at MNEMO_TEST_PG_URL. */
export function serverTarget(): PostgresTarget {
  return urlTarget('server', SERVER_URL, SERVER_SKIP_REASON);
}

/** The Citus coordinator at MNEMO_TEST_CITUS_URL: stores there distribute their per-save tables by save id. */
export function citusTarget(): PostgresTarget {
  return urlTarget('Citus', CITUS_URL, CITUS_SKIP_REASON);
}

/** Every target: PGlite always, the server when MNEMO_TEST_PG_URL is set, Citus when MNEMO_TEST_CITUS_URL is. */
export function postgresTargets(): PostgresTarget[] {
  return [pgliteTarget(), serverTarget(), citusTarget()];
}
