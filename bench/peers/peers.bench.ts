// Mnemo against LanceDB, Orama, mem0 and Mastra: the same corpus and the same vectors, each engine in its own processes.
// Usage: npm run bench:peers [-- --sizes 10000,100000,1000000 --engines mnemo,mnemo-pg,lancedb,orama,mem0,mastra
//        --queries 200 --seconds-per-mode 60 --k 10 --batch 10000 --timeout-minutes 15 --ingest-budget-minutes 10
//        --peer-ingest-budget-minutes 75
//        --work <folder> --chart docs/benchmarks-latency.svg --json <file> --skip-locomo --keep]
// Engines: mnemo (SQLite, the embedded default), mnemo-pg (Mnemo on PostgreSQL + pgvector), lancedb, orama, and the
// memory systems mem0 (mem0ai/oss Memory) and mastra (@mastra/libsql's LibSQLVector), installed apart by
// `npm run bench:peers:install` (bench/peers/package.json). The default list is mnemo,lancedb,orama, with mem0 and
// mastra added when installed and mnemo-pg when a server is configured (MNEMO_BENCH_PG_URL, else
// MNEMO_TEST_PG_URL). Asked for with no server configured, mnemo-pg gets a throwaway one from
// scripts/postgres-test-server.sh, stopped at the end. Each mnemo-pg collection is a schema (dropped unless --keep).
// The vectors are computed once by Mnemo's static embedder and handed to every engine (none embeds anything).
// LoCoMo is read at run time from ../shared/bench/locomo (never copied into the repository).
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { benchArgs } from '../bench-args.js';
import { locomoFolder, preparedPaths, prepareVectors, readVectors } from './corpus.js';
import { exactNeighbours, recallAtK } from './exact-neighbours.js';
import type { QueryMode } from './engine.js';
import { FILTER_GROUPS, QUERY_MODES } from './engine.js';
import { latencyChart } from './latency-chart.js';
import { DEFAULT_NEIGHBOUR_WEIGHT } from '../../src/retrieval/retrieval-defaults.js';
import { VECTOR_SEARCH_DEFAULTS } from '../../src/stores/postgres/index.js';
import { packageVersion } from './package-version.js';
import { PEERS_INSTALL_HINT, peerInstalled, peerVersion } from './peer-package.js';
import { configuredPostgresUrl, startPostgresServer, stopPostgresServer } from '../postgres-server.js';
import { collectionSchema, dropSchemas, postgresVersion } from './postgres-server.js';
import { runWorker } from './run-worker.js';
import type { WorkerOutcome } from './run-worker.js';
import type { Latency } from './worker.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    engines: { type: 'string' },
    queries: { type: 'string', default: '200' },
    k: { type: 'string', default: '10' },
    batch: { type: 'string', default: '10000' },
    'timeout-minutes': { type: 'string', default: '15' },
    'ingest-budget-minutes': { type: 'string', default: '10' },
    'peer-ingest-budget-minutes': { type: 'string', default: '75' },
    'seconds-per-mode': { type: 'string', default: '60' },
    work: { type: 'string', default: join(tmpdir(), 'mnemo-peers') },
    chart: { type: 'string' },
    json: { type: 'string' },
    'skip-locomo': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});

