// Benchmark of one PostgreSQL server against a three-node Citus cluster holding the same saves: ingest, index
// build, hybrid / vector / lexical query latency, throughput under concurrent clients, rewind, and the cost of the
// coordinator hop (the same statements sent to the coordinator and straight to the worker holding the save).
// Usage: npm run bench:citus [-- --saves 20 --chunks 10000 --queries 200 --clients 8 --seconds 10 --rounds 3]
// Servers: MNEMO_BENCH_PG_URL (else MNEMO_TEST_PG_URL) and MNEMO_BENCH_CITUS_URL (else MNEMO_TEST_CITUS_URL), else
// throwaway ones started and stopped here (scripts/postgres-test-server.sh, scripts/citus-test-server.sh with
// --shards shards per distributed table). Every phase alternates between the two targets, so a change in the
// machine's load falls on both.
import { loadavg } from 'node:os';
import { benchArgs } from './bench-args.js';
import pg from 'pg';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { DEFAULT_NEIGHBOUR_WEIGHT } from '../src/retrieval/retrieval-defaults.js';
import { openPostgresStore } from '../src/stores/postgres/index.js';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { postgresConnectionOf } from '../src/stores/postgres/postgres-connection.js';
import { seededRandom, sentences, vocabulary } from './synthetic-corpus.js';
import { configuredCitusUrl, configuredPostgresUrl, startCitusCluster, startPostgresServer, stopCitusCluster, stopPostgresServer } from './postgres-server.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    saves: { type: 'string', default: '20' },
    chunks: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '200' },
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    rewinds: { type: 'string', default: '6' },
    shards: { type: 'string', default: '8' },
    dims: { type: 'string', default: '100' },
    batch: { type: 'string', default: '100' },
  },
});
const saveCount = Number(values.saves);
const chunksPerSave = Number(values.chunks);
const queryCount = Number(values.queries);
const clients = Number(values.clients);
const dimensions = Number(values.dims);
const batch = Number(values.batch);
const SCHEMA = 'bench_citus';
const CONTEXT = { neighbourWeight: DEFAULT_NEIGHBOUR_WEIGHT };
const WORDS = vocabulary(20_000, seededRandom(42));
const saveIds = Array.from({ length: saveCount }, (_, index) => `save-${String(index).padStart(3, '0')}`);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
const median = (list: number[]) => percentile([...list].sort((a, b) => a - b), 50);

/** One place the saves live: a store, the engine over it, and what was measured there. */
interface Target {
  name: string;
  url: string;
  store: PostgresStore;
  memory: Mnemo;
  times: Map<string, number[]>;
}

