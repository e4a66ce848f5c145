// Benchmark of narrative memory on the embedded default: ingest rate, query latency, RSS and file size.
// Usage: npm run bench [-- --sizes 10000,100000 --queries 300 --dims 100 --embedder hashing|static --k 10]
//        npm run bench -- --sizes 100000 --embedder static --context --compare '{"windowSum":null}' --rounds 3
// --context gives each chunk a speaker, a scene and a date in metadata (8 speakers, 200 chunks a scene, a day a
// scene) and names a speaker and a month in every query, so every context signal runs. --compare runs the hybrid
// queries with the options given (before) and with the defaults (after), alternately in fresh processes, --rounds
// times each, on the same file, and prints each run and the medians. A metadata filter against none, e.g.:
//        npm run bench -- --sizes 100000 --context --compare '{"where":{"speaker":"Avelin"}}' --rounds 3
// --facts N stores N living-memory facts (synthetic sentences, spread evenly over the turns) after the chunks, so the
// facts arm runs on every query (compare with '{"facts":null}'). Each run prints its CPU time per query beside p50.
// With --embedder static the corpus is drawn from real English words (GloVe's 20,000 most frequent after the
// first 100), so that the static vectors have something to read.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './bench-args.js';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openMemory } from '../src/open-memory.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { loadStaticEmbedder } from '../src/embedders/static/index.js';
import type { Embedder } from '../src/seams/embedder.js';
import type { QueryOptions } from '../src/core/types.js';
import { silentLogger } from '../src/core/logger.js';
import { seededRandom, sentences } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    queries: { type: 'string', default: '300' },
    dims: { type: 'string', default: '100' },
    batch: { type: 'string', default: '100' },
    'query-db': { type: 'string' },
    mode: { type: 'string', default: 'hybrid' },
    size: { type: 'string' },
    embedder: { type: 'string', default: 'hashing' },
    context: { type: 'boolean', default: false },
    compare: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    facts: { type: 'string', default: '0' },
    'query-options': { type: 'string', default: '{}' },
    // Hits asked for by each timed query (10 unless given; an option reading past the first hits needs more).
    k: { type: 'string', default: '10' },
  },
});
if (!['hashing', 'static'].includes(values.embedder)) throw new Error(`--embedder: expected hashing or static, got ${values.embedder}`);
const queryCount = Number(values.queries);
const dimensions = Number(values.dims);
const batch = Number(values.batch);
const k = Number(values.k);

async function makeEmbedder(): Promise<Embedder> {
  return values.embedder === 'static' ? loadStaticEmbedder() : hashingEmbedder({ dimensions });
}

/** The words the corpus is drawn from: invented ones for hashing, real English ones for static. */
async function corpusWords(): Promise<string[] | undefined> {
  if (values.embedder !== 'static') return undefined;
  const { table } = await loadStaticEmbedder();
  return table.words.slice(100, 20_100);
}

/** The synthetic context of chunk `index` (with --context): a speaker, a scene of 200 chunks, a day per scene. */
const SPEAKERS = ['Avelin', 'Borrik', 'Cassa', 'Dunmore', 'Elowen', 'Fennick', 'Garrow', 'Hestia'];
function contextOf(index: number): Record<string, string> | undefined {
  if (!values.context) return undefined;
  const scene = Math.floor(index / 200);
  return { speaker: SPEAKERS[index % SPEAKERS.length] as string, scene: String(scene), time: new Date(Date.UTC(2020, 0, 1) + scene * 86_400_000).toISOString().slice(0, 10) };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The query phase, in a fresh process as a game would open its save: cold open, first query, then timed ones. */
async function queryPhase(path: string, size: number, mode: string) {
  const opened = performance.now();
  const memory = await openMemory({ path, embedder: mode === 'hybrid' ? await makeEmbedder() : null, logger: silentLogger });
  const corpus = [...sentences(Math.min(size, 5000), 42, 20_000, await corpusWords())];
  const random = seededRandom(7);
  const queries = Array.from({ length: queryCount }, () => {
    const words = (corpus[Math.floor(random() * corpus.length)] as string).replace('.', '').split(' ');
    const from = Math.floor(random() * Math.max(1, words.length - 4));
    const text = words.slice(from, from + 4).join(' ');
    return values.context ? `${SPEAKERS[Math.floor(random() * SPEAKERS.length)]} ${text} in March 2021` : text;
  });
  const options = JSON.parse(values['query-options']) as QueryOptions;
  await memory.query('bench', queries[0] as string, { ...options, k });
  const coldMs = performance.now() - opened;
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (const query of queries) {
    const t0 = performance.now();
    await memory.query('bench', query, { ...options, k });
    times.push(performance.now() - t0);
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  await memory.close();
  const cpuMs = (used.user + used.system) / 1000 / queries.length;
  console.log(JSON.stringify({ coldMs, p50: percentile(times, 50), p99: percentile(times, 99), cpuMs, rss: process.memoryUsage().rss }));
}

function child(path: string, size: number, mode: string, queryOptions = '{}'): { coldMs: number; p50: number; p99: number; cpuMs: number; rss: number } {
  const flags = ['--query-db', path, '--size', String(size), '--mode', mode, '--queries', String(queryCount), '--dims', String(dimensions), '--embedder', values.embedder, '--query-options', queryOptions, '--k', String(k)];
  const result = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...flags, ...(values.context ? ['--context'] : [])], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string);
}

