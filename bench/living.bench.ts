// Benchmark of living memory: the rewind of a large save across every layer (SQLite, the embedded default, or
// PostgreSQL), and the background pipeline's own cost per turn (model time excluded, SQLite).
// Usage: npm run bench:living [-- --turns 1000 --trials 5 --pipeline-turns 200 --store sqlite|postgres --keep FILE]
// --keep FILE (SQLite): a copy of the built save is left at FILE, for bench/rewind-compare.ts. --keep NAME
// (PostgreSQL): the built database is kept under NAME on the server (for EXPLAIN ANALYZE of the rewind's statements).
// PostgreSQL: MNEMO_BENCH_PG_URL, else MNEMO_TEST_PG_URL, else a throwaway server started (and stopped) with
// scripts/postgres-test-server.sh. Each trial rewinds a fresh copy of the built database (CREATE DATABASE ... TEMPLATE).
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './bench-args.js';
import type { ConsolidationAction, FactInput } from '../src/core/living-types.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/hashing-embedder.js';
import { ensureEmbedderIdentity } from '../src/embedders/index.js';
import { ScriptedLlm } from '../src/llms/scripted/index.js';
import type { ScriptedCall } from '../src/llms/scripted/index.js';
import { openMemory } from '../src/open-memory.js';
import type { NewChunk, RewindCounts, Store } from '../src/seams/store.js';
import { openPostgresStore, poolQueryable } from '../src/stores/postgres/index.js';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { countingQueryable } from '../src/testing/counting-queryable.js';
import type { CountingQueryable } from '../src/testing/counting-queryable.js';
import { rewindLivingLayer } from './living-layer-rewind.js';
import { configuredPostgresUrl, startPostgresServer, stopPostgresServer } from './postgres-server.js';
import { seededRandom, sentences } from './synthetic-corpus.js';
import { postgresConnectionOf } from '../src/stores/postgres/postgres-connection.js';
import { hideRowsAfter as hidePostgresRowsAfter, rewoundTables } from '../src/stores/postgres/rewound-rows.js';
import { sqliteConnectionOf } from '../src/stores/sqlite/sqlite-connection.js';
import { hideChunksAfter, PURGE_BATCH, purgeRewoundRows } from '../src/stores/sqlite/rewound-rows.js';
import Database from 'better-sqlite3';

const { values } = benchArgs(import.meta.url, {
  options: {
    turns: { type: 'string', default: '1000' },
    trials: { type: 'string', default: '5' },
    'pipeline-turns': { type: 'string', default: '200' },
    dims: { type: 'string', default: '100' },
    store: { type: 'string', default: 'sqlite' },
    keep: { type: 'string' },
  },
});
if (values.store !== 'sqlite' && values.store !== 'postgres') throw new Error(`--store: expected sqlite or postgres, got ${values.store}`);
const STORE = values.store;
const TURNS = Number(values.turns);
const TRIALS = Number(values.trials);
const PIPELINE_TURNS = Number(values['pipeline-turns']);
const DIMS = Number(values.dims);
const CHUNKS_PER_TURN = 100;
const FACTS_PER_TURN = 50;
const CREATES_PER_TURN = 5;
const UPDATES_PER_TURN = 5;
const MODELS_PER_TURN = 5;
/** The embedder the saves are recorded under (its vectors' length is the corpus's). */
const EMBEDDER = hashingEmbedder({ dimensions: DIMS });
const SUBJECTS = Array.from({ length: 50 }, (_, index) => `Character${index}`);

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
const percentile = (list: number[], p: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor((p / 100) * list.length))] as number;
const mb = (path: string) => ['', '-wal'].reduce((total, suffix) => total + (existsSync(path + suffix) ? statSync(path + suffix).size : 0), 0) / 1024 / 1024;