const ENGINE_NAMES: Record<string, string> = { mnemo: 'Mnemo', 'mnemo-pg': 'Mnemo (PostgreSQL)', lancedb: 'LanceDB', orama: 'Orama', mem0: 'mem0', mastra: 'Mastra (LibSQLVector)' };
/** The memory-system peers and the package each needs in bench/peers/node_modules. */
const MEMORY_PEERS: Record<string, string> = { mem0: 'mem0ai', mastra: '@mastra/libsql' };
const sizes = values.sizes.split(',').map(Number);
const configuredUrl = configuredPostgresUrl();
const installedPeers = Object.keys(MEMORY_PEERS).filter((engine) => peerInstalled(MEMORY_PEERS[engine] as string));
const engines = (values.engines ?? ['mnemo', ...(configuredUrl === undefined ? [] : ['mnemo-pg']), 'lancedb', 'orama', ...installedPeers].join(',')).split(',');
for (const engine of engines) if (ENGINE_NAMES[engine] === undefined) throw new Error(`--engines: expected mnemo, mnemo-pg, lancedb, orama, mem0, mastra; got ${engine}`);
for (const engine of engines) {
  const name = MEMORY_PEERS[engine];
  if (name !== undefined && !peerInstalled(name)) throw new Error(`--engines ${engine}: ${name} is not installed; run ${PEERS_INSTALL_HINT}`);
}
if (values.engines === undefined && installedPeers.length < Object.keys(MEMORY_PEERS).length) process.stderr.write(`mem0 and Mastra are left out (not installed): ${PEERS_INSTALL_HINT} adds them\n`);
if (sizes.some((size) => !Number.isInteger(size) || size < 1000)) throw new Error(`--sizes: expected whole numbers >= 1000, got ${values.sizes}`);
const queryCount = Number(values.queries);
const k = Number(values.k);
const batch = Number(values.batch);
const timeoutMs = Number(values['timeout-minutes']) * 60_000;
const ingestBudgetSeconds = Number(values['ingest-budget-minutes']) * 60;
/**
 * The ingest budget of mem0 and Mastra, apart: they add tens of rows a second (mem0 one SQLite transaction per
 * `add`, Mastra a DiskANN index entry per row), so 100k rows take 30 to 60 minutes here; their ingest process may
 * run that long plus the usual timeout.
 */
const peerIngestBudgetSeconds = Number(values['peer-ingest-budget-minutes']) * 60;
const ingestBudgetOf = (engine: string) => (MEMORY_PEERS[engine] === undefined ? ingestBudgetSeconds : peerIngestBudgetSeconds);
const secondsPerMode = Number(values['seconds-per-mode']);
const threads = availableParallelism();
const work = values.work;
const locomo = values['skip-locomo'] ? null : locomoFolder();

interface IngestResult {
  seconds: number;
  /** CPU time of the ingest process over the same span (user + system, every thread). */
  cpuSeconds: number;
  peakRssMb: number;
  /** Rows added when the ingest budget ran out (the rest were not added); absent when every row went in. */
  overBudgetAfter?: number;
  /** The collection's own measure of its size (Mnemo on PostgreSQL: its schema), instead of the folder's. */
  diskBytes?: number;
}
interface QueryResult {
  coldOpenMs: number;
  coldOpenCpuMs: number;
  /** The mode of the first query (the engine's first: hybrid, or filtered for mem0 and Mastra). */
  coldOpenMode: QueryMode;
  latency: Partial<Record<QueryMode, Latency>>;
  failures: Partial<Record<QueryMode, string>>;
  /** The top k of each timed query of the vector and filtered modes, for recall against exact k-NN. */
  rankings: Partial<Record<QueryMode, string[][]>>;
  peakRssMb: number;
}
interface LocomoResult {
  questions: number;
  ingestSeconds: number;
  recall: Partial<Record<QueryMode, number>>;
  p50: Partial<Record<QueryMode, number>>;
  peakRssMb: number;
}
interface SizeResult {
  engine: string;
  size: number;
  ingest: WorkerOutcome<IngestResult>;
  diskBytes: number | null;
  query: WorkerOutcome<QueryResult> | null;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);
const format = (value: number, digits: number) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function folderBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    total += entry.isDirectory() ? folderBytes(full) : statSync(full).size;
  }
  return total;
}

/**
 * Removes a collection: its folder, and for Mnemo on PostgreSQL the schemas of the folder and of its subfolders
 * (LoCoMo: one per conversation), which live on the server.
 */
async function removeCollection(engine: string, folder: string): Promise<void> {
  if (engine === 'mnemo-pg' && postgresUrl !== undefined) {
    const subfolders = existsSync(folder) ? readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => join(folder, entry.name)) : [];
    await dropSchemas(postgresUrl, [folder, ...subfolders].map(collectionSchema));
  }
  rmSync(folder, { recursive: true, force: true });
}

/** One line of the p50 of each mode an engine answered (or why a mode failed); the modes it does not offer are left out. */
function modeSummary(result: QueryResult): string {
  return QUERY_MODES.flatMap((mode) => {
    const latency = result.latency[mode];
    const failure = result.failures[mode];
    return latency !== undefined ? [`${mode} p50 ${latency.p50.toFixed(2)} ms`] : failure !== undefined ? [`${mode}: ${failure}`] : [];
  }).join(', ');
}

