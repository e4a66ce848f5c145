// The median and scaled median absolute deviation of an arm's scores: a z-score normaliser the tails do not move.
import { MnemoError } from '../core/errors.js';
import { ScoreStatistics } from './score-statistics.js';

/** How the semantic arm's scores are standardised for z-score fusion (see `QueryOptions.semanticNormaliser`). */
export const SEMANTIC_NORMALISERS = ['mean', 'median'] as const;
export type SemanticNormaliser = (typeof SEMANTIC_NORMALISERS)[number];

/** The median absolute deviation times this estimates a normal distribution's standard deviation. */
export const MAD_SCALE = 1.4826;

/**
 * Checks the semantic normaliser as a caller gives it (`'mean'` or `'median'`; null: `'mean'`; undefined:
 * `fallback`); a clear INVALID_INPUT for anything else.
 *
 * @example
 * ```ts
 * optionalSemanticNormaliser('median', 'mean'); // 'median'
 * optionalSemanticNormaliser(null, 'median'); // 'mean'
 * ```
 */
export function optionalSemanticNormaliser(value: unknown, fallback: SemanticNormaliser): SemanticNormaliser {
  if (value === null) return 'mean';
  if (value === undefined) return fallback;
  if (value !== 'mean' && value !== 'median') {
    throw new MnemoError('INVALID_INPUT', `semanticNormaliser: expected "mean" or "median" (or null), got ${JSON.stringify(value)}.`, { details: { field: 'semanticNormaliser' } });
  }
  return value;
}

/**
 * Every score added, kept, with `mean` the median and `deviation` the median absolute deviation times `MAD_SCALE`
 * (falling back to the standard deviation when more than half the scores are equal, so a deviation is 0 only when
 * every score is): a standardisation that a long tail of unrelated documents, or a cluster of near-duplicates,
 * does not shift. Exact (the middle order statistics, the mean of the two middle ones for an even count), found in

 * linear time (see `middle`), and reproducible: the same scores in any order give the same values. Totals a store adds to the
 * fields directly (`ScoreTotals`) carry no scores: the mean and standard deviation are then used.
 *
 * @example
 * ```ts
 * const statistics = new MedianStatistics();
 * for (const score of [1, 2, 3, 100]) statistics.add(score);
 * statistics.mean; // 2.5
 * statistics.deviation; // 1.4826 x median(|x - 2.5|) = 1.4826 x 1
 * ```
 */
export class MedianStatistics extends ScoreStatistics {
  private scores = new Float64Array(64);
  /** How many scores are kept (below `count` when totals were added straight to the fields, by a store: then the moments are used). */
  private kept = 0;
  private centre: { median: number; deviation: number } | null = null;

  override add(score: number, slot?: number): void {
    this.reserve(this.kept + 1);
    this.scores[this.kept++] = score;
    super.add(score, slot);
    this.centre = null;
  }

  override addMany(scores: Float64Array, slots: Int32Array | null, count: number): void {
    this.reserve(this.kept + count);
    this.scores.set(scores.subarray(0, count), this.kept);
    this.kept += count;
    super.addMany(scores, slots, count);
    this.centre = null;
  }

  override addSummed(scores: Float64Array, count: number, sum: number, sumOfSquares: number): void {
    this.reserve(this.kept + count);
    this.scores.set(scores.subarray(0, count), this.kept);
    this.kept += count;
    super.addSummed(scores, count, sum, sumOfSquares);
    this.centre = null;
  }

  /** The median score (0 when empty). */
  override get mean(): number {
    return this.robust().median;
  }

  /** The median absolute deviation times `MAD_SCALE` (the standard deviation when that is 0; 0 when empty or constant). */
  override get deviation(): number {
    return this.robust().deviation;
  }

  private reserve(needed: number): void {
    if (needed <= this.scores.length) return;
    const grown = new Float64Array(Math.max(needed, 2 * this.scores.length));
    grown.set(this.scores.subarray(0, this.kept));
    this.scores = grown;
  }

  private robust(): { median: number; deviation: number } {
    if (this.centre !== null) return this.centre;
    if (this.count === 0) return (this.centre = { median: 0, deviation: 0 });
    if (this.kept !== this.count) return (this.centre = { median: this.sum / this.count, deviation: this.momentDeviation() });
    const work = this.scores.subarray(0, this.kept);
    const median = middle(work);
    const deviations = new Float64Array(this.kept);
    for (let index = 0; index < work.length; index++) deviations[index] = Math.abs((work[index] as number) - median);
    const spread = MAD_SCALE * middle(deviations);
    this.centre = { median, deviation: spread > 0 ? spread : this.momentDeviation() };
    return this.centre;
  }

  /** The population standard deviation from the sums (the base class's, which would read the overridden mean). */
  private momentDeviation(): number {
    const mean = this.sum / this.count;
    return Math.sqrt(Math.max(0, this.sumOfSquares / this.count - mean * mean));
  }
}

/** How many buckets the median's histogram pass counts the values into. */
const BUCKETS = 4096;

/**
 * The median of `values` (the mean of the two middle values for an even count), exact: the values are counted
 * into `BUCKETS` equal buckets between their least and greatest, and only the buckets holding the middle ranks are
 * sorted. Three passes over the values and a sort of one bucket (the whole array only when nearly every value is
 * in one bucket); the values are not changed.
 *
 * @example
 * ```ts
 * middle(new Float64Array([5, 1, 4, 2])); // 3
 * ```
 */
export function middle(values: Float64Array): number {
  const count = values.length;
  if (count === 0) return 0;
  let least = Infinity;
  let greatest = -Infinity;
  for (let index = 0; index < count; index++) {
    const value = values[index] as number;
    if (value < least) least = value;
    if (value > greatest) greatest = value;
  }
  if (least === greatest) return least;
  const scale = (BUCKETS - 1) / (greatest - least);
  const counts = new Int32Array(BUCKETS);
  for (let index = 0; index < count; index++) {
    const bucket = (((values[index] as number) - least) * scale) | 0;
    counts[bucket] = (counts[bucket] as number) + 1;
  }
  const upper = count >> 1;
  const lower = count % 2 === 1 ? upper : upper - 1;
  // The buckets holding the two middle ranks (the same one for an odd count, most often for an even one).
  let first = 0;
  let before = 0;
  while (before + (counts[first] as number) <= lower) before += counts[first++] as number;
  let last = first;
  let through = before + (counts[first] as number);
  while (through <= upper) through += counts[++last] as number;
  const held = new Float64Array(through - before);
  let filled = 0;
  for (let index = 0; index < count; index++) {
    const value = values[index] as number;
    const bucket = ((value - least) * scale) | 0;
    if (bucket >= first && bucket <= last) held[filled++] = value;
  }
  held.sort();
  return ((held[lower - before] as number) + (held[upper - before] as number)) / 2;
}
