import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import { hybridSearch } from '../src/retrieval/hybrid-search.js';
import { resolveSearchRequest } from '../src/retrieval/resolve-search-request.js';
import { ScoreStatistics } from '../src/retrieval/score-statistics.js';
import { LexicalMatches, windowSums } from '../src/retrieval/window-sum.js';

const line = (size: number) => ({ previous: Int32Array.from({ length: size }, (_, slot) => slot - 1), next: Int32Array.from({ length: size }, (_, slot) => (slot + 1 < size ? slot + 1 : -1)) });
const matchesOf = (pairs: [number, number][]) => ({ slots: pairs.map(([slot]) => slot), scores: pairs.map(([, score]) => score), count: pairs.length });
const sumsOf = (scores: ReturnType<typeof windowSums>, size: number) => Array.from({ length: size }, (_, slot) => scores.scoreOf(slot));

describe('windowSums', () => {
  it('gives each slot the sum of the lexical scores within reach, itself included', () => {
    const sums = windowSums(matchesOf([[2, 3], [4, 1]]), line(6), 1, 6);
    expect(sumsOf(sums, 6)).toEqual([0, 3, 3, 4, 1, 1]);
    expect(sums.size).toBe(5);
    expect(sums.top(2)).toEqual([{ slot: 3, score: 4 }, { slot: 1, score: 3 }]);
  });
  it('standardises over every slot with a window score', () => {
    const sums = windowSums(matchesOf([[2, 3], [4, 1]]), line(6), 1, 6);
    expect(sums.statistics.count).toBe(5);
    expect(sums.statistics.mean).toBeCloseTo((3 + 3 + 4 + 1 + 1) / 5);
  });
  it('stops at the ends of the order and follows the neighbour links, not the slot numbers', () => {
    // order 0 -> 5 -> 9 (slots removed in between)
    const order = { previous: new Int32Array(10).fill(-1), next: new Int32Array(10).fill(-1) };
    [order.next[0], order.next[5], order.previous[5], order.previous[9]] = [5, 9, 0, 5];
    expect(sumsOf(windowSums(matchesOf([[0, 2]]), order, 2, 10), 10)).toEqual([2, 0, 0, 0, 0, 2, 0, 0, 0, 2]);
  });
  it('scores nothing for reach 0 beyond the matches, and ignores zero scores', () => {
    expect(sumsOf(windowSums(matchesOf([[1, 2], [3, 0]]), line(5), 0, 5), 5)).toEqual([0, 2, 0, 0, 0]);
  });
  it('gives nothing to slots the filter refuses (a filtered-out chunk neither scores nor is scored)', () => {
    const sums = windowSums(matchesOf([[2, 3]]), line(5), 2, 5, (slot) => slot !== 3);
    expect(sumsOf(sums, 5)).toEqual([3, 3, 3, 0, 3]);
  });
});

/** Random matches as the lexical arm hands them over: runs of ascending slots (one per query term), each slot once. */
const randomMatches = (size: number, runs: number, share: number, seed: number) => {
  const random = seededRandom(seed);
  const taken = new Uint8Array(size);
  const slots: number[] = [];
  const scores: number[] = [];
  for (let run = 0; run < runs; run++) {
    for (let slot = 0; slot < size; slot++) {
      if (taken[slot] === 1 || random() >= share) continue;
      taken[slot] = 1;
      slots.push(slot);
      scores.push(random() < 0.05 ? 0 : random() * 9 + 1 / (slot + 7));
    }
  }
  return { slots: Int32Array.from(slots), scores: Float64Array.from(scores), count: slots.length };
};
const everything = (sums: ReturnType<typeof windowSums>, size: number) => ({
  sums: sumsOf(sums, size),
  statistics: [sums.statistics.count, sums.statistics.sum, sums.statistics.sumOfSquares],
  top: sums.top(20),
});

describe('windowSums on a dense order and with a lent array', () => {
  it('steps by counting on a dense order with, to the last bit, the sums and statistics of the chains', () => {
    for (const [size, reach, seed] of [[200, 2, 1], [1000, 1, 2], [1000, 3, 3], [5, 4, 4], [3000, 2, 5]] as const) {
      const matches = randomMatches(size, 6, 0.08, seed);
      const chained = everything(windowSums(matches, line(size), reach, size), size);
      const counted = everything(windowSums(matches, { ...line(size), dense: true }, reach, size), size);
      expect(counted).toEqual(chained);
      expect(Object.is(counted.statistics[1], chained.statistics[1]) && Object.is(counted.statistics[2], chained.statistics[2])).toBe(true);
    }
  });
  it('gives as its top the best sums by score, then slot, whether few slots have a sum or most', () => {
    const size = 3000;
    for (const share of [0.002, 0.2]) {
      const sums = windowSums(randomMatches(size, 5, share, 9), line(size), 2, size);
      const all = sumsOf(sums, size).map((score, slot) => ({ slot, score })).filter(({ score }) => score > 0);
      all.sort((a, b) => b.score - a.score || a.slot - b.slot);
      expect(sums.top(25)).toEqual(all.slice(0, 25));
      expect(sums.top(size)).toEqual(all);
      sums.release();
    }
  });
  it('follows the chains, not the counting, when a filter is given, whatever `dense` says', () => {
    const sums = windowSums(matchesOf([[2, 3]]), { ...line(5), dense: true }, 2, 5, (slot) => slot !== 3);
    expect(sumsOf(sums, 5)).toEqual([3, 3, 3, 0, 3]);
  });
  it('gives the next query a cleared array once released (few sums or many), and refuses reads after release', () => {
    const size = 2000;
    const fresh = (matches: ReturnType<typeof randomMatches>) => everything(windowSums(matches, line(size), 2, size), size);
    for (const share of [0.001, 0.3, 0.01]) {
      const first = windowSums(randomMatches(size, 4, share, 7), line(size), 2, size);
      first.release();
      first.release();
      expect(() => first.scoreOf(0)).toThrow(/after release/);
      const next = randomMatches(size, 3, share, 8);
      const expected = fresh(next);
      const lent = windowSums(next, line(size), 2, size);
      expect(everything(lent, size)).toEqual(expected);
      lent.release();
    }
  });
});

