// One measurement of one engine, in its own process (clean RSS): ingest, query, or LoCoMo recall. Prints one JSON line.
// Started by peers.bench.ts as: node --import tsx bench/peers/worker.ts '<task as JSON>'
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MetricsAccumulator } from '../../src/eval/index.js';
import type { EmbedderIdentity } from '../../src/seams/embedding-store.js';
import type { CorpusRow } from './corpus.js';
import { loadLocomo, preparedPaths, readVectors, syntheticTexts } from './corpus.js';
import type { Engine, QueryMode } from './engine.js';
import { FILTER_GROUPS, QUERY_MODES } from './engine.js';

/** What a worker is asked to do. */
export type WorkerTask =
  | { kind: 'ingest'; engine: string; work: string; folder: string; size: number; batch: number; budgetSeconds?: number }
  | { kind: 'query'; engine: string; work: string; folder: string; queries: number; k: number; secondsPerMode: number }
  | { kind: 'locomo'; engine: string; work: string; folder: string; locomo: string; k: number };

/** Latency percentiles of one query mode, in milliseconds, over `count` queries, and the mean CPU time of one. */
export interface Latency {
  p50: number;
  p99: number;
  count: number;
  /** The process's CPU time (user + system, every thread) over the timed queries, divided by their count. */
  cpuMs: number;
}

/** Fewest queries timed per mode, even past the time budget. */
const MINIMUM_QUERIES = 20;
/** Untimed queries per mode before timing (JIT compilation, caches), the same for every engine. */
const WARM_UP_QUERIES = 5;

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;
/** CPU milliseconds (user + system) since `since`, a process.cpuUsage() reading. */
const cpuMsSince = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};
const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function engineNamed(name: string, work: string): Promise<Engine> {
  const identity = () => JSON.parse(readFileSync(preparedPaths(work).identity, 'utf8')) as EmbedderIdentity;
  if (name === 'mnemo') return (await import('./mnemo-engine.js')).mnemoEngine(identity());
  if (name === 'mnemo-pg') return (await import('./mnemo-postgres-engine.js')).mnemoPostgresEngine(identity());
  if (name === 'lancedb') return (await import('./lancedb-engine.js')).lancedbEngine;
  if (name === 'orama') return (await import('./orama-engine.js')).oramaEngine;
  if (name === 'mem0') return (await import('./mem0-engine.js')).mem0Engine;
  if (name === 'mastra') return (await import('./mastra-engine.js')).mastraEngine;
  throw new Error(`unknown engine ${name}: expected mnemo, mnemo-pg, lancedb, orama, mem0 or mastra`);
}

async function ingest(task: Extract<WorkerTask, { kind: 'ingest' }>) {
  const engine = await engineNamed(task.engine, task.work);
  const vectors = preparedPaths(task.work).syntheticVectors;
  mkdirSync(task.folder, { recursive: true });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const collection = await engine.create(task.folder);
  let rows: CorpusRow[] = [];
  let done = 0;
  const flush = async () => {
    const batchVectors = readVectors(vectors, done, rows.length);
    rows.forEach((row, index) => (row.vector = batchVectors[index] as Float32Array));
    await collection.add(rows);
    done += rows.length;
    rows = [];
    if (done % 100_000 === 0) process.stderr.write(`progress: ${done} rows ingested\n`);
  };
  // Past the budget (seconds, none if absent) no further batch is added: the collection keeps what it has and the
  // answer says how many rows.
  const deadline = started + (task.budgetSeconds ?? Infinity) * 1000;
  let overBudgetAfter: number | undefined;
  for (const text of await syntheticTexts(task.size)) {
    const index = done + rows.length;
    rows.push({ id: `c${index}`, text, vector: new Float32Array(0), turn: Math.floor(index / 100), group: index % FILTER_GROUPS });
    if (rows.length === task.batch) {
      await flush();
      if (done < task.size && performance.now() > deadline) {
        overBudgetAfter = done;
        break;
      }
    }
  }
  if (rows.length > 0 && overBudgetAfter === undefined) await flush();
  process.stderr.write(`progress: ${done} rows ingested, finishing (index build, persist)\n`);
  await collection.finish();
  // The size is read before closing (the engine may need its connection) and its time is not counted.
  const measuring = performance.now();
  const diskBytes = collection.sizeOnDisk === undefined ? undefined : await collection.sizeOnDisk();
  const measuringMs = performance.now() - measuring;
  await collection.close();
  return { seconds: (performance.now() - started - measuringMs) / 1000, cpuSeconds: cpuMsSince(cpu) / 1000, peakRssMb: peakRssMb(), diskBytes, overBudgetAfter };
}

/** Times up to `count` queries, stopping early (after at least MINIMUM_QUERIES) once `seconds` have passed. */
async function timeQueries(run: (index: number) => Promise<unknown>, count: number, seconds: number): Promise<Latency> {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const deadline = performance.now() + seconds * 1000;
  for (let index = 0; index < count; index++) {
    if (index >= MINIMUM_QUERIES && performance.now() > deadline) break;
    const started = performance.now();
    await run(index);
    times.push(performance.now() - started);
  }
  const cpuMs = cpuMsSince(cpu) / times.length;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), count: times.length, cpuMs };
}

