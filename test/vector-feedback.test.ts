// Vector feedback: the moved query vector, its option, and the semantic arm searched again with it in a save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import { hybridSearch } from '../src/retrieval/hybrid-search.js';
import { MAX_VECTOR_FEEDBACK_HEAD, feedbackQueryVector, optionalVectorFeedback } from '../src/retrieval/vector-feedback.js';

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  for (let index = 0; index < a.length; index++) dot += (a[index] as number) * (b[index] as number);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
};

describe('feedbackQueryVector', () => {
  it('moves the unit query toward the unit centroid by the weight, and returns a unit vector', () => {
    const moved = feedbackQueryVector(new Float32Array([2, 0]), [new Float32Array([0, 3])], 1) as Float32Array;
    expect(moved[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(moved[1]).toBeCloseTo(Math.SQRT1_2, 6);
    const half = feedbackQueryVector(new Float32Array([1, 0]), [new Float32Array([0, 1])], 0.5) as Float32Array;
    expect((half[1] as number) / (half[0] as number)).toBeCloseTo(0.5, 6);
    expect(Math.hypot(...half)).toBeCloseTo(1, 6);
  });
  it('averages the head with each vector at unit length, skipping the missing and the mismatched', () => {
    const moved = feedbackQueryVector(new Float32Array([1, 0, 0]), [new Float32Array([0, 10, 0]), null, new Float32Array([0, 0, 1]), new Float32Array([1, 1])], 1) as Float32Array;
    // The centroid of (0,1,0) and (0,0,1) whatever their lengths: its two parts equal.
    expect(moved[1]).toBeCloseTo(moved[2] as number, 6);
    expect(moved[0]).toBeCloseTo(Math.SQRT1_2, 6);
  });
  it('is the unit query at weight 0, and null with nothing to move toward', () => {
    expect([...(feedbackQueryVector(new Float32Array([3, 4]), [new Float32Array([1, 0])], 0) as Float32Array)].map((x) => Number(x.toFixed(6)))).toEqual([0.6, 0.8]);
    expect(feedbackQueryVector(new Float32Array([1, 0]), [], 1)).toBeNull();
    expect(feedbackQueryVector(new Float32Array([1, 0]), [null, new Float32Array([0, 0])], 1)).toBeNull();
    expect(feedbackQueryVector(new Float32Array([1, 0]), [new Float32Array([-1, 0])], 1)).toBeNull();
  });
  it('brings the query nearer the head than it was', () => {
    const query = new Float32Array([1, 0.2, 0]);
    const head = [new Float32Array([0.3, 1, 0.1]), new Float32Array([0.1, 0.8, 0.4])];
    const moved = feedbackQueryVector(query, head, 0.5) as Float32Array;
    for (const vector of head) expect(cosine(moved, vector)).toBeGreaterThan(cosine(query, vector));
  });
});

describe('optionalVectorFeedback', () => {
  it('checks its options', () => {
    expect(optionalVectorFeedback({ weight: 0.5 }, null)).toEqual({ weight: 0.5, head: 5, mix: 1 });
    expect(optionalVectorFeedback({ weight: 0.5, head: 3, mix: 0.5 }, null)).toEqual({ weight: 0.5, head: 3, mix: 0.5 });
    expect(optionalVectorFeedback({ weight: 0 }, null)).toBeUndefined();
    expect(optionalVectorFeedback(undefined, { weight: 1, head: 3, mix: 1 })).toEqual({ weight: 1, head: 3, mix: 1 });
    expect(optionalVectorFeedback(null, { weight: 1, head: 3, mix: 1 })).toBeUndefined();
    expect(() => optionalVectorFeedback({ weight: 1, mix: -0.5 }, null)).toThrow(/mix\?: a number >= 0/);
    expect(() => optionalVectorFeedback({ weight: -1 }, null)).toThrow(/vectorFeedback: expected/);
    expect(() => optionalVectorFeedback({ weight: 1, head: MAX_VECTOR_FEEDBACK_HEAD + 1 }, null)).toThrow(/head\?: an integer from 1 to 100/);
    expect(() => optionalVectorFeedback({ weight: 1, head: 1.5 }, null)).toThrow(/vectorFeedback/);
    expect(() => optionalVectorFeedback(0.5, null)).toThrow(/vectorFeedback/);
  });
});

describe('vector feedback in a save', () => {
  const TURNS = ['The lantern hung by the door.', 'Its glass was cracked.', 'She said it needs oil.', 'The lantern went out at sea.', 'The sailor sang all night.', 'Nobody slept on the boat.', 'A storm came at dawn.'];
  it('fuses in a second semantic arm from the moved vector, changes no other part, and is deterministic', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'hashing' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text })));
    const options = { k: 7, windowSum: null, feedback: null, adaptiveWeights: 0 } as const;
    const plain = await memory.query('s', 'lantern storm', options);
    expect(await memory.query('s', 'lantern storm', { ...options, vectorFeedback: { weight: 0 } })).toEqual(plain);
    expect(await memory.query('s', 'lantern storm', { ...options, vectorFeedback: null })).toEqual(plain);
    const settings = { weight: 0.5, head: 2, mix: 1 };
    const moved = await memory.query('s', 'lantern storm', { ...options, vectorFeedback: settings });
    expect(await memory.query('s', 'lantern storm', { ...options, vectorFeedback: settings })).toEqual(moved);
    expect(moved.length).toBe(plain.length);
    const part = (hits: typeof plain, turn: number, kind: 'semantic' | 'lexical' | 'vectorFeedback') => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.[kind] as number;
    for (const turn of TURNS.keys()) {
      expect(part(moved, turn, 'lexical')).toBe(part(plain, turn, 'lexical'));
      expect(part(moved, turn, 'semantic')).toBe(part(plain, turn, 'semantic'));
      // What the arm adds is the only change: the fused score minus its part is the plain score.
      expect(part(moved, turn, 'vectorFeedback')).toEqual(expect.any(Number));
      const hit = moved.find((other) => other.turnId === turn);
      expect((hit?.score as number) - part(moved, turn, 'vectorFeedback')).toBeCloseTo(plain.find((other) => other.turnId === turn)?.score as number, 9);
    }
    // The moved arm is standardised over the whole save: its parts, unweighted, do not all equal the semantic arm's.
    expect([...TURNS.keys()].some((turn) => Math.abs(part(moved, turn, 'vectorFeedback') / settings.weight - part(plain, turn, 'semantic')) > 1e-6)).toBe(true);
    // A heavier weight scales the arm's parts and nothing else.
    const heavier = await memory.query('s', 'lantern storm', { ...options, vectorFeedback: { ...settings, weight: 1 } });
    for (const turn of TURNS.keys()) expect(part(heavier, turn, 'vectorFeedback')).toBeCloseTo(2 * part(moved, turn, 'vectorFeedback'), 9);
    await expect(memory.query('s', 'lantern', { vectorFeedback: { weight: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});

describe('vector feedback over neighbour context vectors', () => {
  // Six unit vectors in five dimensions, none a mix of the others: every head row's context vector differs.
  const VECTORS = [
    [1, 0.2, 0, 0.1, 0],
    [0.1, 1, 0.3, 0, 0],
    [0, 0.2, 1, 0, 0.4],
    [0.5, 0, 0.1, 1, 0],
    [0, 0.3, 0, 0.2, 1],
    [0.7, 0.7, 0, 0, 0.1],
  ];
  const TEXTS = ['lantern oil', 'lantern glass', 'a storm', 'the sailor sang', 'the boat rocked', 'dawn came'];
  it('moves the query toward the centroid of every head row, not the last one read', async () => {
    const index = new CorpusIndex(0, { neighbourWeight: 0.5 });
    index.add(TEXTS.map((text, position) => ({ id: `t${position}`, position, kind: 'narrative', text, embedding: new Float32Array(VECTORS[position] as number[]) })));
    const queryVector = new Float32Array([0.9, 0.4, 0.1, 0, 0.2]);
    const base = { index, queryText: 'lantern', queryVector, k: 6, capPerSource: 0, fusion: 'zscore' as const, loadTexts: async () => new Map<string, string>() };
    const plain = await hybridSearch(base);
    const settings = { weight: 1, head: 3, mix: 1 };
    const moved = await hybridSearch({ ...base, vectorFeedback: settings });
    // The centroid the arm should use: each head row's context vector, copied before the next is read.
    const head = plain.slice(0, settings.head).map(({ id }) => index.semanticVectorOf(index.slotOf(id) as number)?.slice() ?? null);
    const expected = feedbackQueryVector(queryVector, head, settings.mix) as Float32Array;
    // The arm's part is an affine map (its z-score) of each chunk's cosine with the moved vector.
    const points = moved.map(({ id, explanation }) => [index.semanticScoreOf(expected, index.slotOf(id) as number) as number, explanation.contributions?.vectorFeedback as number] as const);
    const [[x0, y0], [x1, y1]] = [points[0] as readonly [number, number], points[points.length - 1] as readonly [number, number]];
    const slope = (y1 - y0) / (x1 - x0);
    expect(slope).toBeGreaterThan(0);
    for (const [x, y] of points) expect(y).toBeCloseTo(y0 + slope * (x - x0), 6);
  });
});
