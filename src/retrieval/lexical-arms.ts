// The lexical arm and the window arm of a search, standardised over their head: both pruned by bounds (BM25 by block bounds on a large save) or, uncapped, exhaustive.
import { HEAD_SEARCH_SLOTS } from './block-bounds.js';
import type { Bm25Corpus, Bm25Index, ScoresInspector } from './bm25.js';
import type { QueryFeedback } from './corpus-index.js';
import { ScoreStatistics } from './score-statistics.js';
import { exhaustiveWindows, LexicalMatches, prunedWindows } from './window-sum.js';
import type { SlotOrder, WindowArm, WindowSumOptions } from './window-sum.js';

/**
 * How many of an arm's best scores its z-score statistics are taken over (all of them when it has fewer): the
 * lexical and window arms are standardised over their head, not over every match, so that a query need not score
 * every match (docs/retrieval-quality.md). A constant, not the cap: k changes no score.
 */
export const STATISTICS_HEAD = 100;

/** From this many slots on, an unfiltered search over a dense order takes the head search (see block-bounds.ts). */
export { HEAD_SEARCH_SLOTS };

/** What the lexical arms of one search need. */
export interface LexicalArmsInput {
  bm25: Bm25Index;
  /** The corpus's order of live documents (for the window arm). */
  order: SlotOrder;
  /** The analyzed query (terms in query order). */
  terms: readonly string[];
  /** How many results each arm returns. */
  limit: number;
  /** Applied before ranking: a refused slot is never a candidate, scores nothing and is scored by no window. */
  accept?: (slot: number) => boolean;
  /** The statistics BM25 scores with (`Bm25Index.corpusWithin`), the live corpus's when absent. */
  corpus?: Bm25Corpus;
  /** Pseudo-relevance feedback (off when absent). */
  feedback?: QueryFeedback;
  /** The window arm (absent: not run). */
  window?: WindowSumOptions;
  /** False: score every match (the reference the pruned arms give exactly; tests and measurements). Default true. */
  prune?: boolean;
  /** The slot count from which the BM25 pass skips blocks (`HEAD_SEARCH_SLOTS`; tests set 0). */
  headSearchSlots?: number;
  /** Scales a head search's block bounds (1; tests set one below 1, a wrong bound, to show the bounds are checked). */
  boundScale?: { peaks: number; windows: number };
}

/** The lexical arm (and the window arm when asked for) of one search. */
export interface LexicalArms {
  /** The query's terms (with feedback: the expanded query, the original terms first). */
  terms: string[];
  /** Each term's weight (with feedback; absent without). */
  weights: Map<string, number> | undefined;
  /** The best `limit` accepted matches, best first (ties: lower slot first). */
  results: { slot: number; score: number }[];
  /** The mean and deviation of the best `STATISTICS_HEAD` scores, added best first. */
  statistics: ScoreStatistics;
  /** The window arm: its best `limit` windows, their statistics (over its head) and any slot's window sum. */
  window?: WindowArm & { statistics: ScoreStatistics };
}

/** The statistics of a ranked list's first `STATISTICS_HEAD` scores, added best first. */
function headStatistics(ranked: readonly { score: number }[]): ScoreStatistics {
  const statistics = new ScoreStatistics();
  for (let index = 0; index < Math.min(STATISTICS_HEAD, ranked.length); index++) statistics.add((ranked[index] as { score: number }).score);
  return statistics;
}

/**
 * Runs the lexical arm (BM25, with feedback when asked) and the window arm over `bm25`. Both are standardised
 * over their best `STATISTICS_HEAD` scores, so each returns its best max(limit, STATISTICS_HEAD) exactly and
 * nothing below: the BM25 pass scores every match once (on a save of `HEAD_SEARCH_SLOTS` or more, unfiltered and
 * with no removal, only the blocks of 16 slots whose bounds reach the heads: `Bm25Index.searchHead`), and the
 * window arm sums exactly only the windows an upper bound lets reach the head (see `prunedWindows`). The scores are
 * the doubles scoring every match gives (`prune: false`, used when the arms are uncapped). Same input, same output.
 *
 * @example
 * ```ts
 * const arms = lexicalArms({ bm25: index.bm25, order: index.order, terms: index.analyze('the lantern'), limit: 50, window: { reach: 2, weight: 1 } });
 * arms.results; // the 50 best matches
 * arms.window?.release();
 * ```
 */