async function measureSize(engine: string, size: number): Promise<SizeResult> {
  const folder = join(work, 'data', `${engine}-${size}`);
  rmSync(folder, { recursive: true, force: true });
  const budgetSeconds = ingestBudgetOf(engine);
  let ingest = await runWorker<IngestResult>({ kind: 'ingest', engine, work, folder, size, batch, budgetSeconds }, Math.max(timeoutMs, budgetSeconds * 1000 + timeoutMs), threads);
  const partial = ingest.ok ? ingest.value.overBudgetAfter : undefined;
  if (ingest.ok && partial !== undefined) {
    const rate = partial / ingest.value.seconds;
    ingest = { ok: false, reason: `over budget after ${format(partial, 0)} rows (${format(budgetSeconds / 60, 0)} min; ${format(rate, 0)} rows/s, so about ${format(size / rate / 60, 0)} min for ${format(size, 0)})`, seconds: ingest.seconds };
  }
  progress(`  ${ENGINE_NAMES[engine]} ${size}: ingest ${ingest.ok ? `${(size / ingest.value.seconds).toFixed(0)} chunks/s` : ingest.reason}`);
  if (!ingest.ok) {
    await removeCollection(engine, folder);
    return { engine, size, ingest, diskBytes: null, query: null };
  }
  const diskBytes = ingest.value.diskBytes ?? folderBytes(folder);
  const query = await runWorker<QueryResult>({ kind: 'query', engine, work, folder, queries: queryCount, k, secondsPerMode }, timeoutMs, threads);
  progress(`  ${ENGINE_NAMES[engine]} ${size}: ${query.ok ? modeSummary(query.value) : query.reason}`);
  if (!values.keep) await removeCollection(engine, folder);
  else if (engine === 'mnemo-pg') progress(`  kept ${folder} in the schema ${collectionSchema(folder)}`);
  return { engine, size, ingest, diskBytes, query };
}

// ---- run ----
// Mnemo on PostgreSQL: the configured server, else a throwaway one (stopped in the `finally`). The workers read
// the URL from MNEMO_BENCH_PG_URL.
const startedServer = engines.includes('mnemo-pg') && configuredUrl === undefined;
const postgresUrl = engines.includes('mnemo-pg') ? (configuredUrl ?? startPostgresServer()) : undefined;
if (postgresUrl !== undefined) process.env['MNEMO_BENCH_PG_URL'] = postgresUrl;
const results: SizeResult[] = [];
const locomoResults = new Map<string, WorkerOutcome<LocomoResult>>();
let serverVersion = '';
try {
  if (postgresUrl !== undefined) serverVersion = await postgresVersion(postgresUrl);
  const prepared = await prepareVectors(work, Math.max(...sizes), queryCount, locomo);
  progress(`vectors of ${Math.max(...sizes)} chunks, ${queryCount} queries${locomo === null ? '' : ' and LoCoMo'} ready in ${prepared.seconds.toFixed(1)} s (${work})`);
  for (const size of sizes) {
    for (const engine of engines) results.push(await measureSize(engine, size));
  }
  if (locomo !== null) {
    for (const engine of engines) {
      const folder = join(work, 'data', `${engine}-locomo`);
      rmSync(folder, { recursive: true, force: true });
      const outcome = await runWorker<LocomoResult>({ kind: 'locomo', engine, work, folder, locomo, k }, timeoutMs, threads);
      if (!values.keep) await removeCollection(engine, folder);
      locomoResults.set(engine, outcome);
      progress(`  ${ENGINE_NAMES[engine]} LoCoMo: ${outcome.ok ? `R@${k} hybrid ${outcome.value.recall.hybrid?.toFixed(1) ?? 'n/a'}, vector ${outcome.value.recall.vector?.toFixed(1) ?? 'n/a'}` : outcome.reason}`);
    }
  }
} finally {
  if (startedServer && postgresUrl !== undefined) stopPostgresServer(postgresUrl);
}

// ---- report ----
type Direction = 'higher' | 'lower';
interface Metric {
  label: string;
  direction: Direction;
  digits: number;
  value(engine: string): number | string | null;
}

