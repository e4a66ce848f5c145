// The mean and deviation of an arm's scores over every document it scored, for z-score fusion.

/** Receives every score an arm gives, with the slot it scored (the lexical arm's matches, for window sums). */
export interface ScoreSink {
  add(score: number, slot: number): void;
  /** `add(scores[index], slots[index])` for each index below `count`, in order (one call for a whole arm's scores). */
  addMany(scores: Float64Array, slots: Int32Array | null, count: number): void;
}

/**
 * Count, sum and sum of squares of scores, added one at a time in a fixed order (so the result is reproducible).
 *
 * @example
 * ```ts
 * const statistics = new ScoreStatistics();
 * for (const score of [1, 2, 3]) statistics.add(score);
 * statistics.mean; // 2
 * ```
 */
export class ScoreStatistics implements ScoreSink {
  count = 0;
  sum = 0;
  sumOfSquares = 0;

  add(score: number, _slot?: number): void {
    this.count++;
    this.sum += score;
    this.sumOfSquares += score * score;
  }

  /** `add` of the first `count` scores, in order: the same sums, without a call per score. */
  addMany(scores: Float64Array, _slots: Int32Array | null, count: number): void {
    let sum = this.sum;
    let sumOfSquares = this.sumOfSquares;
    for (let index = 0; index < count; index++) {
      const score = scores[index] as number;
      sum += score;
      sumOfSquares += score * score;
    }
    this.count += count;
    this.sum = sum;
    this.sumOfSquares = sumOfSquares;
  }

  /**
   * `addMany` of the first `count` scores whose running sums, continued from this one's in order (`sum`,
   * `sumOfSquares` first), were computed elsewhere (the int8 scan's kernel, in its memory): the same doubles as
   * `addMany`'s, without a JS loop over them.
   *
   * @example
   * ```ts
   * statistics.addSummed(scores, scores.length, statistics.sum + 1 + 2, statistics.sumOfSquares + 1 + 4); // scores [1, 2]
   * ```
   */
  addSummed(_scores: Float64Array, count: number, sum: number, sumOfSquares: number): void {
    this.count += count;
    this.sum = sum;
    this.sumOfSquares = sumOfSquares;
  }

  /** The mean score (0 when empty). */
  get mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /** The population standard deviation (0 when empty or constant). */
  get deviation(): number {
    if (this.count === 0) return 0;
    const mean = this.mean;
    return Math.sqrt(Math.max(0, this.sumOfSquares / this.count - mean * mean));
  }
}
