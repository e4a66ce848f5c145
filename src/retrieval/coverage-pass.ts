// The coverage pass: the query terms the fused head does not hold are searched again on their own, and what they find is fused in.
import { optionalWeightAndHead } from './weight-and-head.js';
import type { Bm25Corpus, Bm25Index } from './bm25.js';

/** Coverage pass settings (see `QueryOptions.coveragePass`). */
export interface CoveragePassOptions {
  /** The second pass's arm weight, times the share of the query's idf its terms carry. */
  weight: number;
  /** How many of the first fused candidates must hold a term for it to count as covered. */
  head: number;
}

/** The head when a caller gives only a weight. */
export const COVERAGE_PASS_HEAD = 10;
/** The longest head a coverage pass may read (head x terms lookups). */
export const MAX_COVERAGE_PASS_HEAD = 200;

/**
 * Checks coverage pass settings as a caller gives them (`{ weight, head? }`; null: off; undefined: `defaults`),
 * filling the head left out (10); a clear INVALID_INPUT for anything else. Weight 0 is off.
 *
 * @example
 * ```ts
 * optionalCoveragePass({ weight: 1 }, null); // { weight: 1, head: 10 }
 * ```
 */
export function optionalCoveragePass(value: unknown, defaults: CoveragePassOptions | null): CoveragePassOptions | undefined {
  return optionalWeightAndHead(value, defaults, { field: 'coveragePass', defaultHead: COVERAGE_PASS_HEAD, maxHead: MAX_COVERAGE_PASS_HEAD });
}

/** The query terms a fused head leaves uncovered, and the share of the query's idf they carry. */
export interface UncoveredTerms {
  /** In query order, each once. */
  terms: string[];
  /** Their idf over the idf of every query term the save holds (0 to 1). */
  share: number;
}

/**
 * The query's terms that some document of the save holds but none of the `head` slots does (a term named in
 * `ignore`, such as a speaker's name, is neither counted nor returned), with the share of the query's idf they
 * carry. A question about two things whose first pass found one leaves the other's words uncovered.
 *
 * @example
 * ```ts
 * const bm25 = buildBm25(['the lantern glows', 'the bridge fell', 'a cold night']);
 * uncoveredTerms(bm25, ['lantern', 'bridge'], [0]); // { terms: ['bridge'], share: 0.5 }
 * ```
 */
export function uncoveredTerms(bm25: Bm25Index, terms: readonly string[], head: readonly number[], ignore: ReadonlySet<string> = new Set(), corpus?: Bm25Corpus): UncoveredTerms {
  const documents = corpus === undefined ? bm25.size : corpus.count;
  const absent = Math.log(1 + (documents + 0.5) / 0.5);
  const uncovered: string[] = [];
  let total = 0;
  let missing = 0;
  for (const term of new Set(terms)) {
    if (ignore.has(term)) continue;
    const idf = bm25.idf(term, corpus);
    // A term no document holds cannot be found by searching again.
    if (!(idf < absent)) continue;
    total += idf;
    if (head.some((slot) => bm25.scoreOf([term], slot, undefined, corpus) > 0)) continue;
    uncovered.push(term);
    missing += idf;
  }
  return { terms: uncovered, share: total === 0 ? 0 : missing / total };
}
