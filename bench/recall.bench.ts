// Benchmark of remember / recall on the embedded default: store rate and warm retrieve latency, semantic and exact.
// Usage: npm run bench:recall [-- --sizes 1000,10000 --queries 200 --scopes 10 --dims 100]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './bench-args.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { InMemoryBackend } from '../src/recall/in-memory-backend.js';
import type { MemoryBackend } from '../src/recall/memory-backend.js';
import { StoreMemoryBackend } from '../src/recall/store-memory-backend.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { seededRandom, sentences } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    queries: { type: 'string', default: '200' },
    scopes: { type: 'string', default: '10' },
    dims: { type: 'string', default: '100' },
  },
});
const queryCount = Number(values.queries);
const scopeCount = Number(values.scopes);
const dimensions = Number(values.dims);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

async function timeQueries(backend: MemoryBackend, queries: string[], scoped: boolean): Promise<{ p50: number; p99: number }> {
  for (let scope = 0; scope < scopeCount; scope++) await backend.retrieve(queries[0] as string, 5, scoped ? `scope-${scope}` : null);
  const times: number[] = [];
  for (const [index, query] of queries.entries()) {
    const t0 = performance.now();
    await backend.retrieve(query, 5, scoped ? `scope-${index % scopeCount}` : null);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function measure(size: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-recall-bench-'));
  const store = openSqliteStore({ path: join(dir, 'recall.db') });
  const embedder = hashingEmbedder({ dimensions });
  const semantic = new StoreMemoryBackend({ store, embedder, logger: silentLogger });
  const exact = new StoreMemoryBackend({ store, embedder, retrieval: 'exact', logger: silentLogger });
  const inMemory = new InMemoryBackend();
  const texts = [...sentences(size)];
  const started = performance.now();
  for (const [index, text] of texts.entries()) {
    await semantic.store(`fact_${index}`, { text, index }, { scope: `scope-${index % scopeCount}` });
  }
  const storePerSecond = size / ((performance.now() - started) / 1000);
  for (const [index, text] of texts.entries()) await inMemory.store(`fact_${index}`, { text, index }, { scope: `scope-${index % scopeCount}` });
  const random = seededRandom(11);
  const queries = Array.from({ length: queryCount }, () => {
    const words = (texts[Math.floor(random() * texts.length)] as string).replace('.', '').split(' ');
    const from = Math.floor(random() * Math.max(1, words.length - 2));
    return words.slice(from, from + 2).join(' ');
  });
  const result = {
    size,
    storePerSecond,
    semanticScoped: await timeQueries(semantic, queries, true),
    semanticAll: await timeQueries(semantic, queries, false),
    exactScoped: await timeQueries(exact, queries, true),
    inMemoryScoped: await timeQueries(inMemory, queries, true),
  };
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

console.log(`mnemo recall benchmark: node ${process.version}, ${queryCount} queries of two words, topK 5, ${scopeCount} scopes, hashing embedder ${dimensions}-d, SQLite, one transaction per store`);
console.log('| entries | store/s | semantic, one scope p50 / p99 ms | semantic, all scopes p50 / p99 ms | exact (SQLite), one scope p50 / p99 ms | InMemoryBackend, one scope p50 / p99 ms |');
console.log('|---|---|---|---|---|---|');
const fixed = ({ p50, p99 }: { p50: number; p99: number }) => `${p50.toFixed(2)} / ${p99.toFixed(2)}`;
for (const size of values.sizes.split(',').map(Number)) {
  const r = await measure(size);
  console.log(`| ${r.size} | ${r.storePerSecond.toFixed(0)} | ${fixed(r.semanticScoped)} | ${fixed(r.semanticAll)} | ${fixed(r.exactScoped)} | ${fixed(r.inMemoryScoped)} |`);
}
