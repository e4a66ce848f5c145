// Benchmark of the same data in SQLite and in PostgreSQL + pgvector: ingest rate, hybrid query latency, RSS,
// and the HNSW arm's recall@10 against exact search.
// Usage: npm run bench:postgres [-- --sizes 100000 --queries 300 --recall-queries 200 --dims 100]
// The server: MNEMO_BENCH_PG_URL, else MNEMO_TEST_PG_URL, else a throwaway one started (and stopped) with
// scripts/postgres-test-server.sh.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './bench-args.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { DEFAULT_NEIGHBOUR_WEIGHT } from '../src/retrieval/retrieval-defaults.js';
import { openPostgresStore, VECTOR_SEARCH_DEFAULTS } from '../src/stores/postgres/index.js';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { seededRandom, sentences } from './synthetic-corpus.js';
import { configuredPostgresUrl, startPostgresServer, stopPostgresServer } from './postgres-server.js';
import { postgresConnectionOf } from '../src/stores/postgres/postgres-connection.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    sizes: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '300' },
    'recall-queries': { type: 'string', default: '200' },
    dims: { type: 'string', default: '100' },
    batch: { type: 'string', default: '100' },
    child: { type: 'string' },
    target: { type: 'string' },
    schema: { type: 'string' },
    size: { type: 'string' },
  },
});
const queryCount = Number(values.queries);
const dimensions = Number(values.dims);
const batch = Number(values.batch);
const SAVE = 'bench';
const script = fileURLToPath(import.meta.url);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

/** The query texts: four-word spans of the corpus, drawn with a fixed seed (as in narrative.bench.ts). */
function queryTexts(size: number, count: number, seed = 7): string[] {
  const corpus = [...sentences(Math.min(size, 5000))];
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const words = (corpus[Math.floor(random() * corpus.length)] as string).replace('.', '').split(' ');
    const from = Math.floor(random() * Math.max(1, words.length - 4));
    return words.slice(from, from + 4).join(' ');
  });
}

async function ingest(memory: Mnemo, size: number): Promise<number> {
  const started = performance.now();
  let pending: string[] = [];
  let turn = 0;
  const flush = async () => {
    await memory.addMany(pending.map((text) => ({ saveId: SAVE, turnId: turn, text, chunkType: turn % 10 === 0 ? 'dialogue' : 'narrative' })));
    pending = [];
    turn++;
  };
  for (const text of sentences(size)) {
    pending.push(text);
    if (pending.length === batch) await flush();
  }
  if (pending.length > 0) await flush();
  return size / ((performance.now() - started) / 1000);
}

/** The query phase, in a fresh process as an application server would start: cold open, first query, timed ones. */
async function queryPhase(kind: string, target: string, schema: string, size: number): Promise<void> {
  const opened = performance.now();
  const embedder = hashingEmbedder({ dimensions });
  const store = kind === 'postgres' ? await openPostgresStore({ url: target, schema }) : undefined;
  const memory = await openMemory({ ...(store === undefined ? { path: target } : { store }), embedder, logger: silentLogger, embeddingCache: false });
  const queries = queryTexts(size, queryCount);
  await memory.query(SAVE, queries[0] as string, { k: 10 });
  const coldMs = performance.now() - opened;
  const times: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await memory.query(SAVE, query, { k: 10 });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const vectorTimes: number[] = [];
  if (store !== undefined) {
    for (const vector of await embedder.embed(queries)) {
      const started = performance.now();
      await store.vectorSearch.search(SAVE, vector, {}, 50, CONTEXT); // what the engine asks, with its default neighbour context
      vectorTimes.push(performance.now() - started);
    }
    vectorTimes.sort((a, b) => a - b);
  }
  const rss = process.memoryUsage().rss;
  await memory.close();
  console.log(JSON.stringify({ coldMs, p50: percentile(times, 50), p99: percentile(times, 99), rss, vectorP50: percentile(vectorTimes, 50) ?? null, vectorP99: percentile(vectorTimes, 99) ?? null }));
}

interface QueryResult { coldMs: number; p50: number; p99: number; rss: number; vectorP50: number | null; vectorP99: number | null }

function child(kind: string, target: string, schema: string, size: number): QueryResult {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, '--child', kind, '--target', target, '--schema', schema, '--size', String(size), '--queries', String(queryCount), '--dims', String(dimensions)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as QueryResult;
}

