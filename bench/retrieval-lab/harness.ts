// Research harness (not shipped): exhaustive hybrid scoring of each LoCoMo conversation, techniques switched by -t, both halves reported.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchArgs } from '../bench-args.js';
import stopwordPackage from 'stopword';
import { readDataset } from '../../src/eval/index.js';
import type { EvaluationQuestion, EvaluationTurn } from '../../src/eval/index.js';
import { documentText } from '../../src/eval/document-text.js';
import { MetricsAccumulator } from '../../src/eval/metrics.js';
import { loadStaticEmbedder, rankProbabilities, sentenceVector, sifWeights } from '../../src/embedders/static/index.js';
import type { StaticEmbedder } from '../../src/embedders/static/index.js';
import { decodeWordVectorFile } from '../../src/embedders/static/word-vector-file.js';
import { lookupRow } from '../../src/embedders/static/word-lookup.js';
import { tokenize } from '../../src/retrieval/tokenize.js';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { CorpusIndex } from '../../src/retrieval/corpus-index.js';
import type { Analyzer } from '../../src/retrieval/corpus-index.js';
import { createAnalyzer } from '../../src/retrieval/analyzer.js';
import { hybridSearch } from '../../src/retrieval/hybrid-search.js';
import { DEFAULT_FEEDBACK } from '../../src/retrieval/retrieval-defaults.js';
import { ScoreStatistics } from '../../src/retrieval/score-statistics.js';

const { values } = benchArgs(import.meta.url, { options: { t: { type: 'string', default: '' }, pipeline: { type: 'boolean' }, vectors: { type: 'string' }, dump: { type: 'string' }, proto: { type: 'string', default: 'both' }, data: { type: 'string' } } });
// The data is read at run time, never copied (CC BY-NC).
const data = resolve(values.data ?? [join('..', 'shared', 'bench', 'locomo'), '/work/shared/bench/locomo'].find((path) => existsSync(path)) ?? '../shared/bench/locomo');
const dataset = readDataset(join(data, 'locomo.turns.jsonl'), join(data, 'locomo.qa.jsonl'));
// Tune on half A (the first five conversations in id order), confirm on half B.
const convs = [...dataset.conversations.keys()].sort();
const HALF_A = new Set(convs.slice(0, 5));
export const techniques = new Map<string, number>();
for (const part of (values.t ?? '').split(',').filter(Boolean)) {
  const [name, value] = part.split('=');
  techniques.set(name as string, value === undefined ? 1 : Number(value));
}
const T = (name: string) => techniques.get(name);

/** The static embedder over another compact table (`--vectors FILE`, e.g. bench/retrieval-lab/retrofit.ts's), with the default's SIF weights. */
function staticEmbedderOf(file: string): StaticEmbedder {
  const { table } = decodeWordVectorFile(readFileSync(file));
  const weights = sifWeights(rankProbabilities().forTable(table));
  const rowsOf = (text: string) => tokenize(text).map((token) => lookupRow(table, token)).filter((row) => row >= 0);
  return { provider: 'static', modelId: table.source, dimensions: table.dimensions, maxBatchSize: 4096, cacheable: false, table, file, rowsOf, embed: async (texts) => texts.map((text) => sentenceVector(table, rowsOf(text), weights, null)) };
}
export const embedder = values.vectors === undefined ? await loadStaticEmbedder() : staticEmbedderOf(values.vectors);

export interface Corpus {
  conv: string;
  turns: EvaluationTurn[];
  texts: string[];
  index: CorpusIndex;
  vectors: (Float32Array | null)[];
  analyzer: Analyzer;
  extra: Map<string, unknown>;
}

type Hook = (corpus: Corpus, question: EvaluationQuestion, queryText: string, queryVector: Float32Array | null, fused: Float64Array, arms: { lex: Float64Array; sem: Float64Array }) => void | Promise<void>;
export const hooks: { name: string; prepare?: (corpus: Corpus) => void | Promise<void>; rewrite?: (text: string, corpus: Corpus) => string; score?: Hook }[] = [];

function zscore(values: Float64Array, mask: (i: number) => boolean): Float64Array {
  const stats = new ScoreStatistics();
  for (let i = 0; i < values.length; i++) if (mask(i)) stats.add(values[i] as number);
  const out = new Float64Array(values.length);
  const sd = stats.count > 0 ? stats.deviation || 1 : 1;
  const mean = stats.count > 0 ? stats.mean : 0;
  for (let i = 0; i < values.length; i++) out[i] = ((values[i] as number) - mean) / sd;
  return out;
}
export { zscore };