const failures: string[] = [];
const footnote = (engine: string, what: string, reason: string) => {
  failures.push(`${ENGINE_NAMES[engine]}, ${what}: ${reason}`);
  return `failed [${failures.length}]`;
};

function metricTable(metrics: Metric[]): string[] {
  const header = `| metric | ${engines.map((engine) => ENGINE_NAMES[engine]).join(' | ')} | best |`;
  const lines = [header, `|---|${engines.map(() => '---:').join('|')}|---|`];
  for (const metric of metrics) {
    const raw = engines.map((engine) => metric.value(engine));
    const numbers = raw.map((value) => (typeof value === 'number' && Number.isFinite(value) ? value : null));
    const mnemo = numbers[engines.indexOf('mnemo')] ?? null;
    const present = numbers.filter((value): value is number => value !== null);
    const best = present.length === 0 ? null : metric.direction === 'higher' ? Math.max(...present) : Math.min(...present);
    const cells = raw.map((value, index) => {
      if (typeof value === 'string') return value;
      const number = numbers[index];
      if (number === null || number === undefined) return 'n/a';
      const ratio = engines[index] === 'mnemo' || mnemo === null || mnemo === 0 ? '' : ` (${format(number / mnemo, 2)}×)`;
      return `${format(number, metric.digits)}${ratio}`;
    });
    const leader = best === null ? '' : engines.filter((_, index) => numbers[index] === best).map((engine) => ENGINE_NAMES[engine]).join(', ');
    lines.push(`| ${metric.label} (${metric.direction} is better) | ${cells.join(' | ')} | ${leader} |`);
  }
  return lines;
}

/**
 * Exact k-NN of the queries (a full scan of the given vectors), per size, mode and engine kind, computed once when
 * a table needs it. Mnemo's reference is its own exact score (neighbour context, DEFAULT_NEIGHBOUR_WEIGHT), so its
 * recall measures what its search approximates; every other engine's is plain cosine.
 */
const exact = new Map<string, string[][]>();
function exactOf(size: number, mode: QueryMode, engine: string): string[][] {
  const neighbourWeight = engine === 'mnemo' || engine === 'mnemo-pg' ? DEFAULT_NEIGHBOUR_WEIGHT : 0;
  const key = `${size} ${mode} ${neighbourWeight}`;
  let ids = exact.get(key);
  if (ids === undefined) {
    const paths = preparedPaths(work);
    ids = exactNeighbours(paths.syntheticVectors, size, readVectors(paths.queryVectors, 0, queryCount), k, mode === 'filtered', neighbourWeight);
    exact.set(key, ids);
  }
  return ids;
}