describe('LexicalMatches', () => {
  it('keeps every match and passes each score on to the statistics', () => {
    const statistics = new ScoreStatistics();
    const matches = new LexicalMatches(statistics);
    for (let slot = 0; slot < 100; slot++) matches.add(slot + 1, slot);
    expect(matches.count).toBe(100);
    expect(matches.slots[99]).toBe(99);
    expect(statistics.count).toBe(100);
    expect(statistics.mean).toBeCloseTo(50.5);
  });
  it('lends its arrays to the next matches once released: they start empty and hold only their own', () => {
    const first = new LexicalMatches();
    first.addMany(Float64Array.from({ length: 500 }, (_, index) => index + 1), Int32Array.from({ length: 500 }, (_, index) => index), 500);
    const lent = first.slots;
    first.release();
    expect(first.count).toBe(0);
    const statistics = new ScoreStatistics();
    const next = new LexicalMatches(statistics);
    expect(next.slots).toBe(lent);
    next.add(7, 42);
    next.addMany(Float64Array.of(2, 3), Int32Array.of(8, 9), 2);
    expect(next.count).toBe(3);
    expect([...next.slots.subarray(0, next.count)]).toEqual([42, 8, 9]);
    expect([...next.scores.subarray(0, next.count)]).toEqual([7, 2, 3]);
    expect([statistics.count, statistics.sum]).toEqual([3, 12]);
    expect(new LexicalMatches().slots).not.toBe(lent);
  });
  it('takes a whole arm at once with the same matches and, to the last bit, the same statistics', () => {
    const scores = Float64Array.from({ length: 1000 }, (_, index) => Math.sin(index) * 7 + 1 / (index + 3));
    const slots = Int32Array.from({ length: 1000 }, (_, index) => index * 3);
    const one = new ScoreStatistics();
    const each = new LexicalMatches(one);
    for (let index = 0; index < 1000; index++) each.add(scores[index] as number, slots[index] as number);
    const many = new ScoreStatistics();
    const whole = new LexicalMatches(many);
    whole.add(scores[0] as number, slots[0] as number);
    whole.addMany(scores.subarray(1), slots.subarray(1), 999);
    expect([many.count, many.sum, many.sumOfSquares]).toEqual([one.count, one.sum, one.sumOfSquares]);
    expect([...whole.slots.subarray(0, whole.count)]).toEqual([...each.slots.subarray(0, each.count)]);
    expect([...whole.scores.subarray(0, whole.count)]).toEqual([...each.scores.subarray(0, each.count)]);
  });
});

describe('window sum in the hybrid search', () => {
  const texts = ['Where did you leave the lantern?', 'By the old mill, I think.', 'The weather turned cold.', 'Bread is cheap this week.', 'Rowan sings by the fire.'];
  const build = () => {
    const index = new CorpusIndex(0);
    index.add(texts.map((text, turn) => ({ id: `c${turn}`, position: turn, kind: 'narrative', text, embedding: null })));
    return index;
  };
  const search = (index: CorpusIndex, windowSum?: { reach: number; weight: number }, accept?: (slot: number) => boolean) =>
    hybridSearch({ index, queryText: 'lantern', queryVector: null, k: 5, capPerSource: 50, fusion: 'zscore', windowSum, accept, loadTexts: async () => new Map() });

  it('brings the answer that never names the question\'s words (the reply after it)', async () => {
    const index = build();
    expect((await search(index)).map((hit) => hit.id)).toEqual(['c0']);
    const hits = await search(index, { reach: 1, weight: 1 });
    expect(hits.map((hit) => hit.id).slice(0, 2)).toEqual(['c0', 'c1']);
    expect(hits[1]?.explanation.window).toEqual({ rank: 2, score: expect.any(Number) });
    expect(hits[1]?.explanation.lexical).toBeNull();
    expect(hits[1]?.explanation.contributions?.window).toBeGreaterThan(hits[2]?.explanation.contributions?.window ?? -Infinity);
  });
  it('follows the live order after a removal', async () => {
    const index = build();
    index.remove(['c1']);
    const hits = await search(index, { reach: 1, weight: 1 });
    expect(hits.map((hit) => hit.id).slice(0, 2)).toEqual(['c0', 'c2']);
  });
  it('leaves out what the filter refuses', async () => {
    const index = build();
    const hits = await search(index, { reach: 1, weight: 1 }, (slot) => slot !== 1);
    expect(hits.map((hit) => hit.id)).not.toContain('c1');
  });
  it('is a default of narrative search only, and checked', () => {
    expect(resolveSearchRequest('narrative', 'q').windowSum).toEqual({ reach: 2, weight: 1 });
    expect(resolveSearchRequest('lore', 'q').windowSum).toBeUndefined();
    expect(resolveSearchRequest('narrative', 'q', { windowSum: null }).windowSum).toBeUndefined();
    expect(() => resolveSearchRequest('narrative', 'q', { windowSum: { reach: 21, weight: 1 } })).toThrow(/windowSum: expected \{ reach: an integer from 0 to 20/);
    expect(() => resolveSearchRequest('narrative', 'q', { windowSum: { reach: 2, weight: -1 } })).toThrow(/windowSum/);
  });
});
