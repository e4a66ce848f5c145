// The soft tail: past a kept head, the fused ranking reordered by soft word matching over a wider head, so the first hits stay as they were.
import { MnemoError } from '../core/errors.js';
import type { Contributions } from '../core/types.js';
import { MAX_SOFT_MATCH_HEAD } from './soft-match.js';

/** Soft tail settings (see `QueryOptions.softTail`). */
export interface SoftTailOptions {
  /** How many of the ranking's first hits stay exactly as the search without the tail ranks them. */
  keep: number;
  /** How many of the fused candidates soft matching aligns for the tail (at least the soft matching head). */
  head: number;
}

/** The kept head and the aligned head when a caller leaves them out. */
export const SOFT_TAIL_KEEP = 10;
export const SOFT_TAIL_HEAD = 200;
/** The longest kept head (a search returns at most 1000 hits). */
export const MAX_SOFT_TAIL_KEEP = 1000;

/**
 * Checks soft tail settings as a caller gives them (`{ keep?, head? }`; null: off; undefined: the corpus's
 * `defaults`), filling keep and head left out (10 and 200); a clear INVALID_INPUT for anything else.
 *
 * @example
 * ```ts
 * optionalSoftTail({}, null); // { keep: 10, head: 200 }
 * optionalSoftTail({ keep: 5, head: 100 }, null); // { keep: 5, head: 100 }
 * ```
 */
export function optionalSoftTail(value: unknown, defaults: SoftTailOptions | null): SoftTailOptions | undefined {
  if (value === null) return undefined;
  if (value === undefined) return defaults ?? undefined;
  const given = value as Partial<SoftTailOptions>;
  const keep = given.keep ?? SOFT_TAIL_KEEP;
  const head = given.head ?? SOFT_TAIL_HEAD;
  const integerIn = (number: unknown, low: number, high: number) => typeof number === 'number' && Number.isSafeInteger(number) && number >= low && number <= high;
  if (typeof value !== 'object' || Array.isArray(value) || !integerIn(keep, 0, MAX_SOFT_TAIL_KEEP) || !integerIn(head, 1, MAX_SOFT_MATCH_HEAD)) {
    throw new MnemoError(
      'INVALID_INPUT',
      `softTail: expected { keep?: an integer from 0 to ${MAX_SOFT_TAIL_KEEP}, head?: an integer from 1 to ${MAX_SOFT_MATCH_HEAD} } or null, got ${JSON.stringify(value)}. Pass null to turn it off.`,
      { details: { field: 'softTail' } },
    );
  }
  return { keep, head };
}

/** A ranked candidate as the soft tail reads it: its score and each part of it (`soft`: its soft matching lift, if any). */
export interface TailCandidate {
  slot: number;
  score: number;
  contributions: Contributions;
}

/**
 * The ranking with its first `keep` candidates as they are and the rest reordered by their score with the soft
 * matching part replaced by `lifts` (the lift over the wider head, by slot; 0 for a slot it lacks), ties keeping
 * their order. The rest keep below the kept head: when the best of them would score above its last candidate, all of
 * them are lowered by the same amount (the `tail` contribution, negative), so their order holds and the scores still
 * fall down the list. Each rest candidate's `soft` contribution becomes its wider lift, so the contributions still
 * sum to the score. A new list; the candidates given are not changed. Deterministic, and the kept head does not
 * depend on the lifts.
 *
 * @example
 * ```ts
 * const ranked = [{ slot: 1, score: 3, contributions: {} }, { slot: 2, score: 2, contributions: {} }, { slot: 3, score: 1, contributions: {} }];
 * softTailOrder(ranked, new Map([[3, 5]]), 1).map(({ slot }) => slot); // [1, 3, 2]: slot 3 scored 3 (6 lowered by 3), slot 2 -1
 * ```
 */
export function softTailOrder<T extends TailCandidate>(ranked: readonly T[], lifts: ReadonlyMap<number, number>, keep: number): T[] {
  if (ranked.length <= keep) return [...ranked];
  const head = ranked.slice(0, keep);
  const rest = ranked
    .slice(keep)
    .map((candidate, order) => {
      const lift = lifts.get(candidate.slot) ?? 0;
      const contributions: Contributions = { ...candidate.contributions };
      if (lift !== 0) contributions.soft = lift;
      else delete contributions.soft;
      return { candidate: { ...candidate, score: candidate.score - (candidate.contributions.soft ?? 0) + lift, contributions }, order };
    })
    .sort((a, b) => b.candidate.score - a.candidate.score || a.order - b.order)
    .map(({ candidate }) => candidate);
  const last = head[head.length - 1];
  const first = rest[0] as T;
  const offset = last === undefined ? 0 : Math.min(0, last.score - first.score);
  if (offset !== 0) {
    for (const candidate of rest) {
      candidate.score += offset;
      candidate.contributions.tail = offset;
    }
  }
  return [...head, ...rest];
}