/** ef_search values of the recall sweep. */
const EF_SWEEP = [40, 100, 200, 400, 1000];

interface Recall { plain: number; windowed: number; context: number; starved: number; approximate: number; sweep: { efSearch: number; recall: number; p50: number }[] }

/** The neighbour context the engine uses by default (`DEFAULT_NEIGHBOUR_WEIGHT`). */
const CONTEXT = { neighbourWeight: DEFAULT_NEIGHBOUR_WEIGHT };

/**
 * HNSW (iterative scan) against exact search on the same rows: recall@10 of the engine's request (the 50
 * nearest, as capPerSource asks for k = 10), unfiltered and with a turn window, and a sweep over ef_search.
 */
async function recall(url: string, schema: string, size: number): Promise<Recall> {
  const exact = await openPostgresStore({ url, schema, vectorSearch: { exactBelow: Number.MAX_SAFE_INTEGER } });
  const vectors = await hashingEmbedder({ dimensions }).embed(queryTexts(size, Number(values['recall-queries']), 11));
  const window = { maxTurnId: Math.floor(size / batch / 10) }; // the first tenth of the story
  const truths = new Map<string, Set<string>[]>();
  for (const [name, filter, options] of [['plain', {}, {}], ['windowed', window, {}], ['context', {}, CONTEXT]] as const) {
    const sets: Set<string>[] = [];
    for (const vector of vectors) sets.push(new Set((await exact.vectorSearch.search(SAVE, vector, filter, 10, options)).map((match) => match.id)));
    truths.set(name, sets);
  }
  await exact.close();
  const measure = async (store: PostgresStore, name: 'plain' | 'windowed' | 'context', filter: { maxTurnId?: number }, options = {}) => {
    let found = 0;
    let wanted = 0;
    const times: number[] = [];
    for (const [index, vector] of vectors.entries()) {
      const truth = truths.get(name)![index]!;
      const started = performance.now();
      const got = await store.vectorSearch.search(SAVE, vector, filter, 50, options);
      times.push(performance.now() - started);
      found += got.slice(0, 10).filter((match) => truth.has(match.id)).length;
      wanted += truth.size;
    }
    times.sort((a, b) => a - b);
    return { recall: wanted === 0 ? 1 : found / wanted, p50: percentile(times, 50) };
  };
  const approximate = await openPostgresStore({ url, schema });
  const plain = (await measure(approximate, 'plain', {})).recall;
  const windowed = (await measure(approximate, 'windowed', window)).recall;
  const context = (await measure(approximate, 'context', {}, CONTEXT)).recall;
  const stats = { ...approximate.vectors.stats };
  await approximate.close();
  const sweep: Recall['sweep'] = [];
  for (const efSearch of EF_SWEEP) {
    const store = await openPostgresStore({ url, schema, vectorSearch: { efSearch } });
    sweep.push({ efSearch, ...(await measure(store, 'plain', {})) });
    await store.close();
  }
  return { plain, windowed, context, starved: stats.starved, approximate: stats.approximate, sweep };
}

async function measure(url: string, size: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-bench-pg-'));
  const path = join(dir, 'bench.db');
  // The same engine on both sides: no embedding cache (the hashing embedder is cheaper than a cache lookup).
  const sqlite = await openMemory({ path, embedder: hashingEmbedder({ dimensions }), logger: silentLogger, embeddingCache: false });
  const sqliteIngest = await ingest(sqlite, size);
  await sqlite.close();
  const sqliteQuery = child('sqlite', path, '', size);
  rmSync(dir, { recursive: true, force: true });

  const schema = `bench_${size}`;
  const admin = await openPostgresStore({ url, schema: 'bench_admin' });
  await postgresConnectionOf(admin).read().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const store: PostgresStore = await openPostgresStore({ url, schema });
  const postgres = await openMemory({ store, embedder: hashingEmbedder({ dimensions }), logger: silentLogger, embeddingCache: false });
  const postgresIngest = await ingest(postgres, size);
  await store.analyze();
  await postgres.close();

  // A bulk import: the same rows with no index, then the HNSW index built once.
  const bulkSchema = `bench_${size}_bulk`;
  await postgresConnectionOf(admin).read().query(`DROP SCHEMA IF EXISTS ${bulkSchema} CASCADE`);
  const bulkStore = await openPostgresStore({ url, schema: bulkSchema, vectorIndexes: 'manual' });
  const bulk = await openMemory({ store: bulkStore, embedder: hashingEmbedder({ dimensions }), logger: silentLogger, embeddingCache: false });
  const bulkStarted = performance.now();
  const bulkRowsPerSecond = await ingest(bulk, size);
  const indexStarted = performance.now();
  await bulkStore.createVectorIndexes();
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  const bulkIngest = { rowsPerSecond: bulkRowsPerSecond, indexSeconds, overall: size / ((performance.now() - bulkStarted) / 1000) };
  await bulk.close();
  await postgresConnectionOf(admin).read().query(`DROP SCHEMA IF EXISTS ${bulkSchema} CASCADE`);

  const postgresQuery = child('postgres', url, schema, size);
  const recalled = await recall(url, schema, size);
  await postgresConnectionOf(admin).read().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await postgresConnectionOf(admin).read().query('DROP SCHEMA IF EXISTS bench_admin CASCADE');
  await admin.close();
  return { size, sqliteIngest, sqliteQuery, postgresIngest, bulkIngest, postgresQuery, recalled };
}

