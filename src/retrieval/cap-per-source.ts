// Per-arm cap applied before fusion, so one over-expanding arm cannot crowd out the others.

/**
 * Keeps the first `cap` ids of one arm's ranked list; `cap <= 0` disables the cap.
 *
 * @example
 * ```ts
 * capPerSource(['a', 'b', 'c'], 2); // ['a', 'b']
 * ```
 */
export function capPerSource<T>(rankedIds: readonly T[], cap: number): T[] {
  return cap <= 0 ? [...rankedIds] : rankedIds.slice(0, cap);
}