function sizeMetrics(size: number): Metric[] {
  const of = (engine: string) => results.find((result) => result.engine === engine && result.size === size);
  const fromQuery = (engine: string, what: string, pick: (query: QueryResult) => number | undefined): number | string | null => {
    const result = of(engine);
    if (result === undefined) return null;
    if (!result.ingest.ok) return what === 'cold open' ? footnote(engine, `${size} chunks, ingest`, result.ingest.reason) : 'n/a';
    if (result.query === null) return null;
    if (!result.query.ok) return what === 'cold open' ? footnote(engine, `${size} chunks, queries`, result.query.reason) : 'n/a';
    const value = pick(result.query.value);
    if (value === undefined) {
      const mode = QUERY_MODES.find((candidate) => what.startsWith(candidate));
      const reason = mode === undefined ? undefined : result.query.value.failures[mode];
      return reason === undefined ? null : what.endsWith('p50') ? footnote(engine, `${size} chunks, ${mode} queries`, reason) : 'n/a';
    }
    return value;
  };
  const latencyMetrics = QUERY_MODES.flatMap((mode) =>
    (['p50', 'p99', 'cpuMs'] as const).map((statistic): Metric => ({
      label: statistic === 'cpuMs' ? `${mode} query CPU ms (mean)` : `${mode} query ${statistic} ms`,
      direction: 'lower',
      digits: 2,
      value: (engine) => fromQuery(engine, `${mode} ${statistic}`, (query) => query.latency[mode]?.[statistic]),
    })),
  );
  const recallMetrics = (['vector', 'filtered'] as const).map((mode): Metric => ({
    label: `${mode} recall@${k} against exact k-NN`,
    direction: 'higher',
    digits: 2,
    value: (engine) => {
      const query = of(engine)?.query;
      const ranked = query?.ok ? query.value.rankings[mode] : undefined;
      return ranked === undefined ? 'n/a' : recallAtK(ranked, exactOf(size, mode, engine));
    },
  }));
  return [
    { label: 'ingest chunks/s', direction: 'higher', digits: 0, value: (engine) => { const result = of(engine); return result?.ingest.ok ? size / result.ingest.value.seconds : 'n/a'; } },
    { label: 'ingest CPU s', direction: 'lower', digits: 1, value: (engine) => { const result = of(engine); return result?.ingest.ok ? result.ingest.value.cpuSeconds : 'n/a'; } },
    ...latencyMetrics,
    ...recallMetrics,
    { label: 'peak RSS MB, query process', direction: 'lower', digits: 0, value: (engine) => fromQuery(engine, 'rss', (query) => query.peakRssMb) },
    { label: 'peak RSS MB, ingest process', direction: 'lower', digits: 0, value: (engine) => { const result = of(engine); return result?.ingest.ok ? result.ingest.value.peakRssMb : 'n/a'; } },
    { label: 'size on disk MB', direction: 'lower', digits: 1, value: (engine) => { const bytes = of(engine)?.diskBytes; return bytes == null ? 'n/a' : bytes / 1024 / 1024; } },
    { label: 'cold open + first query ms', direction: 'lower', digits: 0, value: (engine) => fromQuery(engine, 'cold open', (query) => query.coldOpenMs) },
    { label: 'cold open + first query CPU ms', direction: 'lower', digits: 0, value: (engine) => fromQuery(engine, 'cold open cpu', (query) => query.coldOpenCpuMs) },
  ];
}