function record(target: Target, metric: string, value: number): void {
  target.times.set(metric, [...(target.times.get(metric) ?? []), value]);
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** The saves' text: each save its own seeded sentences over one shared vocabulary. */
const saveText = (index: number, count: number) => sentences(count, 1000 + index, WORDS.length, WORDS);

async function ingestSave(memory: Mnemo, index: number): Promise<void> {
  let pending: string[] = [];
  let turn = 0;
  const saveId = saveIds[index] as string;
  for (const text of saveText(index, chunksPerSave)) {
    pending.push(text);
    if (pending.length < batch) continue;
    await memory.addMany(pending.map((chunk) => ({ saveId, turnId: turn, text: chunk, chunkType: turn % 10 === 0 ? 'dialogue' : 'narrative' })));
    pending = [];
    turn++;
  }
  if (pending.length > 0) await memory.addMany(pending.map((chunk) => ({ saveId, turnId: turn, text: chunk })));
}

/** Query texts: four-word spans of a save's own sentences, with a fixed seed. */
function queryTexts(count: number): { saveId: string; text: string }[] {
  const random = seededRandom(7);
  return Array.from({ length: count }, () => {
    const index = Math.floor(random() * saveCount);
    const corpus = [...saveText(index, 200)];
    const words = (corpus[Math.floor(random() * corpus.length)] as string).replace('.', '').split(' ');
    const from = Math.floor(random() * Math.max(1, words.length - 4));
    return { saveId: saveIds[index] as string, text: words.slice(from, from + 4).join(' ') };
  });
}

async function dropSchema(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.end();
}

async function openTarget(name: string, url: string): Promise<Target> {
  await dropSchema(url);
  // A bulk load: rows first, each HNSW index built once after (on Citus, one per shard, on its worker).
  const store = await openPostgresStore({ url, schema: SCHEMA, vectorIndexes: 'manual', poolSize: clients + 2 });
  const memory = await openMemory({ store, embedder: hashingEmbedder({ dimensions }), logger: silentLogger, embeddingCache: false });
  return { name, url, store, memory, times: new Map() };
}

/** Ingests every save into both targets, `clients` saves at a time, the targets taking turns group by group. */
async function ingestAll(targets: Target[]): Promise<void> {
  for (let start = 0; start < saveCount; start += clients) {
    const group = Array.from({ length: Math.min(clients, saveCount - start) }, (_, offset) => start + offset);
    for (const target of targets) record(target, 'ingest', await timed(() => Promise.all(group.map((index) => ingestSave(target.memory, index)))));
  }
  for (const target of targets) {
    record(target, 'index', await timed(() => target.store.createVectorIndexes()));
    await target.store.analyze();
  }
}

/** Which worker (port) holds each save's shard group on Citus. */
async function placements(citus: Target): Promise<Map<string, number>> {
  const { rows } = await postgresConnectionOf(citus.store).read().query<{ save_id: string; port: number }>(
    `SELECT s.save_id, n.nodeport AS port FROM unnest($1::text[]) AS s (save_id)
     JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('${SCHEMA}.saves'::regclass, s.save_id)
     JOIN pg_dist_node n ON n.groupid = p.groupid`,
    [saveIds],
  );
  return new Map(rows.map((row) => [row.save_id, Number(row.port)]));
}

/** Latency of each query kind, the targets alternating query by query (and which goes first). */
async function latencies(targets: Target[], queries: { saveId: string; text: string }[]): Promise<void> {
  const vectors = await hashingEmbedder({ dimensions }).embed(queries.map((query) => query.text));
  for (const [index, query] of queries.entries()) {
    const order = index % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      record(target, 'hybrid', await timed(() => target.memory.query(query.saveId, query.text, { k: 10 })));
      record(target, 'lexical', await timed(() => target.memory.query(query.saveId, query.text, { k: 10, weights: { semantic: 0 } })));
      record(target, 'vector', await timed(() => target.store.vectorSearch.search(query.saveId, vectors[index] as Float32Array, {}, 50, CONTEXT)));
      record(target, 'version', await timed(() => target.store.saveVersion(query.saveId)));
    }
  }
}

/** Queries per second of `clients` concurrent clients over `seconds`, one round; `kind` hybrid or vector. */
async function throughput(target: Target, kind: 'hybrid' | 'vector', queries: { saveId: string; text: string }[], vectors: Float32Array[]): Promise<number> {
  const deadline = performance.now() + Number(values.seconds) * 1000;
  let done = 0;
  const client = async (offset: number) => {
    for (let index = offset; performance.now() < deadline; index += clients) {
      const query = queries[index % queries.length] as { saveId: string; text: string };
      if (kind === 'hybrid') await target.memory.query(query.saveId, query.text, { k: 10 });
      else await target.store.vectorSearch.search(query.saveId, vectors[index % vectors.length] as Float32Array, {}, 50, CONTEXT);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, offset) => client(offset)));
  return done / ((performance.now() - started) / 1000);
}

/**
 * The coordinator hop: a save's version read and its vector search sent to the coordinator and, read-only,
 * straight to the worker that holds the save (which runs them on its local shard).
 */
