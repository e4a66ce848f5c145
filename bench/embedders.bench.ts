// Benchmark of the local embedders: load time, RSS after load, embeddings per second; each in a fresh process.
// Usage: npm run bench:embedders [-- --texts 20000 --embedders static,hashing,minilm]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './bench-args.js';
import { embedInBatches } from '../src/embedders/embed-in-batches.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { loadStaticEmbedder } from '../src/embedders/static/index.js';
import { loadTransformersEmbedder, MINILM_MODEL } from '../src/embedders/transformers/index.js';
import type { Embedder } from '../src/seams/embedder.js';
import { findModel, modelSearchPath } from '../src/transformers/index.js';
import { sentences } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    texts: { type: 'string', default: '20000' },
    embedders: { type: 'string', default: 'static,hashing,minilm' },
    child: { type: 'string' },
    'cache-dir': { type: 'string' },
  },
});
const textCount = Number(values.texts);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function load(name: string): Promise<Embedder> {
  if (name === 'static') return loadStaticEmbedder({ cacheDir: values['cache-dir'] });
  if (name === 'hashing') return hashingEmbedder({ dimensions: 100 });
  if (name === 'minilm') return loadTransformersEmbedder({ model: MINILM_MODEL, dtype: findModel(MINILM_MODEL, 'fp32', {}) !== null ? 'fp32' : 'q8' });
  throw new Error(`unknown embedder ${name}`);
}

/** In a fresh process: load, then embed English sentences (GloVe's words after the first 100) in batches. */
async function measure(name: string) {
  const baseline = process.memoryUsage().rss;
  const started = performance.now();
  const embedder = await load(name);
  const loadMs = performance.now() - started;
  const rssAfterLoad = process.memoryUsage().rss;
  const words = (await loadStaticEmbedder()).table.words.slice(100, 20_100);
  const texts = [...sentences(name === 'minilm' ? Math.min(textCount, 2000) : textCount, 7, 20_000, words)];
  await embedInBatches(embedder, texts.slice(0, 50));
  const t0 = performance.now();
  await embedInBatches(embedder, texts);
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ name, id: `${embedder.provider}/${embedder.modelId}`, loadMs, baseline, rssAfterLoad, perSecond: texts.length / seconds, peakRss: process.resourceUsage().maxRSS * 1024 }));
}

function child(name: string, extra: string[] = []) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', name, '--texts', String(textCount), ...extra], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as { id: string; loadMs: number; baseline: number; rssAfterLoad: number; perSecond: number; peakRss: number };
}

if (values.child !== undefined) {
  await measure(values.child);
} else {
  console.log(`mnemo embedder benchmark: node ${process.version}, ${textCount} English sentences of 12-30 words (2,000 for MiniLM), each embedder in a fresh process`);
  console.log('| embedder | load ms | RSS after load MB (process baseline) | embeddings/s |');
  console.log('|---|---|---|---|');
  for (const name of values.embedders.split(',')) {
    if (name === 'minilm' && findModel(MINILM_MODEL, 'fp32', {}) === null && findModel(MINILM_MODEL, 'q8', {}) === null) {
      console.log(`| minilm | not measured: no ${MINILM_MODEL} in ${modelSearchPath({}).join(' or ')} | | |`);
      continue;
    }
    const r = child(name);
    console.log(`| ${r.id} | ${r.loadMs.toFixed(0)} | ${mb(r.rssAfterLoad)} (${mb(r.baseline)}) | ${r.perSecond.toFixed(0)} |`);
  }
  if (values.embedders.split(',').includes('static')) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'mnemo-bench-vectors-'));
    const cold = child('static', ['--cache-dir', cacheDir]);
    rmSync(cacheDir, { recursive: true, force: true });
    console.log(`\nFirst use of the static embedder (converting the 300 MB JSON into the compact file): ${(cold.loadMs / 1000).toFixed(1)} s, peak RSS ${mb(cold.peakRss)} MB.`);
  }
}