/** Builds the large save in `store`: chunks with vectors, facts, beliefs with histories, model versions, done jobs. */
async function build(store: Store) {
  // The vectors are random, recorded as the hashing embedder's (the one the pipeline part opens the save with).
  await ensureEmbedderIdentity(store, EMBEDDER);
  const random = seededRandom(11);
  const text = sentences(TURNS * CHUNKS_PER_TURN, 5, 5000);
  const beliefIds: number[] = [];
  let chunkNumber = 0;
  const started = performance.now();
  for (let turn = 1; turn <= TURNS; turn++) {
    const chunks: NewChunk[] = [];
    for (let index = 0; index < CHUNKS_PER_TURN; index++) {
      const vector = new Float32Array(DIMS);
      for (let dimension = 0; dimension < DIMS; dimension++) vector[dimension] = random() - 0.5;
      chunks.push({ id: `00000000-0000-4000-8000-${String(++chunkNumber).padStart(12, '0')}`, saveId: 'bench', turnId: turn, chunkType: 'narrative', text: text.next().value as string, entryId: null, metadata: { saveId: 'bench', turnId: turn, chunkType: 'narrative' }, createdAt: 0, embedding: vector });
    }
    await store.insertChunks(chunks);
    const facts: FactInput[] = Array.from({ length: FACTS_PER_TURN }, (_, index) => {
      const subject = SUBJECTS[Math.floor(random() * SUBJECTS.length)] as string;
      return { statement: `${subject} does thing ${index} on turn ${turn}.`, who: subject, what: `thing ${index}`, entities: [subject, `Place${index % 7}`] };
    });
    // The turn goes through the queue as the worker would commit it: extraction, consolidation, reflection.
    await store.living.enqueueTurn('bench', turn, {}, turn);
    const job = await store.living.claimJob({ workerId: 'bench', now: turn, leaseMs: 1e9, saveId: 'bench' });
    const claim = { saveId: 'bench', jobId: job?.jobId as number, generation: job?.generation as number, claimToken: job?.claimToken as string };
    await store.living.completeStage(claim, { stage: 'extract', facts }, turn);
    const factIds = facts.map((fact) => fact.factId as number);
    const pick = () => factIds[Math.floor(random() * factIds.length)] as number;
    const actions: ConsolidationAction[] = [];
    for (let index = 0; index < CREATES_PER_TURN; index++) {
      actions.push({ kind: 'CREATE', statement: `Belief ${turn}.${index}: ${SUBJECTS[index] as string} holds a view.`, subject: SUBJECTS[Math.floor(random() * SUBJECTS.length)] as string, beliefId: null, sourceFactIds: [pick(), pick(), pick()] });
    }
    for (let index = 0; index < UPDATES_PER_TURN && beliefIds.length > 0; index++) {
      actions.push({ kind: 'UPDATE', statement: `Belief revised on turn ${turn}.`, subject: '', beliefId: beliefIds[Math.floor(random() * beliefIds.length)] as number, sourceFactIds: [pick(), pick()] });
    }
    if (turn % 20 === 0 && beliefIds.length > 0) actions.push({ kind: 'DELETE', statement: '', subject: '', beliefId: beliefIds[Math.floor(random() * beliefIds.length)] as number, sourceFactIds: [] });
    await store.living.completeStage(claim, { stage: 'consolidate', actions, factTurnMap: new Map(factIds.map((id) => [id, turn])), subjects: [] }, turn);
    const recent = await store.living.getBeliefs('bench', { limit: CREATES_PER_TURN + UPDATES_PER_TURN + 1 });
    for (const belief of recent) if (belief.createdTurnId === turn) beliefIds.push(belief.beliefId as number);
    const models = Array.from({ length: MODELS_PER_TURN }, () => {
      const subject = SUBJECTS[Math.floor(random() * SUBJECTS.length)] as string;
      return { subject, summary: `${subject} as of turn ${turn}: ${'a profile sentence. '.repeat(12)}`, sources: beliefIds.slice(-5) };
    });
    await store.living.completeStage(claim, { stage: 'reflect', models }, turn);
  }
  const counts = {
    chunks: await store.countChunks('bench'),
    facts: await store.living.countFacts('bench'),
    beliefs: (await store.living.getBeliefs('bench', { includeDeleted: true })).length,
    models: await store.living.countModels('bench'),
  };
  return { seconds: (performance.now() - started) / 1000, counts };
}

type Part = 'every layer (store.rewind)' | 'chunks only' | 'living layer only';

