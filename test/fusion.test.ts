import { describe, expect, it } from 'vitest';
import { capPerSource } from '../src/retrieval/cap-per-source.js';
import { focusMatches } from '../src/retrieval/focus-boost.js';
import { reciprocalRankFusion } from '../src/retrieval/reciprocal-rank-fusion.js';
import { TopK } from '../src/retrieval/top-k.js';

describe('reciprocalRankFusion', () => {
  it('sums 1 / (k + rank) over the arms', () => {
    const fused = reciprocalRankFusion([['a', 'b', 'c'], ['c', 'a']], 60);
    expect(fused.map(([id]) => id)).toEqual(['a', 'c', 'b']);
    expect(fused[0]?.[1]).toBeCloseTo(1 / 61 + 1 / 62, 15);
    expect(fused[1]?.[1]).toBeCloseTo(1 / 63 + 1 / 61, 15);
    expect(fused[2]?.[1]).toBeCloseTo(1 / 62, 15);
  });
  it('breaks ties by first appearance across the lists', () => {
    expect(reciprocalRankFusion([['x', 'y'], ['y', 'x']]).map(([id]) => id)).toEqual(['x', 'y']);
    expect(reciprocalRankFusion([['p'], ['q']]).map(([id]) => id)).toEqual(['p', 'q']);
    expect(reciprocalRankFusion([['q'], ['p']]).map(([id]) => id)).toEqual(['q', 'p']);
  });
  it('honours k', () => {
    expect(reciprocalRankFusion([['a']], 1)[0]?.[1]).toBe(0.5);
  });
  it('fuses nothing into nothing', () => {
    expect(reciprocalRankFusion([])).toEqual([]);
  });
});

describe('capPerSource', () => {
  it('keeps the head, and 0 or less disables it', () => {
    expect(capPerSource(['a', 'b', 'c'], 2)).toEqual(['a', 'b']);
    expect(capPerSource(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(capPerSource(['a', 'b', 'c'], -1)).toEqual(['a', 'b', 'c']);
  });
});

describe('focusMatches', () => {
  it('matches consecutive tokens, ignoring case and punctuation', () => {
    expect(focusMatches('Rowan, at the Harvest-Moon inn.', ['harvest moon', 'Rowan', 'moon harvest', 'Tindel'])).toEqual(['harvest moon', 'Rowan']);
    expect(focusMatches('anything', [])).toEqual([]);
  });
});

describe('TopK', () => {
  it('keeps the best scores with lower slots winning ties', () => {
    const top = new TopK(3);
    [[5, 1], [2, 3], [9, 3], [1, 0.5], [4, 3]].forEach(([slot, score]) => top.push(slot as number, score as number));
    expect(top.sorted()).toEqual([{ slot: 2, score: 3 }, { slot: 4, score: 3 }, { slot: 9, score: 3 }]);
  });
});

describe('armsToRun', () => {
  it('skips an arm weighted 0 under z-score fusion, never both, and ignores weights under RRF', async () => {
    const { armsToRun } = await import('../src/retrieval/hybrid-search.js');
    expect(armsToRun({ fusion: 'zscore', weights: { semantic: 0 } })).toEqual({ lexical: true, semantic: false });
    expect(armsToRun({ fusion: 'zscore', weights: { lexical: 0 } })).toEqual({ lexical: false, semantic: true });
    expect(armsToRun({ fusion: 'zscore', weights: { lexical: 0, semantic: 0 } })).toEqual({ lexical: true, semantic: true });
    expect(armsToRun({ fusion: 'rrf', weights: { semantic: 0 } })).toEqual({ lexical: true, semantic: true });
  });
});