/** CPU milliseconds spent in each hook's score step, over the whole run (printed per query at the end). */
const hookCpu = new Map<string, number>();

async function buildCorpus(conv: string, doc: 'text' | 'full'): Promise<Corpus> {
  const turns = dataset.conversations.get(conv) ?? [];
  const texts = turns.map((turn) => documentText(turn, doc));
  const analyzer = T('stop') === undefined ? createAnalyzer() : createAnalyzer({ stopWords: T('stop') === 2 ? stopwordPackage.eng : T('stop') === 0 ? false : true });
  const index = new CorpusIndex(0, { analyzer, neighbourWeight: T('nw') ?? 0.5 });
  const indexTexts = T('pronoun') !== undefined ? turns.map((turn, i) => pronounRewrite(texts[i] as string, turn, turns)) : texts;
  const vectors = await embedder.embed(indexTexts);
  const clean = vectors.map((vector) => (vector.some((x) => x !== 0) ? vector : null));
  index.add(turns.map((turn, slot) => ({ id: turn.id, turnId: turn.turn, chunkType: 'narrative', text: indexTexts[slot] as string, embedding: clean[slot] ?? null })));
  const corpus: Corpus = { conv, turns, texts, index, vectors: clean, analyzer, extra: new Map() };
  for (const hook of hooks) await hook.prepare?.(corpus);
  return corpus;
}

function pronounRewrite(text: string, turn: EvaluationTurn, turns: EvaluationTurn[]): string {
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  const other = speakers.find((s) => s !== turn.speaker) ?? '';
  return text
    .replace(/\b(I|me|my|mine|myself)\b/g, turn.speaker ?? '$1')
    .replace(/\b(you|your|yours|yourself)\b/gi, other);
}

async function rankExhaustive(corpus: Corpus, question: EvaluationQuestion): Promise<string[]> {
  let queryText = question.question;
  for (const hook of hooks) if (hook.rewrite) queryText = hook.rewrite(queryText, corpus);
  const { index } = corpus;
  const n = corpus.turns.length;
  const terms = index.analyze(queryText);
  const feedback = T('nofb') ? { documents: 0, terms: 0, weight: 0 } : DEFAULT_FEEDBACK;
  const stats = new ScoreStatistics();
  let { weights, terms: expanded } = index.lexicalWithFeedback(terms, n, T('iter') ? { documents: 0, terms: 0, weight: 0 } : feedback, undefined, stats);
  const [qv] = await embedder.embed([queryText]);
  const queryVector = qv !== undefined && qv.some((x) => x !== 0) ? qv : null;
  const sem = new Float64Array(n);
  if (queryVector !== null) for (let i = 0; i < n; i++) sem[i] = index.semanticScoreOf(queryVector, i) ?? 0;
  const zs = zscore(sem, (i) => corpus.vectors[i] !== null);
  const wl = T('wl') ?? 1;
  const ws = queryVector === null ? 0 : (T('ws') ?? 1);
  let fused = new Float64Array(n);
  for (let pass = 0; pass < (T('iter') ? 2 : 1); pass++) {
    if (pass === 1) {
      // Iterative retrieval: the feedback terms come from the fused top (every arm), not the lexical top.
      const top = [...fused.keys()].sort((a, b) => (fused[b] as number) - (fused[a] as number) || a - b).slice(0, feedback.documents);
      weights = new Map(terms.map((term) => [term, 1]));
      for (const [term, weight] of index.bm25.expansionWeights(top, new Set(terms), feedback)) weights.set(term, weight);
      expanded = [...weights.keys()];
    }
    const lex = new Float64Array(n);
    for (let i = 0; i < n; i++) lex[i] = index.bm25.scoreOf(expanded, i, weights);
    corpus.extra.set('rawlex', lex);
    const zl = zscore(lex, (i) => (lex[i] as number) > 0);
    fused = new Float64Array(n);
    for (let i = 0; i < n; i++) fused[i] = wl * (zl[i] as number) + ws * (zs[i] as number);
    for (const hook of hooks) {
      if (hook.score === undefined) continue;
      const before = process.cpuUsage();
      await hook.score(corpus, question, queryText, queryVector, fused, { lex: zl, sem: zs });
      const used = process.cpuUsage(before);
      hookCpu.set(hook.name, (hookCpu.get(hook.name) ?? 0) + (used.user + used.system) / 1000);
    }
  }
  let order = [...fused.keys()].sort((a, b) => (fused[b] as number) - (fused[a] as number) || a - b);
  const decl = T('decl');
  if (decl !== undefined) {
    // De-clustering: each pick lowers the turns within +-reach of it, so the top k spreads over more places.
    const reach = T('reach') ?? 2;
    const pool = order.slice(0, 200);
    const score = new Map(pool.map((i) => [i, fused[i] as number]));
    const picked: number[] = [];
    while (picked.length < 100 && score.size > 0) {
      let best = -1;
      let bestScore = -Infinity;
      for (const [i, value] of score) if (value > bestScore || (value === bestScore && i < best)) { best = i; bestScore = value; }
      picked.push(best);
      score.delete(best);
      for (let d = -reach; d <= reach; d++) if (score.has(best + d)) score.set(best + d, (score.get(best + d) as number) - decl);
    }
    order = picked;
  }
  return order.slice(0, 100).map((i) => corpus.turns[i]?.id as string);
}

