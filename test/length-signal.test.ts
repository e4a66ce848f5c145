// The length signal and the length prior: what a chunk gains for its length, the options, and both in a save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { MAX_LENGTH_SIGNAL_HEAD, lengthLifts, lengthPrior, optionalLengthSignal } from '../src/retrieval/length-signal.js';

describe('lengthLifts', () => {
  it('is weight x the z-score of log(1 + length) over the head', () => {
    expect([...lengthLifts([1, 1, 10, 10], 1)].map((lift) => Number(lift.toFixed(9)))).toEqual([-1, -1, 1, 1]);
    const lifts = lengthLifts([2, 5, 20], 0.5);
    const logs = [2, 5, 20].map((length) => Math.log1p(length));
    const mean = logs.reduce((sum, value) => sum + value, 0) / 3;
    const deviation = Math.sqrt(logs.reduce((sum, value) => sum + (value - mean) ** 2, 0) / 3);
    logs.forEach((value, place) => expect(lifts[place]).toBeCloseTo((0.5 * (value - mean)) / deviation, 12));
    // Longer is higher, and the lifts sum to zero.
    expect((lifts[0] as number) < (lifts[1] as number) && (lifts[1] as number) < (lifts[2] as number)).toBe(true);
    expect([...lifts].reduce((sum, lift) => sum + lift, 0)).toBeCloseTo(0, 12);
  });
  it('is all zero when every length is the same, for an empty head, and for one chunk', () => {
    expect([...lengthLifts([4, 4, 4], 1)]).toEqual([0, 0, 0]);
    expect([...lengthLifts([], 1)]).toEqual([]);
    expect([...lengthLifts([7], 1)]).toEqual([0]);
  });
});

describe('optionalLengthSignal', () => {
  it('checks its options', () => {
    expect(optionalLengthSignal({ weight: 0.5 }, null)).toEqual({ weight: 0.5, head: 50 });
    expect(optionalLengthSignal({ weight: 1, head: 20 }, null)).toEqual({ weight: 1, head: 20 });
    expect(optionalLengthSignal({ weight: 0 }, null)).toBeUndefined();
    expect(optionalLengthSignal(undefined, { weight: 0.5, head: 50 })).toEqual({ weight: 0.5, head: 50 });
    expect(optionalLengthSignal(null, { weight: 0.5, head: 50 })).toBeUndefined();
    expect(() => optionalLengthSignal({ weight: -1 }, null)).toThrow(/lengthSignal: expected/);
    expect(() => optionalLengthSignal({ weight: 1, head: MAX_LENGTH_SIGNAL_HEAD + 1 }, null)).toThrow(/head\?: an integer from 1 to 200/);
    expect(() => optionalLengthSignal({ weight: Number.NaN }, null)).toThrow(/lengthSignal/);
    expect(() => optionalLengthSignal('0.5', null)).toThrow(/lengthSignal/);
  });
});

describe('the length signal in a save', () => {
  // Two turns share the query's word once; one says little else, the other tells what happened.
  const TURNS = ['Lighthouse!', 'We rowed out to the old lighthouse at dawn and found the keeper had painted it blue.', 'The market sold bread.', 'Rain all week.'];
  it('lifts the longer of two matches, only by what it adds, and changes nothing with the option off', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'none' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text })));
    // The length prior (a default) off, so that the signal's part is the only length part.
    const options = { k: 4, feedback: null, windowSum: null, adaptiveWeights: 0, lengthPrior: 0 } as const;
    const plain = await memory.query('s', 'lighthouse', options);
    expect(await memory.query('s', 'lighthouse', { ...options, lengthSignal: null })).toEqual(plain);
    expect(plain[0]?.turnId).toBe(0);
    const lifted = await memory.query('s', 'lighthouse', { ...options, lengthSignal: { weight: 2 } });
    expect(lifted[0]?.turnId).toBe(1);
    for (const hit of lifted) {
      const part = hit.explanation.contributions?.length ?? 0;
      const before = plain.find((other) => other.turnId === hit.turnId);
      expect(hit.score - part).toBeCloseTo(before?.score as number, 9);
    }
    const part = (turn: number) => lifted.find((hit) => hit.turnId === turn)?.explanation.contributions?.length as number;
    expect(part(1)).toBeGreaterThan(0);
    expect(part(0)).toBeLessThan(0);
    await expect(memory.query('s', 'lighthouse', { lengthSignal: { weight: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});

describe('the length signal with the length prior', () => {
  const TURNS = ['Lighthouse!', 'We rowed out to the old lighthouse at dawn and found the keeper had painted it blue.', 'The market sold bread.', 'Rain all week, and the lighthouse keeper said so.'];
  it('adds the signal to the prior in one length part, so the parts still sum to what both added', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'none' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text })));
    const options = { k: 4, feedback: null, windowSum: null, adaptiveWeights: 0 } as const;
    const neither = await memory.query('s', 'lighthouse', { ...options, lengthPrior: 0 });
    const prior = await memory.query('s', 'lighthouse', { ...options, lengthPrior: 1 });
    const signal = await memory.query('s', 'lighthouse', { ...options, lengthPrior: 0, lengthSignal: { weight: 1 } });
    const both = await memory.query('s', 'lighthouse', { ...options, lengthPrior: 1, lengthSignal: { weight: 1 } });
    const length = (hits: typeof both, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.length ?? 0;
    expect(both.length).toBe(neither.length);
    for (const hit of both) {
      const before = neither.find((other) => other.turnId === hit.turnId)?.score as number;
      // The head the signal standardises over is the same set of candidates with or without the prior (k 4, four turns).
      expect(length(both, hit.turnId)).toBeCloseTo(length(prior, hit.turnId) + length(signal, hit.turnId), 9);
      expect(hit.score - length(both, hit.turnId)).toBeCloseTo(before, 9);
    }
    expect(both.some((hit) => length(prior, hit.turnId) !== 0 && length(signal, hit.turnId) !== 0)).toBe(true);
    await memory.close();
  });
});

