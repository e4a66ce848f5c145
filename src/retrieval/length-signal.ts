// The length signal: the fused head's chunks rescored by how much they say (the log of their indexed length), z-scored over the head.
import { optionalWeightAndHead } from './weight-and-head.js';

/** Length signal settings (see `QueryOptions.lengthSignal`). */
export interface LengthSignalOptions {
  /** What one standard deviation of log length (over the head) adds to a chunk's score. */
  weight: number;
  /** How many of the fused ranking's first candidates are rescored (a fixed number, so k does not change the order). */
  head: number;
}

/** The head when a caller gives only a weight. */
export const LENGTH_SIGNAL_HEAD = 50;
/** The longest head the length signal may rescore. */
export const MAX_LENGTH_SIGNAL_HEAD = 200;

/**
 * Checks length signal settings as a caller gives them (`{ weight, head? }`; null: off; undefined: `defaults`),
 * filling the head left out (50); a clear INVALID_INPUT for anything else. Weight 0 is off.
 *
 * @example
 * ```ts
 * optionalLengthSignal({ weight: 0.2 }, null); // { weight: 0.2, head: 50 }
 * ```
 */
export function optionalLengthSignal(value: unknown, defaults: LengthSignalOptions | null): LengthSignalOptions | undefined {
  return optionalWeightAndHead(value, defaults, { field: 'lengthSignal', defaultHead: LENGTH_SIGNAL_HEAD, maxHead: MAX_LENGTH_SIGNAL_HEAD });
}

/**
 * What the length signal adds to each chunk of a head, given their indexed lengths (terms after stop words):
 * `weight` x the z-score of log(1 + length) over the head; all 0 when every length is the same. A reply of a few
 * words ("Thanks, you too!") says less than a turn that tells what happened, and BM25's length normalisation
 * favours it when both hold a query word.
 *
 * @example
 * ```ts
 * lengthLifts([1, 1, 10, 10], 1); // [-1, -1, 1, 1]
 * ```
 */
export function lengthLifts(lengths: readonly number[], weight: number): Float64Array {
  const lifts = new Float64Array(lengths.length);
  if (lengths.length === 0) return lifts;
  const logs = lengths.map((length) => Math.log1p(Math.max(0, length)));
  const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
  const deviation = Math.sqrt(logs.reduce((sum, value) => sum + (value - mean) ** 2, 0) / logs.length);
  if (!(deviation > 1e-12)) return lifts;
  logs.forEach((value, place) => {
    lifts[place] = (weight * (value - mean)) / deviation;
  });
  return lifts;
}

/**
 * The length prior of one document: `weight` x (log(1 + length) - log(1 + averageLength)), lengths in index terms
 * (after stop words). It depends on the document and the corpus's mean length alone, so a query asked with any k or
 * cap scores a document the same. Positive for a document longer than the corpus's mean, negative for a shorter one.
 *
 * @example
 * ```ts
 * lengthPrior(20, 9, 1); // log(21 / 10), about 0.74
 * ```
 */
export function lengthPrior(length: number, averageLength: number, weight: number): number {
  return weight * (Math.log1p(Math.max(0, length)) - Math.log1p(Math.max(0, averageLength)));
}
