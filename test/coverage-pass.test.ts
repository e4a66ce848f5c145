// The coverage pass: which query terms a fused head leaves uncovered, its option, and the pass through a real save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { buildBm25 } from '../src/retrieval/bm25.js';
import { MAX_COVERAGE_PASS_HEAD, optionalCoveragePass, uncoveredTerms } from '../src/retrieval/coverage-pass.js';

describe('uncoveredTerms', () => {
  const bm25 = buildBm25(['the lantern glows', 'the bridge fell', 'a cold night', 'the lantern and the bridge']);
  it('returns the terms the save holds and the head does not, with their share of the idf', () => {
    const found = uncoveredTerms(bm25, ['lantern', 'bridge', 'lantern'], [0]);
    expect(found.terms).toEqual(['bridge']);
    // Both terms are held by two of the four documents: the same idf, half the total.
    expect(found.share).toBeCloseTo(0.5, 12);
    expect(uncoveredTerms(bm25, ['lantern', 'bridge'], [3])).toEqual({ terms: [], share: 0 });
    expect(uncoveredTerms(bm25, ['lantern', 'bridge'], [2]).terms).toEqual(['lantern', 'bridge']);
    expect(uncoveredTerms(bm25, ['lantern', 'bridge'], [2]).share).toBeCloseTo(1, 12);
  });
  it('leaves out a term no document holds and the terms it is told to ignore', () => {
    expect(uncoveredTerms(bm25, ['lantern', 'comet'], [2])).toEqual({ terms: ['lantern'], share: 1 });
    expect(uncoveredTerms(bm25, ['lantern', 'bridge', 'cold'], [2], new Set(['bridge'])).terms).toEqual(['lantern']);
    expect(uncoveredTerms(bm25, ['comet'], [0])).toEqual({ terms: [], share: 0 });
  });
  it('weighs a rare uncovered term more than a common one', () => {
    const rare = uncoveredTerms(bm25, ['lantern', 'cold'], [0]);
    const common = uncoveredTerms(bm25, ['lantern', 'cold'], [2]);
    expect(rare.terms).toEqual(['cold']);
    expect(common.terms).toEqual(['lantern']);
    expect(rare.share).toBeGreaterThan(0.5);
    expect(rare.share + common.share).toBeCloseTo(1, 12);
  });
});

describe('optionalCoveragePass', () => {
  it('checks its options', () => {
    expect(optionalCoveragePass({ weight: 0.5 }, null)).toEqual({ weight: 0.5, head: 10 });
    expect(optionalCoveragePass({ weight: 0 }, null)).toBeUndefined();
    expect(optionalCoveragePass(undefined, { weight: 1, head: 5 })).toEqual({ weight: 1, head: 5 });
    expect(optionalCoveragePass(null, { weight: 1, head: 5 })).toBeUndefined();
    expect(() => optionalCoveragePass({ weight: -1 }, null)).toThrow(/coveragePass: expected/);
    expect(() => optionalCoveragePass({ weight: 1, head: MAX_COVERAGE_PASS_HEAD + 1 }, null)).toThrow(/head\?: an integer from 1 to 200/);
    expect(() => optionalCoveragePass({ weight: 1, head: 0 }, null)).toThrow(/coveragePass/);
    expect(() => optionalCoveragePass(0.5, null)).toThrow(/coveragePass/);
  });
});

describe('the coverage pass in a save', () => {
  const TURNS = [
    'The lantern hung by the door, the lantern.',
    'Its lantern glass was cracked.',
    'A lantern, she said, needs oil.',
    'Later the lantern went out at sea.',
    'The kind sailor sang all night.',
    'Nobody slept on the boat.',
  ];
  const seeded = async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: null });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text })));
    return memory;
  };
  const options = { k: 6, windowSum: null, feedback: null } as const;

  it('changes nothing, to the bit, when the head holds every term', async () => {
    const memory = await seeded();
    const plain = await memory.query('s', 'lantern oil', options);
    expect(plain[0]?.turnId).toBe(2);
    const passed = await memory.query('s', 'lantern oil', { ...options, coveragePass: { weight: 1, head: 1 } });
    expect(passed.map((hit) => [hit.turnId, hit.score])).toEqual(plain.map((hit) => [hit.turnId, hit.score]));
    expect(passed[0]?.explanation.contributions?.coverage).toBeUndefined();
    await memory.close();
  });

  it('searches the term the head lacks and fuses it in as an arm, explained, the top k a prefix of the top 6', async () => {
    const memory = await seeded();
    const plain = await memory.query('s', 'lantern sailor', options);
    const top = plain[0]?.text as string;
    const lacking = /sailor/i.test(top) ? 'lantern' : 'sailor';
    const passed = await memory.query('s', 'lantern sailor', { ...options, coveragePass: { weight: 2, head: 1 } });
    const coverage = (turn: number) => passed.find((hit) => hit.turnId === turn)?.explanation.contributions?.coverage as number;
    const holders = TURNS.map((text, turn) => ({ text, turn })).filter(({ text }) => text.toLowerCase().includes(lacking));
    const others = passed.filter((hit) => !hit.text.toLowerCase().includes(lacking));
    expect(holders.length).toBeGreaterThan(0);
    expect(others.length).toBeGreaterThan(0);
    // Standardised over the second pass's own matches: its holders average 0, a turn without the term is below them all.
    const mean = holders.reduce((sum, { turn }) => sum + coverage(turn), 0) / holders.length;
    expect(Math.abs(mean)).toBeLessThan(1e-9);
    for (const other of others) expect(other.explanation.contributions?.coverage as number).toBeLessThan(Math.min(...holders.map(({ turn }) => coverage(turn))));
    // What the pass adds is the only change: the fused score minus the coverage part is the plain score.
    for (const hit of passed) expect(hit.score - (hit.explanation.contributions?.coverage as number)).toBeCloseTo(plain.find((other) => other.turnId === hit.turnId)?.score as number, 9);
    const top2 = await memory.query('s', 'lantern sailor', { ...options, k: 2, coveragePass: { weight: 2, head: 1 } });
    expect(top2.map((hit) => hit.turnId)).toEqual(passed.slice(0, 2).map((hit) => hit.turnId));
    await expect(memory.query('s', 'lantern', { coveragePass: { weight: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});