const ENGINE_VERSIONS: Record<string, () => string> = {
  mnemo: () => `mnemo ${packageVersion('mnemo')} (better-sqlite3 ${packageVersion('better-sqlite3')})`,
  'mnemo-pg': () => `mnemo ${packageVersion('mnemo')} on ${serverVersion} (pg ${packageVersion('pg')}; ${startedServer ? 'a throwaway server' : 'the configured server'}${postgresUrl !== undefined && /@(127\.0\.0\.1|localhost)[:/]/.test(postgresUrl) ? ' on this machine' : ''})`,
  lancedb: () => `@lancedb/lancedb ${packageVersion('@lancedb/lancedb')}`,
  orama: () => `@orama/orama ${packageVersion('@orama/orama')}`,
  mem0: () => `mem0ai ${peerVersion('mem0ai')} (mem0ai/oss Memory, its memory vector store)`,
  mastra: () => `@mastra/libsql ${peerVersion('@mastra/libsql')} (@mastra/core ${peerVersion('@mastra/core')})`,
};
const versions = engines.map((engine) => ENGINE_VERSIONS[engine]?.() ?? engine);
const out: string[] = [];
out.push(`Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, node ${process.version}, ${process.platform}-${process.arch}. Engines: ${versions.join(', ')}.`);
out.push(`Setup: vectors from Mnemo's static embedder (100-d), computed once and given to every engine (query vectors too); k = ${k}; up to ${queryCount} queries per mode (four-word spans of the corpus; fewer, at least 20, where a mode takes over ${secondsPerMode} s: the count is in the cost-curve table), timed after one cold query and 5 untimed ones per mode; filtered = a vector query within one of ${FILTER_GROUPS} groups of rows (a metadata field; mem0: a user id, and its search re-scores vector candidates with its BM25); recall@${k} against an exact k-NN of the given vectors by a full scan (cosine; for Mnemo, of its neighbour-context vectors, normalise(own + ${DEFAULT_NEIGHBOUR_WEIGHT} × (previous + next)), the score its semantic arm ranks by); cold open = open + the first query (hybrid, or the engine's only modes: mem0 and Mastra filtered); ingest in batches of ${batch}, stopped after the batch that passes ${format(ingestBudgetSeconds / 60, 0)} min (mem0 and Mastra: ${format(peerIngestBudgetSeconds / 60, 0)} min); every phase in a fresh process; ratio = engine ÷ Mnemo.${engines.includes('mnemo-pg') ? ` Mnemo (PostgreSQL): one schema per collection, loaded as a bulk import (rows without an index, then createVectorIndexes() and analyze(), counted in ingest); its size on disk is the schema's tables and indexes; saves above ${format(VECTOR_SEARCH_DEFAULTS.exactBelow, 0)} chunks are searched through HNSW (approximate, ef_search ${VECTOR_SEARCH_DEFAULTS.efSearch}), smaller ones exactly.` : ''}`);
for (const size of sizes) {
  out.push('', `### ${size.toLocaleString('en-US')} chunks`, '', ...metricTable(sizeMetrics(size)));
}
if (locomoResults.size > 0) {
  const recall = (mode: QueryMode): Metric => ({
    label: `LoCoMo recall@${k}, ${mode}`,
    direction: 'higher',
    digits: 1,
    value: (engine) => { const outcome = locomoResults.get(engine); return outcome === undefined ? null : outcome.ok ? (outcome.value.recall[mode] ?? null) : mode === 'hybrid' ? footnote(engine, 'LoCoMo', outcome.reason) : 'n/a'; },
  });
  const first = [...locomoResults.values()].find((outcome) => outcome.ok);
  out.push('', `### LoCoMo (${first?.ok ? first.value.questions : '?'} questions of the scorer's default protocol: turn text, categories 1-4; one collection per conversation)`, '');
  out.push(...metricTable([
    ...QUERY_MODES.filter((mode) => mode !== 'filtered').map(recall),
    { label: 'LoCoMo hybrid query p50 ms (about 590 turns per collection)', direction: 'lower', digits: 2, value: (engine) => { const outcome = locomoResults.get(engine); return outcome?.ok ? (outcome.value.p50.hybrid ?? null) : 'n/a'; } },
  ]));
}
out.push('', '### Cost curve: query p50 ms against corpus size (and cold open + first query: wall ms, CPU ms)', '');
out.push(`| chunks | ${engines.flatMap((engine) => [...QUERY_MODES.map((mode) => `${ENGINE_NAMES[engine]} ${mode}`), `${ENGINE_NAMES[engine]} cold open`]).join(' | ')} |`);
out.push(`|---:|${engines.flatMap(() => [...QUERY_MODES, 'cold open'].map(() => '---:')).join('|')}|`);
for (const size of sizes) {
  const cells = engines.flatMap((engine) => {
    const result = results.find((candidate) => candidate.engine === engine && candidate.size === size);
    const query = result?.query?.ok ? result.query.value : undefined;
    const latencies = QUERY_MODES.map((mode) => {
      const latency = query?.latency[mode];
      return latency === undefined ? '—' : `${format(latency.p50, 2)}${latency.count < queryCount ? ` (n = ${latency.count})` : ''}`;
    });
    return [...latencies, query === undefined ? '—' : `${format(query.coldOpenMs, 0)} (CPU ${format(query.coldOpenCpuMs, 0)})`];
  });
  out.push(`| ${size.toLocaleString('en-US')} | ${cells.join(' | ')} |`);
}
if (failures.length > 0) out.push('', ...failures.map((failure, index) => `[${index + 1}] ${failure}`));
console.log(out.join('\n'));

if (values.chart !== undefined) {
  const panels = QUERY_MODES.map((mode) => ({
    title: `${mode} query, p50`,
    series: engines.map((engine) => ({
      engine: ENGINE_NAMES[engine] as string,
      points: results.flatMap((result) => {
        const ms = result.engine === engine && result.query?.ok ? result.query.value.latency[mode]?.p50 : undefined;
        return ms === undefined ? [] : [{ size: result.size, ms }];
      }),
    })),
  }));
  mkdirSync(dirname(values.chart), { recursive: true });
  writeFileSync(values.chart, latencyChart(panels, `Query latency against corpus size (k = ${k}, 100-d vectors, ${cpus().length} cores, node ${process.version})`));
  progress(`chart written to ${values.chart}`);
}
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ sizes, engines, results, locomo: Object.fromEntries(locomoResults) }, null, 2));
