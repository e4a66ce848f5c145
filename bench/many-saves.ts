// Many saves on one server process: first-query latency of saves that are not hot (reopened from their persisted
// index) and steady RSS, under a memory budget for the hot indexes (indexMemoryBudget, LRU across saves).
// Usage: npm run bench:many-saves -- [--saves 1000 --chunks 1000] [--budget-mb 256] [--accesses 2000] [--work <dir>]
//        [--store sqlite|postgres]
// SQLite: the file and the saves' persisted indexes are built once per shape in --work and kept (delete the folder
// to rebuild). PostgreSQL: the server of MNEMO_BENCH_PG_URL, else MNEMO_TEST_PG_URL, else a throwaway one
// (scripts/postgres-test-server.sh, stopped at the end); the saves go into a schema of their own (bulk loaded, the
// HNSW index built after) and the indexes into `indexDirectory` under --work, both built afresh each run and the
// schema dropped at the end.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './bench-args.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/hashing-embedder.js';
import { ensureEmbedderIdentity } from '../src/embedders/index.js';
import { openMemory } from '../src/open-memory.js';
import type { NewChunk, Store } from '../src/seams/store.js';
import { openPostgresStore } from '../src/stores/postgres/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { dropSchemas } from './peers/postgres-server.js';
import { configuredPostgresUrl, startPostgresServer, stopPostgresServer } from './postgres-server.js';
import { seededRandom, sentences } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    saves: { type: 'string', default: '1000' },
    chunks: { type: 'string', default: '1000' },
    'budget-mb': { type: 'string', default: '256' },
    accesses: { type: 'string', default: '2000' },
    work: { type: 'string', default: '/tmp/mnemo-many-saves' },
    phase: { type: 'string', default: 'all' },
    store: { type: 'string', default: 'sqlite' },
  },
});
if (values.store !== 'sqlite' && values.store !== 'postgres') throw new Error(`--store: expected sqlite or postgres, got ${values.store}`);
const POSTGRES = values.store === 'postgres';
const SAVES = Number(values.saves);
const CHUNKS = Number(values.chunks);
const BUDGET = Number(values['budget-mb']) * 1024 * 1024;
const ACCESSES = Number(values.accesses);
const DIMS = 100;
const CHUNKS_PER_TURN = 10;
const EMBEDDER = hashingEmbedder({ dimensions: DIMS });
const folder = join(values.work, POSTGRES ? `${SAVES}x${CHUNKS}-postgres` : `${SAVES}x${CHUNKS}`);
const path = join(folder, 'mnemo.db');
/** Where the persisted indexes are: beside the SQLite file, or the PostgreSQL run's `indexDirectory`. */
const indexFolder = POSTGRES ? join(folder, 'indexes') : `${path}.index`;
const SCHEMA = `many_saves_${SAVES}x${CHUNKS}`;
const saveIds = Array.from({ length: SAVES }, (_, index) => `save-${String(index).padStart(5, '0')}`);

const percentile = (list: number[], p: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor((p / 100) * list.length))] as number;
const rssMb = () => process.memoryUsage().rss / 1024 / 1024;

/** The store of the saves: the SQLite file, or the run's PostgreSQL schema (`bulk`: no HNSW index while loading). */
async function openStore(bulk: boolean): Promise<Store> {
  if (!POSTGRES) return openSqliteStore({ path, durability: 'normal' });
  return openPostgresStore({ url: process.env['MNEMO_BENCH_PG_URL'] as string, schema: SCHEMA, ...(bulk ? { vectorIndexes: 'manual' as const } : {}) });
}

/** openMemory's options for the saves' store: its persisted indexes where `indexFolder` says, under the budget. */
async function memoryOptions(): Promise<Parameters<typeof openMemory>[0]> {
  const common = { embedder: EMBEDDER, embeddingCache: false, logger: silentLogger, indexMemoryBudget: BUDGET };
  return POSTGRES ? { ...common, store: await openStore(false), indexDirectory: indexFolder } : { ...common, path };
}

