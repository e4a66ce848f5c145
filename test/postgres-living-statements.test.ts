// PostgreSQL round trips of the living layer: a rewind and a fork send a fixed number of statements, whatever the
// number of rows they change (one batch per kind of change, never one statement per row).
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidationAction } from '../src/core/living-types.js';
import { openPostgresStore, pgliteQueryable, poolQueryable } from '../src/stores/postgres/index.js';
import type { PostgresStore, Queryable } from '../src/stores/postgres/index.js';
import { countingQueryable } from '../src/testing/counting-queryable.js';
import type { CountingQueryable } from '../src/testing/counting-queryable.js';
import { SERVER_SKIP_REASON, SERVER_URL } from './postgres-targets.js';

let schemaCounter = 0;
const schema = () => `statements_${process.pid}_${++schemaCounter}`;

/** A save whose rewind to turn 3 rolls back `size` beliefs and `size` models (and drops as many of each). */
async function seed(store: PostgresStore, size: number): Promise<void> {
  const early = await store.living.insertFacts('s', 1, Array.from({ length: size }, (_, index) => ({ statement: `Early fact ${index}.` })));
  const late = await store.living.insertFacts('s', 5, Array.from({ length: size }, (_, index) => ({ statement: `Late fact ${index}.` })));
  const turns = new Map([...early.map((id): [number, number] => [id, 1]), ...late.map((id): [number, number] => [id, 5])]);
  const create = (statement: string, factId: number): ConsolidationAction => ({ kind: 'CREATE', statement, subject: '', beliefId: null, sourceFactIds: [factId] });
  await store.living.applyConsolidation('s', 2, early.map((id, index) => create(`Belief ${index}.`, id)), turns);
  const beliefs = await store.living.getBeliefs('s');
  await store.living.applyConsolidation('s', 5, beliefs.map((belief, index) => ({ kind: 'UPDATE', statement: `Belief ${index}, revised.`, subject: '', beliefId: belief.beliefId, sourceFactIds: [late[index] as number] })), turns);
  await store.living.applyConsolidation('s', 6, late.map((id, index) => create(`Later belief ${index}.`, id)), turns);
  for (let index = 0; index < size; index++) {
    await store.living.upsertModel('s', `Subject ${index}`, `Profile ${index} at turn 2.`, 2);
    await store.living.upsertModel('s', `Subject ${index}`, `Profile ${index} at turn 5.`, 5);
    await store.living.upsertModel('s', `Later subject ${index}`, `Profile ${index} at turn 6.`, 6);
  }
}

/** Statements sent by one rewind to turn 3 and by one fork at turn 4, on a save of `size`. */
async function measure(connect: () => Queryable, size: number) {
  const sql: CountingQueryable = countingQueryable(connect());
  const name = schema();
  const store = await openPostgresStore({ client: sql, schema: name });
  try {
    await seed(store, size);
    sql.reset();
    await store.fork('s', 'branch', 6);
    const fork = sql.statements;
    sql.reset();
    const { removed } = await store.rewind('s', 3);
    return { fork, rewind: sql.statements, removed };
  } finally {
    await sql.query(`DROP SCHEMA "${name}" CASCADE`);
    await store.close();
  }
}

function suite(name: string, connect: () => Queryable) {
  it(`${name}: a rewind and a fork send as many statements for 30 changed rows per table as for 3`, async () => {
    const small = await measure(connect, 3);
    const large = await measure(connect, 30);
    expect(small.removed.living).toEqual({ facts: 3, beliefsDeleted: 3, beliefsUpdated: 3, modelsDeleted: 3, modelsUpdated: 3, jobsCancelled: 0 });
    expect(large.removed.living).toEqual({ facts: 30, beliefsDeleted: 30, beliefsUpdated: 30, modelsDeleted: 30, modelsUpdated: 30, jobsCancelled: 0 });
    expect(large.rewind).toBe(small.rewind);
    expect(large.fork).toBe(small.fork);
    // The store's own statements (lock the save, read the chunks' rewind record, hide them) and at most two per step
    // of the living layer (the facts: read their rewind record, hide them; see src/stores/postgres/rewound-rows.ts).
    expect(small.rewind).toBeLessThanOrEqual(14);
  }, 120_000);
}

describe('living memory on PostgreSQL: statements per rewind and fork', () => {
  let database: PGlite | null = null;
  beforeAll(async () => {
    database = await PGlite.create({ extensions: { vector } });
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });
  suite('PGlite', () => pgliteQueryable(database as PGlite));
  describe.skipIf(SERVER_SKIP_REASON !== null)(`on the server${SERVER_SKIP_REASON === null ? '' : ` (${SERVER_SKIP_REASON})`}`, () => {
    suite('server', () => poolQueryable(new pg.Pool({ connectionString: SERVER_URL, max: 2 }), { owned: true }));
  });
});