export function lexicalArms(input: LexicalArmsInput): LexicalArms {
  const { bm25, accept, corpus, feedback, window } = input;
  const head = Math.max(input.limit, STATISTICS_HEAD);
  const unique = [...new Set(input.terms)];
  if (input.prune === false || window === undefined || head >= bm25.slots || bm25.size === 0 || input.limit <= 0) return exhaustiveArms(input, head, unique);
  let windows: WindowArm | undefined;
  // While the index still holds the scores: the window arm's head, from the lexical arm's.
  const inspect: ScoresInspector = (ranked, dense, weights, blocks) => {
    const score = bm25.slotScorer(weights === undefined ? unique : [...weights.keys()], weights, corpus);
    windows = prunedWindows(dense, score, ranked, input.order, window.reach, head, bm25.slotArrays.alive, accept, blocks);
  };
  if (accept === undefined && corpus === undefined && input.order.dense === true && bm25.slots >= (input.headSearchSlots ?? HEAD_SEARCH_SLOTS) && bm25.headReady(unique, window.reach)) {
    // Unfiltered, in counting order, large, its common terms asked for before: the BM25 pass scores only the blocks that can reach the heads.
    const found = bm25.searchHead(unique, head, feedback, window.reach, inspect, input.boundScale);
    const arms: LexicalArms = {
      terms: found.weights === undefined ? [...input.terms] : [...found.weights.keys()],
      weights: found.weights,
      results: found.results.slice(0, input.limit),
      statistics: headStatistics(found.results),
    };
    if (windows !== undefined) arms.window = { ...windows, results: windows.results.slice(0, input.limit), statistics: headStatistics(windows.results) };
    return arms;
  }
  const { terms, weights, ranked } =
    feedback === undefined
      ? { terms: [...input.terms], weights: undefined, ranked: bm25.search(unique, head, accept, undefined, undefined, corpus, inspect) }
      : (() => {
          const found = bm25.searchWithFeedback(unique, head, feedback, accept, undefined, corpus, inspect);
          return { terms: [...found.weights.keys()], weights: found.weights, ranked: found.results };
        })();
  const arms: LexicalArms = { terms, weights, results: ranked.slice(0, input.limit), statistics: headStatistics(ranked) };
  if (windows !== undefined) arms.window = { ...windows, results: windows.results.slice(0, input.limit), statistics: headStatistics(windows.results) };
  return arms;
}

/** The arms from every match (`Bm25Index.search`, `windowSums`): what the pruned arms give, at a cost in matches. */
function exhaustiveArms(input: LexicalArmsInput, head: number, unique: readonly string[]): LexicalArms {
  const { bm25, accept, corpus, feedback, window } = input;
  const matches = window === undefined ? undefined : new LexicalMatches();
  const wanted = input.limit <= 0 ? 0 : head;
  const { terms, weights, ranked } =
    feedback === undefined
      ? { terms: [...input.terms], weights: undefined, ranked: bm25.search(unique, wanted, accept, undefined, matches, corpus) }
      : (() => {
          const found = bm25.searchWithFeedback(unique, wanted, feedback, accept, matches, corpus);
          return { terms: [...found.weights.keys()], weights: found.weights, ranked: found.results };
        })();
  const limit = Math.max(0, input.limit);
  const arms: LexicalArms = { terms, weights, results: ranked.slice(0, limit), statistics: headStatistics(ranked) };
  if (window !== undefined && matches !== undefined) {
    const windows = exhaustiveWindows(matches, input.order, window.reach, head, bm25.slots, accept);
    matches.release();
    arms.window = { ...windows, results: windows.results.slice(0, limit), statistics: headStatistics(windows.results) };
  }
  return arms;
}
