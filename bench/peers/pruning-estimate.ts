// How much of a lexical query pruning would score, if the lexical and window arms were standardised over their best H scores.
// Run: node --import tsx bench/peers/pruning-estimate.ts [--size 100000] [--queries 30] [--head 100]
// Builds BM25 over the synthetic corpus (the English analyzer, as a save), then for each benchmark query (with
// pseudo-relevance feedback, as the narrative default) counts: the matches (what the exhaustive query scores);
// the documents in the postings MaxScore would still walk once the H-th best lexical score is the threshold (the
// essential lists: terms whose bounds sum past it); the same for the window arm's bound (a window above the H-th
// best window sum W_H has a match scoring at least W_H / (2 x reach + 1)). Counts, not times: a lower bound on the
// work left, to weigh the pruning before writing it (docs/retrieval-quality.md). Then the CPU time per query of
// the arms as a search runs them (`lexicalArms`): the window arm bounded by its best match, and summing every
// window (both with the statistics over the head), alternating in one process.
import { benchArgs } from '../bench-args.js';
import { createAnalyzer } from '../../src/retrieval/analyzer.js';
import { Bm25Index } from '../../src/retrieval/bm25.js';
import { lexicalArms } from '../../src/retrieval/lexical-arms.js';
import { DEFAULT_FEEDBACK, DEFAULT_WINDOW_SUM } from '../../src/retrieval/retrieval-defaults.js';
import { syntheticQueries, syntheticTexts } from './corpus.js';

const { values } = benchArgs(import.meta.url, { options: { size: { type: 'string', default: '100000' }, queries: { type: 'string', default: '30' }, head: { type: 'string', default: '100' } } });
const size = Number(values.size);
const head = Number(values.head);
const reach = DEFAULT_WINDOW_SUM.reach;
const analyzer = createAnalyzer();
const index = new Bm25Index();
for (const text of await syntheticTexts(size)) index.addTokens(analyzer(text));
const { k1, b } = index.parameters;

/** A term's postings, copied out once. */
const postings = new Map<string, number[][]>();
function postingsOf(term: string): number[][] {
  let found = postings.get(term);
  if (found === undefined) {
    found = [];
    index.forEachPosting(term, (slot, frequency) => (found as number[][]).push([slot, frequency]));
    postings.set(term, found);
  }
  return found;
}

/** Each term's largest contribution (its MaxScore bound), smallest first. */
function bounds(weights: ReadonlyMap<string, number>): { term: string; bound: number }[] {
  return [...weights]
    .map(([term, weight]) => {
      const idf = index.idf(term);
      let bound = 0;
      for (const [slot, frequency] of postingsOf(term)) {
        const norm = k1 * (1 - b + (b * index.lengthOf(slot as number)) / index.averageLength);
        bound = Math.max(bound, (weight * idf * (frequency as number) * (k1 + 1)) / ((frequency as number) + norm));
      }
      return { term, bound };
    })
    .sort((x, y) => x.bound - y.bound);
}

/** The documents in the essential lists for `threshold`: the terms left once the smallest bounds summing below it are set aside. */
function essentialDocuments(sorted: { term: string; bound: number }[], threshold: number): number {
  let sum = 0;
  let cut = 0;
  while (cut < sorted.length && sum + (sorted[cut] as { bound: number }).bound < threshold) sum += (sorted[cut++] as { bound: number }).bound;
  const seen = new Set<number>();
  for (const { term } of sorted.slice(cut)) for (const [slot] of postingsOf(term)) seen.add(slot as number);
  return seen.size;
}

const rows: number[][] = [];
const queries = await syntheticQueries(Number(values.queries));
for (const query of queries) {
  const terms = [...new Set(analyzer(query))];
  const { weights } = index.searchWithFeedback(terms, head, DEFAULT_FEEDBACK);
  const exact = index.search([...weights.keys()], size, undefined, weights);
  const scores = new Float64Array(size);
  for (const { slot, score } of exact) scores[slot] = score;
  const windows = new Float64Array(size);
  for (let slot = 0; slot < size; slot++) {
    for (let other = Math.max(0, slot - reach); other <= Math.min(size - 1, slot + reach); other++) windows[slot] = (windows[slot] as number) + (scores[other] as number);
  }
  const windowHead = Float64Array.from(windows).sort().reverse()[head - 1] ?? 0;
  const sorted = bounds(weights);
  rows.push([exact.length, essentialDocuments(sorted, exact[head - 1]?.score ?? 0), essentialDocuments(sorted, windowHead / (2 * reach + 1))]);
}
const median = (column: number) => rows.map((row) => row[column] as number).sort((x, y) => x - y)[Math.floor(rows.length / 2)] as number;
const total = (column: number) => rows.reduce((sum, row) => sum + (row[column] as number), 0);
console.log(`${size} chunks, ${rows.length} queries, head ${head}: matches median ${median(0)} (total ${total(0)}); lexical arm's essential postings median ${median(1)} (total ${total(1)}); window bound's median ${median(2)} (total ${total(2)})`);

// The arms as a lexical-only search runs them (cap 50, feedback and window sum on), pruned and exhaustive.
const order = { previous: Int32Array.from({ length: size }, (_, slot) => slot - 1), next: Int32Array.from({ length: size }, (_, slot) => (slot + 1 < size ? slot + 1 : -1)), dense: true };
const cpu = { pruned: 0, exhaustive: 0 };
for (let round = 0; round < 2; round++) {
  for (const query of queries) {
    const input = { bm25: index, order, terms: analyzer(query), limit: 50, feedback: DEFAULT_FEEDBACK, window: DEFAULT_WINDOW_SUM };
    for (const prune of [true, false]) {
      const started = process.cpuUsage();
      lexicalArms({ ...input, prune }).window?.release();
      const used = process.cpuUsage(started);
      if (round === 1) cpu[prune ? 'pruned' : 'exhaustive'] += (used.user + used.system) / 1000;
    }
  }
}
console.log(`lexicalArms (cap 50, feedback, window sum), second round: CPU per query ${(cpu.pruned / queries.length).toFixed(2)} ms with the window bound, ${(cpu.exhaustive / queries.length).toFixed(2)} ms summing every window`);
