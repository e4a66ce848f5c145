// The clock seam: everything that stamps a time takes a Clock, so tests can fix time.

/** Milliseconds since the Unix epoch. */
export type Clock = () => number;

/** The real wall clock. */
export const systemClock: Clock = () => Date.now();

/**
 * A clock that only moves when told to, for tests.
 *
 * @example
 * ```ts
 * const clock = manualClock(1_700_000_000_000);
 * clock.advance(1000);
 * clock.now(); // 1_700_000_001_000
 * ```
 */
export function manualClock(start = 0): { now: Clock; advance(milliseconds: number): void; set(time: number): void } {
  let time = start;
  return {
    now: () => time,
    advance(milliseconds: number) { time += milliseconds; },
    set(value: number) { time = value; },
  };
}
