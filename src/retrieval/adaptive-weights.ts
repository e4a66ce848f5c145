// Query-adaptive arm weights: a query whose words the save barely holds leans on the semantic arm and soft matching.
import { MnemoError } from '../core/errors.js';
import type { Bm25Corpus, Bm25Index } from './bm25.js';

/** The widest adaptive weight a search may ask for (the semantic arm and soft matching at most 1 + this times their weight). */
export const MAX_ADAPTIVE_WEIGHT = 10;

/**
 * Checks the adaptive weight as a caller gives it (a number from 0 to MAX_ADAPTIVE_WEIGHT; null: off; undefined:
 * `fallback`); a clear INVALID_INPUT for anything else. 0 is off.
 *
 * @example
 * ```ts
 * optionalAdaptiveWeight(1, 0); // 1
 * optionalAdaptiveWeight(null, 1); // 0
 * ```
 */
export function optionalAdaptiveWeight(value: unknown, fallback: number): number {
  if (value === null) return 0;
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_ADAPTIVE_WEIGHT) {
    throw new MnemoError('INVALID_INPUT', `adaptiveWeights: expected a number from 0 to ${MAX_ADAPTIVE_WEIGHT} or null, got ${JSON.stringify(value)}. Pass null (or 0) to turn it off.`, {
      details: { field: 'adaptiveWeights' },
    });
  }
  return value;
}

/**
 * The lexical coverage of a query: the share of its terms' idf (in the save, or in `corpus`) carried by terms at
 * least one document holds; a term no document holds weighs the most an idf can (its document frequency 0). 1 when
 * every term matches somewhere (or there is no term): the lexical arm sees the whole query; near 0 when the
 * query's rarest words are absent: the lexical arm is left with its common ones.
 *
 * @example
 * ```ts
 * const index = buildBm25(['the lantern glows', 'a cold night']);
 * lexicalCoverage(index, ['lantern', 'ember']); // 0.5 (both would be as rare)
 * ```
 */
export function lexicalCoverage(bm25: Bm25Index, terms: readonly string[], corpus?: Bm25Corpus): number {
  // A term no document holds has document frequency 0, so the largest idf; any held term's is lower.
  const documents = corpus === undefined ? bm25.size : corpus.count;
  const absent = Math.log(1 + (documents + 0.5) / 0.5);
  let total = 0;
  let present = 0;
  for (const term of new Set(terms)) {
    const idf = bm25.idf(term, corpus);
    total += idf;
    if (idf < absent) present += idf;
  }
  return total === 0 ? 1 : present / total;
}

/**
 * What the semantic arm's and soft matching's weights are multiplied by: 1 + `weight` x (1 - coverage). 1 for a
 * query the save's words cover; up to 1 + `weight` for one whose words it holds none of.
 *
 * @example
 * ```ts
 * adaptiveFactor(1, 0.25); // 1.75
 * ```
 */
export function adaptiveFactor(weight: number, coverage: number): number {
  return 1 + weight * (1 - coverage);
}
