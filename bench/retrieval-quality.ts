// Retrieval quality on LoCoMo for every configuration in docs/retrieval-quality.md, printed as a markdown table.
// Usage: npm run bench:quality [-- --data ../shared/bench/locomo]  (the data is read at run time, never copied)
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { silentLogger } from '../src/core/logger.js';
import type { QueryOptions } from '../src/core/types.js';
import { readDataset, runEvaluation } from '../src/eval/index.js';
import type { DocumentMode } from '../src/eval/index.js';
import { openMemory } from '../src/open-memory.js';
import type { OpenMemoryOptions } from '../src/open-memory.js';

const { values } = parseArgs({ options: { data: { type: 'string' }, only: { type: 'string' } } });
const data = resolve(values.data ?? [join('..', 'shared', 'bench', 'locomo'), '/work/shared/bench/locomo'].find((path) => existsSync(path)) ?? '../shared/bench/locomo');
const dataset = readDataset(join(data, 'locomo.turns.jsonl'), join(data, 'locomo.qa.jsonl'));

interface Configuration {
  name: string;
  command: string;
  open: Partial<OpenMemoryOptions> & { embedderName: string };
  query: Omit<QueryOptions, 'k'>;
}

const words = { fusion: 'zscore', feedback: null } as const;
const CONFIGURATIONS: Configuration[] = [
  { name: 'BM25, no stemming (the scorer baseline)', command: '--embedder none eval --language none', open: { embedderName: 'none', analyzer: { language: 'none' } }, query: { feedback: null } },
  { name: 'BM25, English stems + stop words', command: '--embedder none eval', open: { embedderName: 'none' }, query: { feedback: null } },
  { name: 'BM25 + pseudo-relevance feedback (3, 5, 0.5)', command: '--embedder none eval', open: { embedderName: 'none' }, query: {} },
  { name: 'static embedder alone (SIF, GloVe rank p(w))', command: '--embedder static eval --lexical-weight 0 --neighbour-weight 0', open: { embedderName: 'static', neighbourWeight: 0 }, query: { ...words, weights: { lexical: 0 } } },
  { name: 'static + BM25, RRF (the seed\'s fusion)', command: '--embedder static eval --fusion rrf --neighbour-weight 0', open: { embedderName: 'static', neighbourWeight: 0 }, query: { fusion: 'rrf', feedback: null } },
  { name: 'static + BM25, RRF, neighbour context 0.5, feedback', command: '--embedder static eval --fusion rrf', open: { embedderName: 'static' }, query: { fusion: 'rrf' } },
  { name: 'static + BM25, z-score fusion', command: '--embedder static eval --neighbour-weight 0', open: { embedderName: 'static', neighbourWeight: 0 }, query: words },
  { name: 'static + BM25, z-score, neighbour context 0.5', command: '--embedder static eval', open: { embedderName: 'static' }, query: words },
  { name: '**default**: static + BM25, z-score, neighbour 0.5, feedback (3, 5, 0.5)', command: 'eval', open: { embedderName: 'static' }, query: {} },
  { name: 'hashing embedder (no meaning) + BM25, defaults', command: '--embedder hashing eval', open: { embedderName: 'hashing' }, query: {} },
];

async function measure(configuration: Configuration, doc: DocumentMode, includeAdversarial: boolean, ks: number[]) {
  const { embedderName, ...open } = configuration.open;
  const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: embedderName as 'static' | 'hashing' | 'none', ...open });
  try {
    const result = await runEvaluation(memory, dataset, { doc, includeAdversarial, ks, query: configuration.query });
    const overall = result.metrics.categories.find((row) => row.key === 'all');
    const latencies = [...result.latencies].sort((a, b) => a - b);
    return { recall: ks.map((k) => (100 * (overall?.recall[k] ?? 0)).toFixed(1)), p50: latencies[Math.floor(latencies.length / 2)] ?? 0, metrics: result.metrics };
  } finally {
    await memory.close();
  }
}

console.log(`LoCoMo (${data}): ${dataset.questions.length} questions, ${dataset.conversations.size} conversations; node ${process.version}`);
console.log('| configuration | default R@5 / 10 / 20 | paper R@5 / 10 / 25 / 50 | query p50 ms | reproduce |');
console.log('|---|---|---|---|---|');
for (const configuration of CONFIGURATIONS) {
  if (values.only !== undefined && !configuration.name.includes(values.only)) continue;
  const standard = await measure(configuration, 'text', false, [5, 10, 20]);
  const paper = await measure(configuration, 'full', true, [5, 10, 25, 50]);
  console.log(`| ${configuration.name} | ${standard.recall.join(' / ')} | ${paper.recall.join(' / ')} | ${paper.p50.toFixed(2)} | \`mnemo ${configuration.command}\` |`);
  if (configuration.name.startsWith('**default**')) {
    for (const [label, result] of [['default protocol', standard], ['paper protocol', paper]] as const) {
      console.log(`\nper category, ${label} (${configuration.name.replace(/\*/g, '')}):`);
      for (const row of result.metrics.categories) console.log(`  ${row.label.padEnd(16)} n=${String(row.n).padStart(4)}  ${result.metrics.ks.map((k) => `R@${k} ${(100 * (row.recall[k] ?? 0)).toFixed(1)}`).join('  ')}`);
    }
    console.log('');
  }
}