/** Writes the saves (random vectors recorded as the hashing embedder's), then builds and persists every index. */
async function build(): Promise<void> {
  mkdirSync(folder, { recursive: true });
  const store = await openStore(true);
  await ensureEmbedderIdentity(store, EMBEDDER);
  const random = seededRandom(7);
  const text = sentences(SAVES * CHUNKS, 5, 20_000);
  let number = 0;
  const started = performance.now();
  for (const saveId of saveIds) {
    for (let from = 0; from < CHUNKS; from += 10_000) {
      const chunks: NewChunk[] = [];
      for (let index = from; index < Math.min(CHUNKS, from + 10_000); index++) {
        const vector = new Float32Array(DIMS);
        for (let dimension = 0; dimension < DIMS; dimension++) vector[dimension] = random() - 0.5;
        const turnId = Math.floor(index / CHUNKS_PER_TURN);
        chunks.push({ id: `00000000-0000-4000-8000-${String(++number).padStart(12, '0')}`, saveId, turnId, chunkType: 'narrative', text: text.next().value as string, entryId: null, metadata: { saveId, turnId, chunkType: 'narrative' }, createdAt: 0, embedding: vector });
      }
      await store.insertChunks(chunks);
    }
  }
  if (POSTGRES) {
    const postgres = store as Awaited<ReturnType<typeof openPostgresStore>>;
    await postgres.createVectorIndexes();
    await postgres.analyze();
  }
  await store.close();
  const memory = await openMemory(await memoryOptions());
  for (const saveId of saveIds) await memory.warm(saveId);
  await memory.close();
  console.log(`built ${SAVES} saves x ${CHUNKS} chunks in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Random access over the saves, one hybrid query each, in this (fresh) process. */
async function measure(): Promise<void> {
  const memory = await openMemory(await memoryOptions());
  const random = seededRandom(13);
  const queries = [...sentences(64, 99, 20_000)];
  const cold: number[] = [];
  const hot: number[] = [];
  const rss: number[] = [];
  const openRss = rssMb();
  const started = performance.now();
  for (let access = 0; access < ACCESSES; access++) {
    const saveId = saveIds[Math.floor(random() * SAVES)] as string;
    const query = queries[access % queries.length] as string;
    const wasHeld = memory.narrative.holdsIndex(saveId);
    const began = performance.now();
    await memory.query(saveId, query, { k: 10 });
    (wasHeld ? hot : cold).push(performance.now() - began);
    if (access % 100 === 99) rss.push(rssMb());
  }
  const seconds = (performance.now() - started) / 1000;
  const held = memory.narrative.heldIndexes;
  await memory.close();
  const files = readdirSync(indexFolder).filter((name) => name.endsWith('.index'));
  const indexMb = files.reduce((total, name) => total + statSync(join(indexFolder, name)).size, 0) / 1024 / 1024;
  const steady = rss.slice(Math.floor(rss.length / 2));
  console.log(`${POSTGRES ? 'PostgreSQL' : 'SQLite'}: ${SAVES} saves x ${CHUNKS} chunks, budget ${values['budget-mb']} MB, ${ACCESSES} random accesses in ${seconds.toFixed(1)} s (one hybrid query each, k = 10)`);
  console.log(`| first query of a save not held (${cold.length}) p50 / p99 ms | held (${hot.length}) p50 / p99 ms | held at the end | RSS MB before the first query | steady RSS MB (median / max of the second half) | persisted indexes MB |`);
  console.log('|---:|---:|---:|---:|---:|---:|');
  const pair = (list: number[]) => (list.length === 0 ? '-' : `${percentile(list, 50).toFixed(1)} / ${percentile(list, 99).toFixed(1)}`);
  console.log(`| ${pair(cold)} | ${pair(hot)} | ${held.indexes} (${(held.bytes / 1024 / 1024).toFixed(0)} MB est.) | ${openRss.toFixed(0)} | ${percentile(steady, 50).toFixed(0)} / ${Math.max(...steady).toFixed(0)} | ${indexMb.toFixed(0)} |`);
}

/** Runs this script's `phase` in a fresh process (the measured one starts clean), the PostgreSQL URL passed on. */
function runPhase(phase: 'build' | 'measure', url: string | undefined): void {
  const env = url === undefined ? process.env : { ...process.env, MNEMO_BENCH_PG_URL: url };
  execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, ...process.argv.slice(2), '--phase', phase], { stdio: 'inherit', env });
}

if (values.phase === 'build') await build();
else if (values.phase === 'measure') await measure();
else if (!POSTGRES) {
  if (!existsSync(indexFolder)) runPhase('build', undefined);
  await measure();
} else {
  const configured = configuredPostgresUrl();
  const url = configured ?? startPostgresServer();
  try {
    rmSync(folder, { recursive: true, force: true });
    await dropSchemas(url, [SCHEMA]);
    runPhase('build', url);
    runPhase('measure', url);
  } finally {
    await dropSchemas(url, [SCHEMA]);
    if (configured === undefined) stopPostgresServer(url);
  }
}
