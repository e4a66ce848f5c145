// Mnemo on Citus: which tables are distributed, every per-save statement on one shard, and what is refused.
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { isMnemoError } from '../src/core/errors.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { Mnemo } from '../src/open-memory.js';
import { PER_SAVE_TABLES, SHARED_TABLES } from '../src/stores/postgres/distribution.js';
import { openPostgresStore } from '../src/stores/postgres/index.js';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { CITUS_SKIP_REASON, CITUS_URL, citusTarget, pgliteTarget } from './postgres-targets.js';

const pglite = pgliteTarget();
const citus = citusTarget();

/** The URL with extra server settings for every connection of its pool (libpq's `options`). */
function withSettings(url: string, settings: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(settings)}`;
}

const memoryOn = (store: PostgresStore) => new Mnemo({ store, embedder: hashingEmbedder({ dimensions: 16 }), reranker: null, logger: silentLogger });

/** Writes, queries, rewinds, forks and deletes chunks of one save, every layer, as an application would. */
async function exercise(store: PostgresStore, saveId: string): Promise<void> {
  const memory = memoryOn(store);
  for (let turn = 1; turn <= 6; turn++) {
    await memory.addMany([
      { saveId, turnId: turn, text: `Turn ${turn}: the caravan reaches waypoint ${turn} and the guard counts coin.` },
      { saveId, turnId: turn, text: `Turn ${turn}: a lore note about the old road.`, chunkType: 'lore' },
    ]);
  }
  await memory.updateTurn({ saveId, turnId: 6, text: 'Turn 6: the caravan is ambushed at the ford.' });
  expect((await memory.query(saveId, 'caravan guard coin', { k: 5 })).length).toBe(5);
  expect((await memory.query(saveId, 'caravan', { k: 3, maxTurnId: 2, excludeChunkType: 'lore' })).map((hit) => hit.turnId).every((turn) => turn <= 2)).toBe(true);
  expect(await memory.count(saveId)).toBe(12);
  expect((await store.listChunks(saveId, { fromTurnId: 2, toTurnId: 3 })).length).toBe(4);
  expect((await store.listTurns(saveId)).length).toBe(6);

  const living = store.living;
  const job = await living.enqueueTurn(saveId, 6, { text: 'ambush' }, 1);
  const claimed = await living.claimJob({ workerId: 'w1', now: 2, leaseMs: 1000, saveId });
  const claim = { saveId, jobId: job.jobId, generation: claimed?.generation as number, claimToken: claimed?.claimToken as string };
  expect(await living.renewClaim(claim, 3)).toBe(true);
  expect(await living.completeStage(claim, { stage: 'extract', facts: [{ statement: 'Bandits ambush the caravan at the ford.', entities: ['Bandits'] }] }, 4)).toBe(true);
  const [fact] = await living.getFacts(saveId, { turnId: 6 });
  const create = { kind: 'CREATE' as const, statement: 'The ford is dangerous.', subject: 'Bandits', beliefId: null, sourceFactIds: [fact?.factId as number] };
  expect(await living.completeStage(claim, { stage: 'consolidate', actions: [create], factTurnMap: new Map([[fact?.factId as number, 6]]), subjects: ['Bandits'] }, 5)).toBe(true);
  const [belief] = await living.getBeliefs(saveId);
  expect(await living.completeStage(claim, { stage: 'reflect', models: [{ subject: 'Bandits', summary: 'Raiders of the ford.', sources: [belief?.beliefId as number] }] }, 6)).toBe(true);
  expect((await living.getModels(saveId)).map((model) => model.subject)).toEqual(['Bandits']);
  expect(await living.countJobs(saveId)).toMatchObject({ done: 1 });

  const copy = `${saveId}-fork`;
  const forked = await memory.fork(saveId, copy, 6);
  expect(forked.chunks).toBe(12);
  expect((await living.getModels(copy)).map((model) => model.summary)).toEqual(['Raiders of the ford.']);
  const rewound = await memory.rewindWithCounts(saveId, 3);
  expect(rewound.chunks).toBe(6);
  expect(await living.getFacts(saveId)).toEqual([]);
  expect(await memory.count(copy)).toBe(12);
  const [first] = await store.listChunks(saveId, { toTurnId: 1 });
  expect(await memory.deleteChunks({ saveId, ids: [first?.id as string, 'no-such-chunk'] })).toEqual({ chunks: 1 });
  expect(await memory.deleteChunks({ saveId, entryId: 'no-such-entry' })).toEqual({ chunks: 0 });
  expect(await memory.count(saveId)).toBe(5);
}

describe('the tables Citus distributes', () => {
  it('names every table of a migrated schema once, as per-save or shared', async () => {
    const store = await pglite.open();
    const tables = (await pglite.query<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY 1', [store.schema])).map((row) => row.name);
    const named = [...PER_SAVE_TABLES, ...SHARED_TABLES];
    expect(new Set(named).size).toBe(named.length);
    expect(tables, 'a new table must be added to PER_SAVE_TABLES or SHARED_TABLES in src/stores/postgres/distribution.ts').toEqual([...named].sort());
    await store.close();
  });

  it('keys every per-save table by save_id: primary keys and unique constraints include it', async () => {
    const store = await pglite.open();
    const constraints = await pglite.query<{ table: string; columns: string[] }>(
      `SELECT t.relname AS table, array_agg(a.attname::text ORDER BY a.attname) AS columns FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (c.conkey)
       WHERE n.nspname = $1 AND c.contype IN ('p', 'u') AND t.relname = ANY ($2::text[]) GROUP BY c.oid, t.relname`,
      [store.schema, [...PER_SAVE_TABLES]],
    );
    expect(constraints.length).toBeGreaterThanOrEqual(PER_SAVE_TABLES.length);
    for (const constraint of constraints) expect(constraint.columns, constraint.table).toContain('save_id');
    await store.close();
  });

  it('refuses distributed: true where there is no Citus, and distributes nothing by default', async () => {
    const error = await pglite.open({ distributed: true }).catch((caught: unknown) => caught);
    expect(isMnemoError(error, 'UNSUPPORTED')).toBe(true);
    expect((error as Error).message).toMatch(/needs the citus extension/);
    const store = await pglite.open();
    expect(store.distributed).toBe(false);
    await store.close();
  });
});

describe.skipIf(CITUS_SKIP_REASON !== null)(`Citus cluster${CITUS_SKIP_REASON === null ? '' : ` (${CITUS_SKIP_REASON})`}`, () => {
  const opened: PostgresStore[] = [];
  afterAll(async () => {
    for (const store of opened) await store.close();
  });

  it('distributes the per-save tables by save id in one colocation group, and makes the shared ones reference tables', async () => {
    const store = await citus.open();
    expect(store.distributed).toBe(true);
    const rows = await citus.query<{ name: string; method: string; model: string; colocation: number; column: string | null }>(
      `SELECT c.relname AS name, p.partmethod AS method, p.repmodel AS model, p.colocationid AS colocation, a.attname AS column
       FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = column_to_column_name(p.logicalrelid, p.partkey)
       WHERE n.nspname = $1`,
      [store.schema],
    );
    const byName = new Map(rows.map((row) => [row.name, row]));
    for (const table of PER_SAVE_TABLES) expect(byName.get(table), table).toMatchObject({ method: 'h', column: 'save_id', colocation: byName.get('saves')?.colocation });
    for (const table of SHARED_TABLES) expect(byName.get(table), table).toMatchObject({ method: 'n', model: 't' });
    await store.close();
    const again = await citus.open({ schema: store.schema });
    expect(again.distributed).toBe(true);
    await again.close();
  });

  it('spreads saves over both workers, each save whole on one of them', async () => {
    const store = await citus.open();
    const memory = memoryOn(store);
    const saves = Array.from({ length: 12 }, (_, index) => `save-${index}`);
    for (const saveId of saves) await memory.add({ saveId, turnId: 1, text: `The story of ${saveId}.` });
    const placements = await citus.query<{ save_id: string; table: string; port: number }>(
      `SELECT s.save_id, t.name AS table, p.nodeport AS port FROM unnest($2::text[]) AS s (save_id)
       CROSS JOIN unnest(ARRAY['saves', 'chunks', 'living_facts', 'living_jobs']) AS t (name)
       JOIN pg_dist_placement pl ON pl.shardid = get_shard_id_for_distribution_column(($1 || '.' || t.name)::regclass, s.save_id)
       JOIN pg_dist_node p ON p.groupid = pl.groupid`,
      [store.schema, saves],
    );
    const ports = new Map<string, Set<number>>();
    for (const row of placements) ports.set(row.save_id, (ports.get(row.save_id) ?? new Set()).add(Number(row.port)));
    for (const saveId of saves) expect(ports.get(saveId)?.size, saveId).toBe(1);
    expect(new Set(placements.map((row) => row.port)).size).toBe(2);
    await store.close();
  });

  it('routes every per-save statement to one shard: writes, queries, living memory, fork, rewind, export, import, delete and deletes of chunks', async () => {
    const schema = citus.newSchema();
    const plain = await citus.open({ schema });
    opened.push(plain);
    // The embedder's identity is claimed once per schema, by a look at every save's vectors (a cross-save read).
    await memoryOn(plain).add({ saveId: 'first', turnId: 1, text: 'The first chunk of the schema.' });
    // In this pool's sessions Citus raises an error before running any statement split over several shards.
    const strict = await openPostgresStore({ url: withSettings(CITUS_URL as string, '-c citus.multi_task_query_log_level=error'), schema });
    opened.push(strict);
    await exercise(strict, 'one');
    await exercise(strict, 'two');
    const memory = memoryOn(strict);
    let text = '';
    for await (const line of memory.exportSave('one')) text += line;
    expect(await memory.importSave({ text }, { as: 'one-copy' })).toMatchObject({ saveId: 'one-copy', chunks: 5 });
    expect(await memory.deleteSave('one-copy')).toMatchObject({ chunks: 5 });
    // Written again under its id (the tombstone brought back one version on), still on its one shard.
    expect(await memory.importSave({ text }, { as: 'one-copy' })).toMatchObject({ saveId: 'one-copy', chunks: 5 });
    expect(await memory.count('one-copy')).toBe(5);
    await memory.deleteSave('two');
    expect(await memory.count('two')).toBe(0);
    await memory.add({ saveId: 'two', turnId: 1, text: 'The caravan sets out again.' });
    expect((await memory.query('two', 'caravan', { k: 5 })).map((hit) => hit.text)).toEqual(['The caravan sets out again.']);
    const error = await strict.listSaves().catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/multi-task query about to be executed/);
  });

  it('keeps cross-save operations working: list saves, counts across saves, jobs of every save', async () => {
    const store = await citus.open();
    opened.push(store);
    await exercise(store, 'left');
    await exercise(store, 'right');
    expect((await store.listSaves()).map((save) => [save.saveId, save.chunks])).toEqual([['left', 5], ['left-fork', 12], ['right', 5], ['right-fork', 12]]);
    expect(await store.living.countJobs()).toMatchObject({ done: 2 });
    expect((await store.living.listJobs()).map((job) => job.saveId)).toEqual(['left-fork', 'right-fork']);
  });

  it('answers a save\'s vector search on one worker (EXPLAIN: one task)', async () => {
    const store = await citus.open();
    opened.push(store);
    await memoryOn(store).add({ saveId: 'v', turnId: 1, text: 'A lighthouse on the cliff.' });
    const plan = await store.vectors.explainApproximate('v', new Float32Array(16).fill(0.25), { maxTurnId: 5 }, 10);
    expect(plan).toMatch(/Task Count: 1\b/);
  });

  it('opens a single-node Citus database (no workers, its coordinator not yet registered) as the coordinator, distributed', async () => {
    const database = `single_${process.pid}`;
    await citus.query(`CREATE DATABASE ${database}`);
    const url = new URL(CITUS_URL as string);
    url.pathname = `/${database}`;
    try {
      const setup = new pg.Client({ connectionString: url.toString() });
      await setup.connect();
      await setup.query('CREATE EXTENSION citus; CREATE EXTENSION vector');
      await setup.end();
      const store = await openPostgresStore({ url: url.toString(), schema: 'mnemo' });
      try {
        expect(store.distributed).toBe(true);
        const memory = memoryOn(store);
        await memory.add({ saveId: 'solo', turnId: 1, text: 'A single node holds every shard.' });
        expect((await memory.query('solo', 'shard', { k: 1 })).map((hit) => hit.text)).toEqual(['A single node holds every shard.']);
      } finally {
        await store.close();
      }
    } finally {
      await citus.query(`DROP DATABASE ${database} WITH (FORCE)`);
    }
  });

  it('refuses a writable store on a worker node, and queries through one read-only', async () => {
    const store = await citus.open();
    opened.push(store);
    await memoryOn(store).add({ saveId: 'w', turnId: 1, text: 'The worker keeps a copy of the catalogue.' });
    const [worker] = await citus.query<{ port: number }>('SELECT node_port AS port FROM citus_get_active_worker_nodes() ORDER BY node_port LIMIT 1');
    const workerUrl = (CITUS_URL as string).replace(/:\d+\//, `:${worker?.port as number}/`);
    const error = await openPostgresStore({ url: workerUrl, schema: store.schema }).catch((caught: unknown) => caught);
    expect(isMnemoError(error, 'UNSUPPORTED')).toBe(true);
    expect((error as Error).message).toMatch(/Citus worker node/);
    const reader = await openPostgresStore({ url: workerUrl, schema: store.schema, readonly: true });
    opened.push(reader);
    expect((await memoryOn(reader).query('w', 'catalogue', { k: 1 })).map((hit) => hit.text)).toEqual(['The worker keeps a copy of the catalogue.']);
  });
});