describe('lengthPrior', () => {
  it('is weight x the log of (1 + length) over (1 + the mean length): positive above the mean, negative below, 0 at it', () => {
    expect(lengthPrior(20, 9, 1)).toBeCloseTo(Math.log(21 / 10), 12);
    expect(lengthPrior(4, 9, 2)).toBeCloseTo(2 * Math.log(5 / 10), 12);
    expect(lengthPrior(9, 9, 3)).toBe(0);
    expect(lengthPrior(0, 0, 1)).toBe(0);
  });
});

describe('the length prior in a save', () => {
  const TURNS = ['Lighthouse!', 'We rowed out to the old lighthouse at dawn and found the keeper had painted it blue.', 'The market sold bread.', 'Rain all week, and the lighthouse keeper said so.'];
  it('adds each candidate its own prior, lifts the longer match, and scores a chunk the same whatever k and the cap', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'none' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text })));
    const options = { k: 4, feedback: null, windowSum: null, adaptiveWeights: 0 } as const;
    const plain = await memory.query('s', 'lighthouse', { ...options, lengthPrior: 0 });
    expect(await memory.query('s', 'lighthouse', { ...options, lengthPrior: null })).toEqual(plain);
    expect(plain[0]?.turnId).toBe(0);
    const lifted = await memory.query('s', 'lighthouse', { ...options, lengthPrior: 2 });
    expect(lifted[0]?.turnId).toBe(1);
    const part = (turn: number) => lifted.find((hit) => hit.turnId === turn)?.explanation.contributions?.length as number;
    expect(part(1)).toBeGreaterThan(0);
    expect(part(0)).toBeLessThan(0);
    for (const hit of lifted) {
      const before = plain.find((other) => other.turnId === hit.turnId);
      expect(hit.score - (hit.explanation.contributions?.length ?? 0)).toBeCloseTo(before?.score as number, 9);
    }
    const wide = new Map(lifted.map((hit) => [hit.id, hit.score]));
    const narrow = await memory.query('s', 'lighthouse', { ...options, k: 1, capPerSource: 1, lengthPrior: 2 });
    for (const hit of narrow) expect(hit.score).toBe(wide.get(hit.id));
    await expect(memory.query('s', 'lighthouse', { lengthPrior: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});

describe('the length prior as the default', () => {
  // Two turns hold the query's word once: a short exclamation and a turn that tells what happened.
  const TURNS = ['Lighthouse!', 'We rowed out to the old lighthouse at dawn, found the keeper asleep on the stairs, and helped him paint the whole tower blue before the storm came in from the harbour.', 'The market sold bread.', 'Rain all week.'];
  it('puts the longer match first for a save\'s chunks, shows its length part, and leaves lengthPrior: 0 as before', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'none' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text })));
    // Feedback and the window sum off: with them the long turn's other words and neighbours would lift it anyway.
    const options = { k: 4, feedback: null, windowSum: null } as const;
    const byDefault = await memory.query('s', 'lighthouse', options);
    const off = await memory.query('s', 'lighthouse', { ...options, lengthPrior: 0 });
    expect(await memory.query('s', 'lighthouse', { ...options, lengthPrior: 1 })).toEqual(byDefault);
    expect(byDefault.map((hit) => hit.turnId).slice(0, 2)).toEqual([1, 0]);
    expect(off.map((hit) => hit.turnId).slice(0, 2)).toEqual([0, 1]);
    const part = (hits: typeof byDefault, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.length;
    expect(part(byDefault, 1)).toBeGreaterThan(0);
    expect(part(byDefault, 0)).toBeLessThan(0);
    expect(part(off, 1)).toBeUndefined();
    for (const hit of byDefault) {
      const before = off.find((other) => other.turnId === hit.turnId);
      expect(hit.score - (hit.explanation.contributions?.length ?? 0)).toBeCloseTo(before?.score as number, 9);
    }
    await memory.close();
  });

  it('is off by default for a search without the lexical arm (weights.lexical 0), on when asked', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'hashing' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text })));
    const vectorOnly = { k: 4, weights: { lexical: 0 } } as const;
    const byDefault = await memory.query('s', 'lighthouse', vectorOnly);
    expect(byDefault.length).toBeGreaterThan(0);
    expect(byDefault.every((hit) => hit.explanation.contributions?.length === undefined)).toBe(true);
    expect(await memory.query('s', 'lighthouse', { ...vectorOnly, lengthPrior: 0 })).toEqual(byDefault);
    const asked = await memory.query('s', 'lighthouse', { ...vectorOnly, lengthPrior: 1 });
    expect(asked.some((hit) => (hit.explanation.contributions?.length ?? 0) !== 0)).toBe(true);
    await memory.close();
  });
});