if (values.child !== undefined) {
  await queryPhase(values.child, values.target as string, values.schema as string, Number(values.size));
} else {
  const configured = configuredPostgresUrl();
  const started = configured === undefined;
  const url = configured ?? startPostgresServer();
  try {
    const version = await openPostgresStore({ url, schema: 'bench_admin' });
    const server = (await postgresConnectionOf(version).read().query<{ server: string; vector: string }>("SELECT current_setting('server_version') AS server, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector")).rows[0];
    await version.close();
    console.log(`mnemo PostgreSQL benchmark: node ${process.version}, PostgreSQL ${server?.server} + pgvector ${server?.vector}; hashing embedder ${dimensions}-d; ${batch} chunks per transaction; k = 10 with the engine's default options (z-score fusion, neighbour context ${DEFAULT_NEIGHBOUR_WEIGHT}, feedback); ${queryCount} queries in a fresh process; HNSW m = 16, ef_construction = 64, ef_search = max(${VECTOR_SEARCH_DEFAULTS.efSearch}, limit), iterative scan relaxed_order`);
    console.log('| chunks | store | ingest chunks/s | open + first query ms | hybrid p50 ms | hybrid p99 ms | vector arm p50 / p99 ms | query RSS MB | HNSW recall@10 (own vectors / turn window / neighbour context) |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    const sweeps: string[] = [];
    for (const size of values.sizes.split(',').map(Number)) {
      const r = await measure(url, size);
      sweeps.push(...r.recalled.sweep.map((point) => `| ${size} | ${point.efSearch} | ${point.recall.toFixed(3)} | ${point.p50.toFixed(2)} |`));
      const s = r.sqliteQuery;
      const p = r.postgresQuery;
      console.log(`| ${size} | SQLite (file) | ${r.sqliteIngest.toFixed(0)} | ${s.coldMs.toFixed(0)} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | in process | ${mb(s.rss)} | exact |`);
      console.log(`| ${size} | PostgreSQL (server), index grown row by row | ${r.postgresIngest.toFixed(0)} | ${p.coldMs.toFixed(0)} | ${p.p50.toFixed(2)} | ${p.p99.toFixed(2)} | ${p.vectorP50?.toFixed(2)} / ${p.vectorP99?.toFixed(2)} | ${mb(p.rss)} | ${r.recalled.plain.toFixed(3)} / ${r.recalled.windowed.toFixed(3)} / ${r.recalled.context.toFixed(3)} (${r.recalled.starved} of ${r.recalled.approximate} redone exactly) |`);
      console.log(`| ${size} | PostgreSQL, bulk import | ${r.bulkIngest.overall.toFixed(0)} (rows ${r.bulkIngest.rowsPerSecond.toFixed(0)}/s, then index ${r.bulkIngest.indexSeconds.toFixed(1)} s) | | | | | | |`);
    }
    console.log('\nHNSW recall@10 against exact search by ef_search (the engine asks for the 50 nearest; vector arm alone):');
    console.log('| chunks | ef_search | recall@10 | vector arm p50 ms |');
    console.log('|---|---|---|---|');
    for (const line of sweeps) console.log(line);
  } finally {
    if (started) stopPostgresServer(url);
  }
}