async function rankPipeline(corpus: Corpus, question: EvaluationQuestion): Promise<string[]> {
  const [qv] = await embedder.embed([question.question]);
  const queryVector = qv !== undefined && qv.some((x) => x !== 0) ? qv : null;
  const ranked = await hybridSearch({ index: corpus.index, queryText: question.question, queryVector, k: 100, capPerSource: 500, fusion: 'zscore', feedback: DEFAULT_FEEDBACK, loadTexts: async () => new Map() });
  return ranked.map((hit) => hit.id).map((id) => id);
}

export async function run(): Promise<void> {
  const protocols = [
    { name: 'default', doc: 'text' as const, adv: false, ks: [5, 10, 20] },
    { name: 'paper', doc: 'full' as const, adv: true, ks: [5, 10, 25, 50] },
  ].filter((p) => values.proto === 'both' || values.proto === p.name);
  const started = performance.now();
  let queries = 0;
  let queryMs = 0;
  const summary: string[] = [];
  // --dump FILE: each question's R@10 per protocol, one JSON line each, to see which questions a technique flips.
  if (values.dump !== undefined) writeFileSync(values.dump, '');
  for (const protocol of protocols) {
    const halves = { A: new MetricsAccumulator(protocol.ks), B: new MetricsAccumulator(protocol.ks), all: new MetricsAccumulator(protocol.ks) };
    for (const conv of convs) {
      const corpus = await buildCorpus(conv, protocol.doc);
      for (const question of dataset.questions) {
        if (question.conv !== conv || question.evidence.length === 0 || (!protocol.adv && question.category === 5)) continue;
        const t0 = performance.now();
        const ranked = values.pipeline ? await rankPipeline(corpus, question) : await rankExhaustive(corpus, question);
        queryMs += performance.now() - t0;
        queries++;
        // hybridSearch returns chunk ids = turn ids here.
        if (values.dump !== undefined) appendFileSync(values.dump, JSON.stringify({ protocol: protocol.name, qid: question.qid, conv, category: question.category, r10: question.evidence.filter((id) => ranked.slice(0, 10).includes(id)).length / question.evidence.length }) + '\n');
        for (const acc of [HALF_A.has(conv) ? halves.A : halves.B, halves.all]) acc.add(question.category, question.category_name, ranked, question.evidence);
      }
    }
    for (const [half, acc] of Object.entries(halves)) {
      const result = acc.result();
      const cell = (row: (typeof result.categories)[number]) => protocol.ks.map((k) => (100 * (row.recall[k] ?? 0)).toFixed(1)).join('/');
      const line = `${protocol.name.padEnd(7)} ${half.padEnd(3)} ` + result.categories.map((row) => `${row.key}:${cell(row)}`).join('  ');
      summary.push(line);
    }
  }
  console.log(`techniques: ${values.t || '(baseline)'}${values.vectors === undefined ? '' : `+vectors=${embedder.modelId}`}  ${((performance.now() - started) / 1000).toFixed(1)} s, ${(queryMs / queries).toFixed(2)} ms/query`);
  console.log(`hook CPU ms/query: ${[...hookCpu].map(([name, ms]) => `${name} ${(ms / queries).toFixed(2)}`).join(', ')}`);
  for (const line of summary) console.log(line);
}
