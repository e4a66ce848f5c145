import { describe, expect, it } from 'vitest';
import { isMnemoError } from '../src/core/errors.js';
import { MAX_SOFT_MATCH_HEAD, standardisedLifts } from '../src/retrieval/soft-match.js';
import { MAX_SOFT_TAIL_KEEP, optionalSoftTail, softTailOrder } from '../src/retrieval/soft-tail.js';
import type { TailCandidate } from '../src/retrieval/soft-tail.js';

const candidate = (slot: number, score: number, soft?: number): TailCandidate => ({ slot, score, contributions: { lexical: score - (soft ?? 0), ...(soft === undefined ? {} : { soft }) } });
const sum = (hit: TailCandidate) => Object.values(hit.contributions).reduce((total, part) => total + part, 0);

describe('optionalSoftTail', () => {
  it('fills keep and head (10 and 200), keeps the corpus default when left out, and is off for null', () => {
    expect(optionalSoftTail({}, null)).toEqual({ keep: 10, head: 200 });
    expect(optionalSoftTail({ keep: 5 }, null)).toEqual({ keep: 5, head: 200 });
    expect(optionalSoftTail({ head: 100, keep: 0 }, null)).toEqual({ keep: 0, head: 100 });
    expect(optionalSoftTail(undefined, { keep: 3, head: 60 })).toEqual({ keep: 3, head: 60 });
    expect(optionalSoftTail(undefined, null)).toBeUndefined();
    expect(optionalSoftTail(null, { keep: 3, head: 60 })).toBeUndefined();
  });
  it.each([[{ keep: -1 }], [{ keep: MAX_SOFT_TAIL_KEEP + 1 }], [{ head: 0 }], [{ head: MAX_SOFT_MATCH_HEAD + 1 }], [{ keep: 2.5 }], [[200, 10]], ['200,10']])('refuses %j with INVALID_INPUT naming the bounds', (value) => {
    try {
      optionalSoftTail(value, null);
      expect.unreachable();
    } catch (error) {
      expect(isMnemoError(error) && error.code).toBe('INVALID_INPUT');
      expect((error as Error).message).toContain(`from 1 to ${MAX_SOFT_MATCH_HEAD}`);
      expect((error as Error).message).toContain(`from 0 to ${MAX_SOFT_TAIL_KEEP}`);
    }
  });
});

describe('softTailOrder', () => {
  const ranked = () => [candidate(1, 5, 0.5), candidate(2, 4, -0.5), candidate(3, 3), candidate(4, 2), candidate(5, 1)];
  it('keeps the first `keep` as they are and orders the rest by their score with the wider lift in place of their own', () => {
    const given = ranked();
    const lifts = new Map([[1, 9], [2, 0.5], [4, 1.5], [5, 3]]);
    const ordered = softTailOrder(given, lifts, 1);
    // Past the head: slot 2 at 4 - (-0.5) + 0.5 = 5, slot 3 at 3, slot 4 at 3.5, slot 5 at 4.
    expect(ordered.map(({ slot }) => slot)).toEqual([1, 2, 5, 4, 3]);
    expect(ordered[0]).toBe(given[0]);
    // Slot 2 would score 5, the head's last score: not above it, so nothing is lowered.
    expect(ordered.map(({ score }) => score)).toEqual([5, 5, 4, 3.5, 3]);
    expect(ordered.every((hit) => hit.contributions.tail === undefined)).toBe(true);
    expect(ordered[1]?.contributions.soft).toBe(0.5);
    expect(ordered[4]?.contributions.soft).toBeUndefined();
    for (const hit of ordered) expect(sum(hit)).toBeCloseTo(hit.score, 12);
    // The candidates given are not changed.
    expect(given.map(({ slot, score, contributions }) => [slot, score, contributions.soft])).toEqual([[1, 5, 0.5], [2, 4, -0.5], [3, 3, undefined], [4, 2, undefined], [5, 1, undefined]]);
  });
  it('lowers the rest by one amount when the best of them would rise above the kept head, so the scores still fall down the list', () => {
    const ordered = softTailOrder(ranked(), new Map([[5, 10]]), 2);
    // Slot 5 would score 11 against the head's last 4: every rest candidate loses 7, in the order 5, 3, 4.
    expect(ordered.map(({ slot }) => slot)).toEqual([1, 2, 5, 3, 4]);
    expect(ordered.map(({ score }) => score)).toEqual([5, 4, 4, -4, -5]);
    expect(ordered.slice(2).map(({ contributions }) => contributions.tail)).toEqual([-7, -7, -7]);
    for (const hit of ordered) expect(sum(hit)).toBeCloseTo(hit.score, 12);
  });
  it('changes nothing when the ranking is no longer than the kept head, and with no lifts keeps the order', () => {
    expect(softTailOrder(ranked(), new Map([[5, 10]]), 5).map(({ slot }) => slot)).toEqual([1, 2, 3, 4, 5]);
    expect(softTailOrder(ranked(), new Map(), 0).map(({ slot }) => slot)).toEqual([1, 2, 3, 4, 5]);
    expect(softTailOrder([], new Map(), 0)).toEqual([]);
  });
});

describe('standardisedLifts', () => {
  it('z-scores the first `count` alignments over themselves, times the weight (a deviation of 0 counts as 1)', () => {
    const rounded = (values: Float64Array) => [...values].map((value) => Math.round(value * 1e12) / 1e12);
    expect(rounded(standardisedLifts(Float64Array.of(0.2, 0.4, 0.9), 2, 1))).toEqual([-1, 1]);
    expect(rounded(standardisedLifts(Float64Array.of(0.2, 0.4), 2, 3))).toEqual([-3, 3]);
    expect([...standardisedLifts(Float64Array.of(0.5, 0.5, 0.1), 2, 1)]).toEqual([0, 0]);
    // The whole array when the count is its length: the same values as its own z-scores.
    expect(rounded(standardisedLifts(Float64Array.of(1, 2, 3), 3, 1))).toEqual(rounded(Float64Array.of(-Math.sqrt(1.5), 0, Math.sqrt(1.5))));
  });
});