/** A fresh copy of the built save, opened, with what a rewind trial needs of it. */
interface TrialStore {
  store: Store;
  /** Removes the chunks after `target` as the store's rewind does (hides them for the purge). */
  deleteChunksAfter(target: number): Promise<void>;
  /** SQLite: closes the store and times the purge of the chunks its rewind hid, run to the end (ms). */
  purge?(): Promise<number>;
  /** Statements sent to PostgreSQL since the copy was opened (undefined on SQLite). */
  statements?: CountingQueryable;
  close(): Promise<void>;
}

/** Where the benchmark builds its save and makes the copies its trials rewind. */
interface Backend {
  label: string;
  durabilities: readonly string[];
  /** Opens the store to build the save in (closed by the caller). */
  source(): Promise<Store>;
  /** Opens a fresh copy of the built save. */
  copy(durability: string, trial: number): Promise<TrialStore>;
  /** A line about the built save (its size). */
  describe(): Promise<string>;
  end(): Promise<void>;
}

function sqliteBackend(dir: string): Backend {
  const source = join(dir, 'source.db');
  return {
    label: 'SQLite',
    durabilities: ['full', 'normal'],
    source: async () => openSqliteStore({ path: source, durability: 'normal' }),
    async copy(durability, trial) {
      const copy = join(dir, `trial-${trial}.db`);
      for (const suffix of ['', '-wal', '-shm']) if (existsSync(source + suffix)) copyFileSync(source + suffix, copy + suffix);
      const store = openSqliteStore({ path: copy, durability: durability as 'full' | 'normal' });
      return {
        store,
        deleteChunksAfter: async (target) => void sqliteConnectionOf(store).write(() => hideChunksAfter(sqliteConnectionOf(store).database(), 'bench', target)),
        async purge() {
          // The background purge's work, timed alone: the store is closed first so that its own timer does not run.
          await store.close();
          const db = new Database(copy);
          db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
          const started = performance.now();
          while (db.transaction(() => purgeRewoundRows(db, PURGE_BATCH)).immediate().pending);
          const ms = performance.now() - started;
          db.close();
          return ms;
        },
        async close() {
          await store.close();
          for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
        },
      };
    },
    describe: async () => `file ${mb(source).toFixed(1)} MB`,
    end: async () => undefined,
  };
}

