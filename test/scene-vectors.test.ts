// The scene vector signal: each scene's centroid cosine with the query (the component), and the signal in a save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { sceneVectorScores } from '../src/retrieval/scene-vectors.js';

/** A source of four slots: 0 and 1 in scene 1, 2 in scene 2, 3 in no scene; slot 4 is in scene 3 without a vector. */
function source() {
  const vectors = [[1, 0], [0.6, 0.8], [0, 1], [1, 0], null].map((vector) => (vector === null ? null : Float32Array.from(vector)));
  const scenes = [1, 1, 2, 0, 3];
  return { context: { liveScenes: 3, sceneSlots: 4, sceneOf: (slot: number) => scenes[slot] ?? 0 }, slots: 5, vectorOf: (slot: number) => vectors[slot] ?? null };
}

describe('sceneVectorScores', () => {
  it('scores each chunk by the cosine of the query with its scene\'s normalised vector sum, weighted by members', () => {
    const scores = sceneVectorScores(source(), Float32Array.from([1, 0]));
    expect(scores).not.toBeNull();
    const centroid = 1.6 / Math.hypot(1.6, 0.8);
    expect(scores?.scoreOf(0)).toBeCloseTo(centroid, 12);
    expect(scores?.scoreOf(1)).toBe(scores?.scoreOf(0));
    expect(scores?.scoreOf(2)).toBe(0);
    expect([0, 1, 2, 3, 4].map((slot) => scores?.inGroup(slot))).toEqual([true, true, true, false, false]);
    // Scene 1 counts twice (two chunks with vectors), scene 2 once; scene 3 has none.
    const mean = (2 * centroid + 0) / 3;
    expect(scores?.mean).toBeCloseTo(mean, 12);
    expect(scores?.deviation).toBeCloseTo(Math.sqrt((2 * centroid ** 2) / 3 - mean ** 2), 12);
  });

  it('keeps what the filter refuses out of every centroid, and gives nothing without a scene or a query vector', () => {
    const bounded = sceneVectorScores(source(), Float32Array.from([1, 0]), (slot) => slot !== 1);
    expect(bounded?.scoreOf(0)).toBeCloseTo(1, 12);
    expect(sceneVectorScores(source(), null)).toBeNull();
    expect(sceneVectorScores({ ...source(), context: { liveScenes: 0, sceneSlots: 1, sceneOf: () => 0 } }, Float32Array.from([1, 0]))).toBeNull();
    expect(sceneVectorScores({ ...source(), vectorOf: () => null }, Float32Array.from([1, 0]))).toBeNull();
  });
});

describe('the scene vector signal in a save', () => {
  // Scene 1 is about the harbour (and one turn about bread); scene 2 about bread.
  const TURNS = [
    { scene: 1, text: 'The harbour boats rocked at their moorings.' },
    { scene: 1, text: 'Fishing boats left the harbour at dawn.' },
    { scene: 1, text: 'She baked bread.' },
    { scene: 2, text: 'The bread rose in the warm oven.' },
    { scene: 2, text: 'Flour covered the bakery table.' },
  ];

  it('gives every turn of a scene the same lift, explains it, is exact under a turn bound, and refuses a negative weight', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'static' });
    await memory.addMany(TURNS.map(({ text, ...metadata }, turn) => ({ saveId: 's', turnId: turn, text, metadata })));
    const options = { k: 5, windowSum: null, sceneWeight: 0, feedback: null, softMatch: null, adaptiveWeights: 0 } as const;
    const lift = (hits: Awaited<ReturnType<typeof memory.query>>, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.sceneVector;
    const off = await memory.query('s', 'harbour boats', options);
    expect(off.every((hit) => hit.explanation.contributions?.sceneVector === undefined)).toBe(true);
    const on = await memory.query('s', 'harbour boats', { ...options, sceneVectorWeight: 1 });
    // The bread turn of the harbour scene shares its scene's lift; the bakery scene's turns share a drop.
    expect(lift(on, 2)).toBeGreaterThan(0);
    expect(lift(on, 2)).toBe(lift(on, 0));
    expect(lift(on, 3)).toBeLessThan(0);
    expect(lift(on, 3)).toBe(lift(on, 4));
    // z-scored over the turns: 3 x the first scene's lift + 2 x the second's sum to 0.
    expect(3 * (lift(on, 0) as number) + 2 * (lift(on, 3) as number)).toBeCloseTo(0, 9);
    const half = await memory.query('s', 'harbour boats', { ...options, sceneVectorWeight: 0.5 });
    expect(lift(half, 0)).toBeCloseTo((lift(on, 0) as number) / 2, 12);
    // Within turn 2, only scene 1 exists: one scene, no deviation, nothing added.
    const bounded = await memory.query('s', 'harbour boats', { ...options, sceneVectorWeight: 1, maxTurnId: 2 });
    expect(bounded.every((hit) => hit.explanation.contributions?.sceneVector === undefined)).toBe(true);
    await expect(memory.query('s', 'harbour boats', { sceneVectorWeight: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});