/** Modes whose top k is compared with an exact k-NN of the given vectors (by the caller): the ids of each timed query. */
const RANKED_MODES: readonly QueryMode[] = ['vector', 'filtered'];

async function query(task: Extract<WorkerTask, { kind: 'query' }>) {
  const paths = preparedPaths(task.work);
  const texts = (JSON.parse(readFileSync(paths.queryTexts, 'utf8')) as string[]).slice(0, task.queries);
  const vectors = readVectors(paths.queryVectors, 0, texts.length);
  const engine = await engineNamed(task.engine, task.work);
  const modes = engine.modes ?? QUERY_MODES;
  const coldOpenMode = modes[0] as QueryMode;
  const ask = (mode: QueryMode, index: number) => collection.query(mode, texts[index] as string, vectors[index] as Float32Array, task.k, index % FILTER_GROUPS);
  const openCpu = process.cpuUsage();
  const opened = performance.now();
  const collection = await engine.open(task.folder);
  const first = await ask(coldOpenMode, 0);
  const coldOpenMs = performance.now() - opened;
  const coldOpenCpuMs = cpuMsSince(openCpu);
  if (first.length === 0) throw new Error(`${engine.name}: the first ${coldOpenMode} query found nothing`);
  const latency: Partial<Record<QueryMode, Latency>> = {};
  const failures: Partial<Record<QueryMode, string>> = {};
  const rankings: Partial<Record<QueryMode, string[][]>> = {};
  for (const mode of QUERY_MODES) {
    if (!modes.includes(mode)) continue;
    process.stderr.write(`progress: timing ${mode} queries\n`);
    try {
      for (let index = 0; index < Math.min(WARM_UP_QUERIES, texts.length); index++) await ask(mode, texts.length - 1 - index);
      const ranked: string[][] = [];
      latency[mode] = await timeQueries(async (index) => (ranked[index] = await ask(mode, index)), texts.length, task.secondsPerMode);
      if (RANKED_MODES.includes(mode)) rankings[mode] = ranked;
    } catch (error) {
      failures[mode] = String((error as Error).message ?? error).split('\n')[0] as string;
    }
  }
  await collection.close();
  return { coldOpenMs, coldOpenCpuMs, coldOpenMode, modes, latency, failures, rankings, peakRssMb: peakRssMb() };
}

async function locomo(task: Extract<WorkerTask, { kind: 'locomo' }>) {
  const paths = preparedPaths(task.work);
  const { conversations, questions } = loadLocomo(task.locomo);
  const engine = await engineNamed(task.engine, task.work);
  const turnVectors = readVectors(paths.locomoTurnVectors, 0, [...conversations.values()].reduce((sum, turns) => sum + turns.length, 0));
  const questionVectors = readVectors(paths.locomoQuestionVectors, 0, questions.length);
  // No filtered mode: LoCoMo's rows are all in group 0.
  const modes = QUERY_MODES.filter((mode) => mode !== 'filtered' && (engine.modes ?? QUERY_MODES).includes(mode));
  if (modes.length === 0) return { questions: questions.length, ingestSeconds: 0, recall: {}, p50: {}, peakRssMb: peakRssMb() };
  const collections = new Map<string, Awaited<ReturnType<Engine['create']>>>();
  let row = 0;
  const started = performance.now();
  for (const [conv, turns] of conversations) {
    const folder = join(task.folder, conv);
    mkdirSync(folder, { recursive: true });
    const collection = await engine.create(folder);
    await collection.add(turns.map((turn) => ({ id: turn.id, text: turn.text, vector: turnVectors[row++] as Float32Array, turn: turn.turn, group: 0 })));
    await collection.finish();
    collections.set(conv, collection);
  }
  const ingestSeconds = (performance.now() - started) / 1000;
  const recall: Partial<Record<QueryMode, number>> = {};
  const p50: Partial<Record<QueryMode, number>> = {};
  for (const mode of modes) {
    const metrics = new MetricsAccumulator([task.k]);
    const times: number[] = [];
    for (const [index, question] of questions.entries()) {
      const collection = collections.get(question.conv);
      if (collection === undefined) throw new Error(`question ${question.qid}: no conversation ${question.conv}`);
      const t0 = performance.now();
      const ranked = await collection.query(mode, question.question, questionVectors[index] as Float32Array, task.k, 0);
      times.push(performance.now() - t0);
      metrics.add(question.category, question.category_name, ranked, question.evidence);
    }
    const overall = metrics.result().categories.find((category) => category.key === 'all');
    recall[mode] = 100 * (overall?.recall[task.k] ?? 0);
    p50[mode] = percentile(times.sort((a, b) => a - b), 50);
  }
  for (const collection of collections.values()) await collection.close();
  return { questions: questions.length, ingestSeconds, recall, p50, peakRssMb: peakRssMb() };
}

const task = JSON.parse(process.argv[2] ?? '{}') as WorkerTask;
const result = task.kind === 'ingest' ? await ingest(task) : task.kind === 'query' ? await query(task) : await locomo(task);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