async function hop(citus: Target, where: Map<string, number>, queries: { saveId: string; text: string }[]): Promise<Record<string, number>> {
  const vectors = await hashingEmbedder({ dimensions }).embed(queries.map((query) => query.text));
  const workers = new Map<number, PostgresStore>();
  for (const port of new Set(where.values())) workers.set(port, await openPostgresStore({ url: citus.url.replace(/:\d+\//, `:${port}/`), schema: SCHEMA, readonly: true }));
  const result: Record<string, number[]> = { coordinatorVersion: [], workerVersion: [], coordinatorVector: [], workerVector: [], coordinatorSelect1: [], workerSelect1: [] };
  for (const [index, query] of queries.entries()) {
    const worker = workers.get(where.get(query.saveId) as number) as PostgresStore;
    const vector = vectors[index] as Float32Array;
    for (const [side, store] of index % 2 === 0 ? [['coordinator', citus.store], ['worker', worker]] as const : [['worker', worker], ['coordinator', citus.store]] as const) {
      result[`${side}Version`]?.push(await timed(() => store.saveVersion(query.saveId)));
      result[`${side}Vector`]?.push(await timed(() => store.vectorSearch.search(query.saveId, vector, {}, 50, CONTEXT)));
      result[`${side}Select1`]?.push(await timed(() => postgresConnectionOf(store).read().query('SELECT 1')));
    }
  }
  for (const store of workers.values()) await store.close();
  return Object.fromEntries(Object.entries(result).map(([name, list]) => [name, median(list)]));
}

async function serverVersions(store: PostgresStore): Promise<string> {
  const row = (await postgresConnectionOf(store).read().query<{ server: string; vector: string; citus: string | null }>(
    "SELECT current_setting('server_version') AS server, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector, (SELECT extversion FROM pg_extension WHERE extname = 'citus') AS citus",
  )).rows[0];
  return `PostgreSQL ${row?.server} + pgvector ${row?.vector}${row?.citus === null ? '' : ` + Citus ${row?.citus}`}`;
}

const fixed = (value: number | undefined, digits = 2) => (value === undefined ? 'n/a' : value.toFixed(digits));

async function run(postgresUrl: string, citusUrl: string): Promise<void> {
  const load = loadavg().map((value) => value.toFixed(1)).join(' / ');
  const targets = [await openTarget('PostgreSQL (one server)', postgresUrl), await openTarget('Citus (coordinator + 2 workers)', citusUrl)];
  const [postgres, citus] = targets as [Target, Target];
  const shardCount = (await postgresConnectionOf(citus.store).read().query<{ shards: string }>(`SELECT count(*) AS shards FROM pg_dist_shard WHERE logicalrelid = '${SCHEMA}.saves'::regclass`)).rows[0]?.shards;
  console.log(`mnemo Citus benchmark: node ${process.version}; ${await serverVersions(postgres.store)} against ${await serverVersions(citus.store)}, ${shardCount} shards per table; every node on this one machine (2 cores, shared; load average ${load} at the start)`);
  console.log(`${saveCount} saves x ${chunksPerSave} chunks (${batch} a turn), hashing embedder ${dimensions}-d, k = 10 with the engine's defaults; ${queryCount} queries; ${clients} concurrent clients in one process`);

  await ingestAll(targets);
  const where = await placements(citus);
  const perWorker = new Map<number, number>();
  for (const port of where.values()) perWorker.set(port, (perWorker.get(port) ?? 0) + 1);
  console.log(`saves per worker (port: saves): ${[...perWorker].map(([port, count]) => `${port}: ${count}`).join(', ')}`);

  // First query of each save: the process builds its BM25 index from a scan of the save (through the coordinator on Citus).
  for (const [index, saveId] of saveIds.entries()) {
    for (const target of index % 2 === 0 ? targets : [...targets].reverse()) record(target, 'first', await timed(() => target.memory.query(saveId, 'first query', { k: 10 })));
  }
  const queries = queryTexts(queryCount);
  await latencies(targets, queries);
  const vectors = await hashingEmbedder({ dimensions }).embed(queries.map((query) => query.text));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      record(target, 'hybridQps', await throughput(target, 'hybrid', queries, vectors));
      record(target, 'vectorQps', await throughput(target, 'vector', queries, vectors));
    }
  }
  const hopCosts = await hop(citus, where, queries.slice(0, Math.min(queries.length, 100)));
  // Rewind the last saves to their middle turn (half their chunks), one at a time, the targets alternating.
  const middle = Math.floor(chunksPerSave / batch / 2);
  for (const [index, saveId] of saveIds.slice(-Number(values.rewinds)).entries()) {
    for (const target of index % 2 === 0 ? targets : [...targets].reverse()) record(target, 'rewind', await timed(() => target.memory.rewind(saveId, middle)));
  }

  const total = saveCount * chunksPerSave;
  const sum = (target: Target, metric: string) => (target.times.get(metric) ?? []).reduce((a, b) => a + b, 0);
  const stat = (target: Target, metric: string, p: number) => percentile([...(target.times.get(metric) ?? [])].sort((a, b) => a - b), p);
  console.log(`\n| metric | ${targets.map((target) => target.name).join(' | ')} | Citus / PostgreSQL |`);
  console.log('|---|---|---|---|');
  const row = (label: string, values: [number, number], digits = 2, ratio = true) =>
    console.log(`| ${label} | ${fixed(values[0], digits)} | ${fixed(values[1], digits)} | ${ratio ? `${(values[1] / values[0]).toFixed(2)}x` : ''} |`);
  row(`ingest chunks/s (${clients} writers, one save each)`, [total / (sum(postgres, 'ingest') / 1000), total / (sum(citus, 'ingest') / 1000)], 0);
  row('HNSW index build s (after the load)', [sum(postgres, 'index') / 1000, sum(citus, 'index') / 1000], 1);
  row('first query of a save ms (BM25 index from a scan), median', [stat(postgres, 'first', 50), stat(citus, 'first', 50)], 0);
  for (const metric of ['hybrid', 'vector', 'lexical', 'version'] as const) {
    const label = { hybrid: 'hybrid query', vector: 'vector arm (store.vectorSearch, 50 nearest, neighbour context)', lexical: 'lexical query (semantic weight 0)', version: 'save version read (one indexed row)' }[metric];
    row(`${label} p50 ms`, [stat(postgres, metric, 50), stat(citus, metric, 50)]);
    row(`${label} p99 ms`, [stat(postgres, metric, 99), stat(citus, metric, 99)]);
  }
  row(`hybrid queries/s, ${clients} clients (median of ${values.rounds} x ${values.seconds} s)`, [median(postgres.times.get('hybridQps') ?? []), median(citus.times.get('hybridQps') ?? [])], 0);
  row(`vector arm queries/s, ${clients} clients (median of ${values.rounds} x ${values.seconds} s)`, [median(postgres.times.get('vectorQps') ?? []), median(citus.times.get('vectorQps') ?? [])], 0);
  row(`rewind to the middle turn ms (${chunksPerSave / 2} chunks removed), median of ${values.rewinds}`, [stat(postgres, 'rewind', 50), stat(citus, 'rewind', 50)], 1);

  console.log('\nThe coordinator hop (Citus; medians ms; "worker": the same read-only statement sent to the worker holding the save):');
  console.log('| statement | coordinator | worker | hop |');
  console.log('|---|---|---|---|');
  for (const [label, key] of [['SELECT 1 (no table)', 'Select1'], ['save version read', 'Version'], ['vector arm', 'Vector']] as const) {
    const coordinator = hopCosts[`coordinator${key}`] as number;
    const worker = hopCosts[`worker${key}`] as number;
    console.log(`| ${label} | ${coordinator.toFixed(2)} | ${worker.toFixed(2)} | ${(coordinator - worker).toFixed(2)} |`);
  }
  console.log(`\nload average at the end: ${loadavg().map((value) => value.toFixed(1)).join(' / ')}`);
  for (const target of targets) {
    await target.memory.close();
    await dropSchema(target.url);
  }
}

const postgresGiven = configuredPostgresUrl();
const citusGiven = configuredCitusUrl();
const postgresUrl = postgresGiven ?? startPostgresServer();
let citusUrl: string | undefined;
try {
  citusUrl = citusGiven ?? startCitusCluster(Number(values.shards));
  await run(postgresUrl, citusUrl);
} finally {
  if (citusGiven === undefined && citusUrl !== undefined) stopCitusCluster(citusUrl);
  if (postgresGiven === undefined) stopPostgresServer(postgresUrl);
}
