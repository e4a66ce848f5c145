// The trend of a belief, read from the turns of its sources: NEW, STRENGTHENING, WEAKENING, STALE or STABLE.
import { MnemoError } from '../core/errors.js';
import type { Belief, Trend } from '../core/living-types.js';

/** The windows of computeTrend, in turns. */
export interface TrendWindows {
  /** The recent window: the `recentTurns` turns ending at now (default 15). */
  recentTurns?: number;
  /** The horizon of the old window, counted back from now (default 45): the old window is the turns before the recent one, up to this far back. */
  oldTurns?: number;
}

/** Ratio of recent to old evidence density above which a belief is STRENGTHENING. */
export const STRENGTHENING_RATIO = 1.5;
/** Ratio below which it is WEAKENING. */
export const WEAKENING_RATIO = 0.5;

/**
 * Classifies a belief's trend from the turns of its sources, read at `nowTurn` (the present, or the rewind
 * horizon during a replay). With `age = nowTurn - turn` (sources after now are ignored):
 * - the recent window holds ages 0 .. recentTurns-1 (the 15 turns ending at now);
 * - the old window holds ages recentTurns .. oldTurns-1 (the 30 turns before those, back to 45 turns ago);
 *   sources older than that count for NEW and STALE (they are not recent) but not for the density ratio.
 *
 * Checked in this order:
 * 1. STABLE when there is no source or no current turn (trend unknown);
 * 2. NEW when every source is in the recent window;
 * 3. STALE when none is (the belief may be outdated);
 * 4. else ratio = (recent / recentTurns) / (old / (oldTurns - recentTurns)), the evidence per turn of each window
 *    (infinite when the old window is empty): STRENGTHENING above 1.5, WEAKENING below 0.5, STABLE otherwise.
 *
 * @example
 * ```ts
 * computeTrend([98, 99, 100], 100);            // 'NEW'
 * computeTrend([10, 20, 30], 100);             // 'STALE'
 * computeTrend([60, 70, 80, 90, 99], 100);     // recent 2/15 vs old 3/30: ratio 1.33 -> 'STABLE'
 * ```
 */
export function computeTrend(sourceTurns: readonly number[], nowTurn: number | null | undefined, windows: TrendWindows = {}): Trend {
  const recentTurns = windows.recentTurns ?? 15;
  const oldTurns = windows.oldTurns ?? 45;
  if (!Number.isSafeInteger(recentTurns) || recentTurns < 1 || !Number.isSafeInteger(oldTurns) || oldTurns <= recentTurns) {
    throw new MnemoError('INVALID_INPUT', `trend windows: expected integers with 1 <= recentTurns < oldTurns, got recentTurns ${recentTurns} and oldTurns ${oldTurns}. Leave them out for 15 and 45.`, {
      details: { field: 'windows', recentTurns, oldTurns },
    });
  }
  if (nowTurn === null || nowTurn === undefined) return 'STABLE';
  const ages = sourceTurns.filter((turn) => turn <= nowTurn).map((turn) => nowTurn - turn);
  if (ages.length === 0) return 'STABLE';
  const recent = ages.filter((age) => age < recentTurns).length;
  if (recent === ages.length) return 'NEW';
  if (recent === 0) return 'STALE';
  const old = ages.filter((age) => age >= recentTurns && age < oldTurns).length;
  // (recent / recentTurns) / (old / oldSpan), written as one division of integers so 1.5 and 0.5 are exact.
  const ratio = old === 0 ? Infinity : (recent * (oldTurns - recentTurns)) / (old * recentTurns);
  if (ratio > STRENGTHENING_RATIO) return 'STRENGTHENING';
  if (ratio < WEAKENING_RATIO) return 'WEAKENING';
  return 'STABLE';
}

/**
 * A belief's trend at `nowTurn` (see computeTrend).
 *
 * @example
 * ```ts
 * beliefTrend(belief, 120); // 'STRENGTHENING'
 * ```
 */
export function beliefTrend(belief: Pick<Belief, 'sources'>, nowTurn: number | null | undefined, windows?: TrendWindows): Trend {
  return computeTrend(belief.sources.map((source) => source.turnId), nowTurn, windows);
}