/** With --facts N: N synthetic facts spread evenly over the save's turns, a turn's facts in one write. */
async function addFacts(memory: Awaited<ReturnType<typeof openMemory>>, turns: number, words: string[] | undefined) {
  const count = Number(values.facts);
  if (count <= 0) return;
  const byTurn = new Map<number, string[]>();
  let index = 0;
  for (const statement of sentences(count, 99, 20_000, words)) {
    const turnId = Math.floor((index++ * turns) / count);
    byTurn.set(turnId, [...(byTurn.get(turnId) ?? []), statement]);
  }
  for (const [turnId, statements] of byTurn) await memory.living.addFacts('bench', turnId, statements);
}

async function measure(size: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-bench-'));
  const path = join(dir, 'bench.db');
  const memory = await openMemory({ path, embedder: await makeEmbedder(), logger: silentLogger });
  const words = await corpusWords();
  const started = performance.now();
  let pending: { text: string; metadata?: Record<string, string> }[] = [];
  let turn = 0;
  let index = 0;
  for (const text of sentences(size, 42, 20_000, words)) {
    const metadata = contextOf(index++);
    pending.push(metadata === undefined ? { text } : { text, metadata });
    if (pending.length === batch) {
      await memory.addMany(pending.map((chunk) => ({ saveId: 'bench', turnId: turn, ...chunk })));
      pending = [];
      turn++;
    }
  }
  if (pending.length > 0) await memory.addMany(pending.map((chunk) => ({ saveId: 'bench', turnId: turn, ...chunk })));
  const ingestSeconds = (performance.now() - started) / 1000;
  await addFacts(memory, turn + 1, words);
  await memory.close();
  let bytes = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    try { bytes += statSync(path + suffix).size; } catch { /* absent */ }
  }
  if (values.compare !== undefined) {
    compare(path, size, values.compare);
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const lexical = child(path, size, 'lexical');
  const hybrid = child(path, size, 'hybrid');
  rmSync(dir, { recursive: true, force: true });
  return { size, ingestPerSecond: size / ingestSeconds, lexical, hybrid, bytes };
}

/** Hybrid queries with `before` options and with the defaults, alternately, `--rounds` times each; medians. */
function compare(path: string, size: number, before: string) {
  const runs: Record<'before' | 'after', number[]> = { before: [], after: [] };
  const cpu: Record<'before' | 'after', number[]> = { before: [], after: [] };
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
  console.log(`| ${size} chunks${Number(values.facts) > 0 ? ` and ${values.facts} facts` : ''}, hybrid | run | p50 ms | p99 ms | CPU ms / query | load average |`);
  console.log('|---|---|---|---|---|---|');
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [label, options] of [['before', before], ['after', '{}']] as const) {
      const result = child(path, size, 'hybrid', options);
      runs[label].push(result.p50);
      cpu[label].push(result.cpuMs);
      console.log(`| ${label === 'before' ? before : 'defaults'} | ${round + 1} | ${result.p50.toFixed(2)} | ${result.p99.toFixed(2)} | ${result.cpuMs.toFixed(2)} | ${loadavg()[0]?.toFixed(1)} |`);
    }
  }
  console.log(`median p50: before ${median(runs.before).toFixed(2)} ms, after ${median(runs.after).toFixed(2)} ms (x${(median(runs.after) / median(runs.before)).toFixed(2)}); CPU per query: before ${median(cpu.before).toFixed(2)} ms, after ${median(cpu.after).toFixed(2)} ms`);
}

if (values['query-db'] !== undefined) {
  await queryPhase(values['query-db'], Number(values.size), values.mode);
} else {
  const embedder = await makeEmbedder();
  console.log(`mnemo narrative benchmark: node ${process.version}, ${queryCount} queries, k = ${k}, embedder ${embedder.provider}/${embedder.modelId} (${embedder.dimensions}-d), ${batch} chunks per transaction; queries in a fresh process`);
  if (values.compare === undefined) console.log('| chunks | ingest chunks/s | open + first query ms | lexical p50 ms | lexical p99 ms | hybrid p50 ms | hybrid p99 ms | hybrid CPU ms / query | RSS lexical MB | RSS hybrid MB | file MB |');
  if (values.compare === undefined) console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const size of values.sizes.split(',').map(Number)) {
    const r = await measure(size);
    if (r === null) continue;
    console.log(`| ${r.size} | ${r.ingestPerSecond.toFixed(0)} | ${r.hybrid.coldMs.toFixed(0)} | ${r.lexical.p50.toFixed(2)} | ${r.lexical.p99.toFixed(2)} | ${r.hybrid.p50.toFixed(2)} | ${r.hybrid.p99.toFixed(2)} | ${r.hybrid.cpuMs.toFixed(2)} | ${mb(r.lexical.rss)} | ${mb(r.hybrid.rss)} | ${mb(r.bytes)} |`);
  }
}