/** The URL of another database on the same server. */
function databaseUrl(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function postgresBackend(): Promise<Backend> {
  const configured = configuredPostgresUrl();
  const url = configured ?? startPostgresServer();
  const { default: pg } = await import('pg');
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const source = `mnemo_living_bench_${process.pid}`;
  const copies: string[] = [];
  await admin.query(`CREATE DATABASE ${source}`);
  return {
    label: `PostgreSQL (${configured === undefined ? 'a throwaway server' : 'the configured server'})`,
    durabilities: ['server'],
    // No HNSW index while building: the benchmark measures rewinds, and the index would only slow the build.
    source: () => openPostgresStore({ url: databaseUrl(url, source), vectorIndexes: 'manual' }),
    async copy(_durability, trial) {
      const copy = `${source}_trial_${trial}`;
      await admin.query(`DROP DATABASE IF EXISTS ${copy}`);
      await admin.query(`CREATE DATABASE ${copy} TEMPLATE ${source}`);
      copies.push(copy);
      const statements = countingQueryable(poolQueryable(new pg.Pool({ connectionString: databaseUrl(url, copy), max: 2 }), { owned: true }));
      const store: PostgresStore = await openPostgresStore({ client: statements, vectorIndexes: 'manual' });
      return {
        store,
        statements,
        deleteChunksAfter: async (target) => void await postgresConnectionOf(store).write((client) => hidePostgresRowsAfter(client, rewoundTables(store.schema).chunks, 'bench', target)),
        async close() {
          await store.close();
          await admin.query(`DROP DATABASE ${copy}`);
        },
      };
    },
    async describe() {
      const { rows } = await admin.query<{ size: string }>('SELECT pg_size_pretty(pg_database_size($1)) AS size', [source]);
      return `database ${rows[0]?.size ?? '?'}`;
    },
    async end() {
      for (const copy of copies) await admin.query(`DROP DATABASE IF EXISTS ${copy}`);
      if (values.keep === undefined) await admin.query(`DROP DATABASE IF EXISTS ${source}`);
      else {
        await admin.query(`DROP DATABASE IF EXISTS ${values.keep}`);
        await admin.query(`ALTER DATABASE ${source} RENAME TO ${values.keep}`);
        console.log(`\nkept the built database as ${values.keep}`);
      }
      await admin.end();
      if (configured === undefined) stopPostgresServer(url);
    },
  };
}

/** One rewind to the middle turn on a fresh copy of the built save, of every layer or of one part, timed. */
async function rewindTrial(backend: Backend, durability: string, trial: number, part: Part) {
  const copy = await backend.copy(durability, trial);
  const { store } = copy;
  await store.countChunks('bench');
  await store.living.countFacts('bench');
  const target = Math.floor(TURNS / 2);
  copy.statements?.reset();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let removed: RewindCounts | null = null;
  if (part === 'every layer (store.rewind)') removed = (await store.rewind('bench', target)).removed;
  else if (part === 'living layer only') await rewindLivingLayer(store as SqliteStore | PostgresStore, 'bench', target);
  else await copy.deleteChunksAfter(target);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const statements = copy.statements?.statements;
  const purgeMs = part === 'every layer (store.rewind)' ? await copy.purge?.() : undefined;
  await copy.close();
  return { ms, cpuMs, removed, statements, purgeMs };
}

/** A model that answers instantly and records how long its answers took to make. */
function instantModel() {
  let answerMs = 0;
  const llm = new ScriptedLlm((call: ScriptedCall) => {
    const started = performance.now();
    let answer: object;
    if (call.schemaName === 'facts') {
      const narrative = /<<<\n([\s\S]*?)\n>>>/.exec(call.prompt)?.[1] ?? '';
      answer = { facts: narrative.split('. ').slice(0, 4).map((sentence, index) => ({ statement: `${sentence}.`, fact_type: 'experience', who: SUBJECTS[index] as string, what: '', when: '', where: '', why: '', entities: [SUBJECTS[index] as string] })) };
    } else if (call.schemaName === 'consolidation') {
      const ids = [...call.prompt.matchAll(/^\[(\d+)\]/gm)].map((match) => Number(match[1]));
      answer = { actions: ids.slice(0, 2).map((id, index) => ({ kind: 'CREATE', belief_id: null, subject: SUBJECTS[index] as string, statement: `A belief from fact ${id}.`, source_fact_ids: [id] })) };
    } else {
      answer = { summary: 'A short profile of who this is now.' };
    }
    answerMs += performance.now() - started;
    return answer;
  });
  return { llm, answerMs: () => answerMs };
}

async function pipeline(path: string, label: string, firstTurn: number) {
  const { llm, answerMs } = instantModel();
  const memory = await openMemory({ path, llm, embedder: EMBEDDER, logger: silentLogger, living: { autoStart: false, minBeliefs: 1 } });
  const text = sentences(PIPELINE_TURNS * 4, 9, 3000);
  const recordMs: number[] = [];
  const stageMs: number[] = [];
  let total = 0;
  for (let index = 0; index < PIPELINE_TURNS; index++) {
    const turn = firstTurn + index;
    const narrative = Array.from({ length: 4 }, () => text.next().value as string).join(' ');
    await memory.add({ saveId: 'bench', turnId: turn, text: narrative });
    const before = performance.now();
    await memory.living.recordTurn({ saveId: 'bench', turnId: turn });
    recordMs.push(performance.now() - before);
    const answeredBefore = answerMs();
    const started = performance.now();
    await memory.living.runPending();
    const elapsed = performance.now() - started - (answerMs() - answeredBefore);
    stageMs.push(elapsed);
    total += elapsed;
  }
  await memory.close();
  return { label, calls: llm.calls.length, recordP50: median(recordMs), recordP99: percentile(recordMs, 99), perTurnMean: total / PIPELINE_TURNS, perTurnP50: median(stageMs), perTurnP99: percentile(stageMs, 99) };
}

const dir = mkdtempSync(join(tmpdir(), 'mnemo-living-bench-'));
const backend = STORE === 'postgres' ? await postgresBackend() : sqliteBackend(dir);
try {
  console.log(`mnemo living benchmark (${backend.label}): node ${process.version}; ${TURNS} turns x (${CHUNKS_PER_TURN} chunks with ${DIMS}-d vectors, ${FACTS_PER_TURN} facts, ${CREATES_PER_TURN} new + ${UPDATES_PER_TURN} updated beliefs, ${MODELS_PER_TURN} model refreshes)`);
  const store = await backend.source();
  const built = await build(store);
  await store.close();
  console.log(`built in ${built.seconds.toFixed(1)} s: ${JSON.stringify(built.counts)}, ${await backend.describe()}\n`);
  if (values.keep !== undefined && STORE === 'sqlite') {
    for (const suffix of ['', '-wal']) if (existsSync(join(dir, 'source.db') + suffix)) copyFileSync(join(dir, 'source.db') + suffix, values.keep + suffix);
    console.log(`kept a copy of the built save at ${values.keep}\n`);
  }

  console.log(`Rewind to turn ${Math.floor(TURNS / 2)} (store.rewind: chunks, facts, beliefs, models and jobs in one transaction), ${TRIALS} trials on fresh copies`);
  const counted = STORE === 'postgres';
  const purged = STORE === 'sqlite';
  const load = () => loadavg().map((value) => value.toFixed(1)).join(' / ');
  console.log(`load average (1 / 5 / 15 min) before: ${load()}; CPU ms is this process's user + system time during the rewind${counted ? ' (the server\'s own time is not in it)' : ''}`);
  console.log(`| durability | what | median ms | min ms | max ms | CPU median ms |${counted ? ' statements |' : ''}${purged ? ' then the background purge, median ms |' : ''}`);
  console.log(`|---|---|---|---|---|---|${counted ? '---|' : ''}${purged ? '---|' : ''}`);
  let removed: RewindCounts | null = null;
  let trialNumber = 0;
  for (const durability of backend.durabilities) {
    for (const part of ['every layer (store.rewind)', 'chunks only', 'living layer only'] as const) {
      const trials = [];
      for (let trial = 0; trial < TRIALS; trial++) trials.push(await rewindTrial(backend, durability, ++trialNumber, part));
      const times = trials.map((trial) => trial.ms);
      removed ??= trials[0]?.removed ?? null;
      const purges = trials.flatMap((trial) => trial.purgeMs ?? []);
      const purge = purged ? ` ${purges.length > 0 ? median(purges).toFixed(1) : ''} |` : '';
      const cpu = median(trials.map((trial) => trial.cpuMs));
      console.log(`| ${durability} | ${part} | ${median(times).toFixed(1)} | ${Math.min(...times).toFixed(1)} | ${Math.max(...times).toFixed(1)} | ${cpu.toFixed(1)} |${counted ? ` ${trials[0]?.statements ?? '?'} |` : ''}${purge}`);
    }
  }
  console.log(`load average after: ${load()}`);
  if (removed !== null) {
    const { chunks, living } = removed;
    console.log(`\nremoved: ${chunks} chunks, ${living.facts} facts, beliefs ${living.beliefsDeleted} dropped + ${living.beliefsUpdated} rolled back, models ${living.modelsDeleted} dropped + ${living.modelsUpdated} rolled back, ${living.jobsCancelled} jobs`);
  }

  if (STORE === 'sqlite') {
    const source = join(dir, 'source.db');
    console.log(`\nPipeline overhead per turn, model time excluded (${PIPELINE_TURNS} turns, instant scripted model, 3 stages per turn)`);
    console.log('| save | recordTurn p50 ms | recordTurn p99 ms | background per turn mean ms | p50 ms | p99 ms | model calls |');
    console.log('|---|---|---|---|---|---|---|');
    const results = [await pipeline(join(dir, 'fresh.db'), 'fresh save', 1)];
    const big = join(dir, 'big.db');
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(source + suffix)) copyFileSync(source + suffix, big + suffix);
    results.push(await pipeline(big, `the ${built.counts.facts / 1000}k-fact save`, TURNS + 1));
    for (const r of results) {
      console.log(`| ${r.label} | ${r.recordP50.toFixed(2)} | ${r.recordP99.toFixed(2)} | ${r.perTurnMean.toFixed(2)} | ${r.perTurnP50.toFixed(2)} | ${r.perTurnP99.toFixed(2)} | ${r.calls} |`);
    }
  }
} finally {
  await backend.end();
  rmSync(dir, { recursive: true, force: true });
}
