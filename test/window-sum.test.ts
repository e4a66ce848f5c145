import { describe, expect, it } from 'vitest';
import { windowSums } from '../src/retrieval/window-sum.js';

const line = (size: number) => (slot: number, direction: -1 | 1) => (slot + direction >= 0 && slot + direction < size ? slot + direction : null);

describe('windowSums', () => {
  it('gives each slot the sum of the lexical scores within reach, itself included', () => {
    const sums = windowSums([{ slot: 2, score: 3 }, { slot: 4, score: 1 }], line(6), 1);
    expect([...sums.entries()]).toEqual([[2, 3], [1, 3], [3, 4], [4, 1], [5, 1]]);
  });
  it('stops at the ends of the order and follows the neighbour links, not the slot numbers', () => {
    // order 0 -> 5 -> 9 (slots removed in between)
    const next = new Map([[0, 5], [5, 9]]);
    const previous = new Map([[5, 0], [9, 5]]);
    const neighbourOf = (slot: number, direction: -1 | 1) => (direction === 1 ? next.get(slot) : previous.get(slot)) ?? null;
    expect(Object.fromEntries(windowSums([{ slot: 0, score: 2 }], neighbourOf, 2))).toEqual({ 0: 2, 5: 2, 9: 2 });
  });
  it('scores nothing for reach 0 beyond the matches, and ignores zero scores', () => {
    expect(Object.fromEntries(windowSums([{ slot: 1, score: 2 }, { slot: 3, score: 0 }], line(5), 0))).toEqual({ 1: 2 });
  });
});
