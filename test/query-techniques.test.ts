// Scene diversity, query-adaptive arm weights and question scaffolding: each component, and each through a real save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { adaptiveFactor, lexicalCoverage, optionalAdaptiveWeight } from '../src/retrieval/adaptive-weights.js';
import { buildBm25 } from '../src/retrieval/bm25.js';
import { optionalScaffolding, QUESTION_SCAFFOLDING, withoutScaffolding } from '../src/retrieval/question-scaffolding.js';
import { MAX_SCENE_DIVERSITY_HEAD, optionalSceneDiversity, scenePenalties } from '../src/retrieval/scene-diversity.js';

/** An in-memory save holding the turns (turn ids in order, each turn's other fields as its metadata). */
async function seededSave(turns: readonly ({ text: string } & Record<string, string | number>)[], embedder: 'hashing' | null = null) {
  const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder });
  await memory.addMany(turns.map(({ text, ...metadata }, turn) => ({ saveId: 's', turnId: turn, text, metadata })));
  return memory;
}

describe('scenePenalties', () => {
  const scene = (slot: number) => (slot < 10 ? 7 : slot < 20 ? 8 : 0);
  it('lowers each further hit of a scene by the step, in greedy order', () => {
    const candidates = [{ slot: 1, score: 3 }, { slot: 2, score: 2.9 }, { slot: 3, score: 2.8 }, { slot: 11, score: 2 }];
    // slot 1 first; slot 2 at 2.9 - 1 = 1.9 is below slot 11 (2): 11 next, then 2 (1.9), then 3 (2.8 - 2 = 0.8).
    expect([...scenePenalties(candidates, scene, { step: 1, head: 50 })]).toEqual([0, 1, 2, 0]);
    expect([...scenePenalties(candidates, scene, { step: 0.05, head: 50 })]).toEqual([0, 0.05, 0.1, 0]);
  });
  it('never lowers a candidate in no scene, and leaves the candidates past the head alone', () => {
    const candidates = [{ slot: 20, score: 3 }, { slot: 21, score: 2 }, { slot: 1, score: 1 }, { slot: 2, score: 0.5 }];
    expect([...scenePenalties(candidates, scene, { step: 1, head: 50 })]).toEqual([0, 0, 0, 1]);
    const penalties = scenePenalties(candidates, scene, { step: 1, head: 3 });
    expect(penalties.length).toBe(3);
    expect([...penalties]).toEqual([0, 0, 0]);
  });
  it('sorting by the lowered scores gives the greedy order, whatever the scores (seeded)', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const candidates = Array.from({ length: 30 }, (_, slot) => ({ slot, score: 0 })).map((candidate, at, all) => ({ ...candidate, score: (all.length - at) / 10 + random() * 0.05 }));
      const sceneOfSlot = (slot: number) => (slot * 7 + round) % 4;
      const penalties = scenePenalties(candidates, sceneOfSlot, { step: 0.3, head: 30 });
      const lowered = candidates.map(({ slot, score }, at) => ({ slot, score: score - (penalties[at] as number) }));
      // Each scene's k-th hit (in the new order) carries k - 1 steps.
      const order = lowered.map((candidate, at) => ({ ...candidate, at })).sort((a, b) => b.score - a.score || a.at - b.at);
      const seen = new Map<number, number>();
      for (const { slot, at } of order) {
        const hits = seen.get(sceneOfSlot(slot)) ?? 0;
        expect(penalties[at]).toBeCloseTo(sceneOfSlot(slot) === 0 ? 0 : 0.3 * hits, 12);
        if (sceneOfSlot(slot) !== 0) seen.set(sceneOfSlot(slot), hits + 1);
      }
    }
  });
  it('checks its options', () => {
    expect(optionalSceneDiversity({ step: 0.5 }, null)).toEqual({ step: 0.5, head: 50 });
    expect(optionalSceneDiversity({ step: 0 }, null)).toBeUndefined();
    expect(optionalSceneDiversity(undefined, { step: 1, head: 10 })).toEqual({ step: 1, head: 10 });
    expect(optionalSceneDiversity(null, { step: 1, head: 10 })).toBeUndefined();
    expect(() => optionalSceneDiversity({ step: -1 }, null)).toThrow(/sceneDiversity: expected/);
    expect(() => optionalSceneDiversity({ step: 1, head: MAX_SCENE_DIVERSITY_HEAD + 1 }, null)).toThrow(/head\?: an integer from 1 to 200/);
    expect(() => optionalSceneDiversity(0.5, null)).toThrow(/sceneDiversity/);
  });
});

describe('query-adaptive arm weights', () => {
  const index = buildBm25(['the lantern glows', 'a cold night', 'the lantern again']);
  it('measures the share of the query terms\' idf the save holds', () => {
    expect(lexicalCoverage(index, ['lantern', 'night'])).toBe(1);
    expect(lexicalCoverage(index, [])).toBe(1);
    expect(lexicalCoverage(index, ['ember', 'comet'])).toBe(0);
    const partial = lexicalCoverage(index, ['lantern', 'ember']);
    expect(partial).toBeCloseTo(index.idf('lantern') / (index.idf('lantern') + index.idf('ember')), 12);
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(0.5);
    // Within a corpus of the first document alone, "night" is absent.
    const within = index.corpusWithin((slot) => slot === 0);
    expect(lexicalCoverage(index, ['night'], within)).toBe(0);
    expect(lexicalCoverage(index, ['lantern'], within)).toBe(1);
  });
  it('multiplies the meaning side by 1 + weight x (1 - coverage)', () => {
    expect(adaptiveFactor(1, 1)).toBe(1);
    expect(adaptiveFactor(1, 0.25)).toBe(1.75);
    expect(adaptiveFactor(2, 0)).toBe(3);
    expect(optionalAdaptiveWeight(undefined, 0)).toBe(0);
    expect(optionalAdaptiveWeight(null, 1)).toBe(0);
    expect(optionalAdaptiveWeight(1.5, 0)).toBe(1.5);
    expect(() => optionalAdaptiveWeight(-1, 0)).toThrow(/adaptiveWeights: expected a number from 0 to 10/);
    expect(() => optionalAdaptiveWeight('1', 0)).toThrow(/adaptiveWeights/);
  });
});

describe('question scaffolding', () => {
  it('drops the scaffolding terms and keeps the rest in order', () => {
    expect(withoutScaffolding(['kind', 'music', 'like', 'kind'], new Set(['kind']))).toEqual(['music', 'like']);
    expect(withoutScaffolding(['music'], new Set())).toEqual(['music']);
    expect(QUESTION_SCAFFOLDING).toContain('likely');
    expect(QUESTION_SCAFFOLDING).not.toContain('like');
  });
  it('checks its option', () => {
    expect(optionalScaffolding(undefined, null)).toBeUndefined();
    expect(optionalScaffolding(['likely'], null)).toEqual(['likely']);
    expect(optionalScaffolding([], null)).toBeUndefined();
    expect(optionalScaffolding(null, QUESTION_SCAFFOLDING)).toBeUndefined();
    expect(() => optionalScaffolding(['likely', ' '], null)).toThrow(/scaffolding: expected a list/);
    expect(() => optionalScaffolding('likely', null)).toThrow(/scaffolding/);
  });
});

describe('the techniques in a save', () => {
  // Scene 1 talks about the lantern three times, scene 2 once.
  const TURNS = [
    { scene: 1, text: 'The lantern hung by the door, the lantern.' },
    { scene: 1, text: 'Its lantern glass was cracked.' },
    { scene: 1, text: 'A lantern, she said, needs oil.' },
    { scene: 2, text: 'Later the lantern went out at sea.' },
    { scene: 2, text: 'The kind sailor sang all night.' },
    { scene: 2, text: 'Nobody slept on the boat.' },
  ];
  const seeded = () => seededSave(TURNS);

  it('scene diversity brings a second scene up, explains it, and keeps the top 2 the prefix of the top 6', async () => {
    const memory = await seeded();
    const plain = await memory.query('s', 'the lantern', { k: 6, windowSum: null, sceneWeight: 0 });
    expect(plain.slice(0, 3).map((hit) => hit.turnId).sort()).toEqual([0, 1, 2]);
    const diverse = await memory.query('s', 'the lantern', { k: 6, windowSum: null, sceneWeight: 0, sceneDiversity: { step: 5 } });
    expect(diverse.slice(0, 2).map((hit) => hit.turnId)).toEqual([plain[0]?.turnId, 3]);
    expect(diverse[1]?.explanation.contributions?.diversity).toBeUndefined();
    expect(diverse[2]?.explanation.contributions?.diversity).toBe(-5);
    const top2 = await memory.query('s', 'the lantern', { k: 2, windowSum: null, sceneWeight: 0, sceneDiversity: { step: 5 } });
    expect(top2.map((hit) => hit.turnId)).toEqual(diverse.slice(0, 2).map((hit) => hit.turnId));
    await expect(memory.query('s', 'the lantern', { sceneDiversity: { step: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });

  it('question scaffolding drops its words from the query terms only', async () => {
    const memory = await seeded();
    const options = { k: 6, windowSum: null, sceneWeight: 0, feedback: null } as const;
    const matched = (hits: Awaited<ReturnType<typeof memory.query>>) => hits.filter((hit) => hit.explanation.lexical !== null).map((hit) => hit.turnId).sort();
    // "kind" matches the sailor's turn; dropped as scaffolding, the query is "lantern" alone.
    expect(matched(await memory.query('s', 'what kind of lantern', options))).toEqual([0, 1, 2, 3, 4]);
    const dropped = await memory.query('s', 'what kind of lantern', { ...options, scaffolding: ['kind'] });
    const bare = await memory.query('s', 'lantern', options);
    expect(matched(dropped)).toEqual([0, 1, 2, 3]);
    expect(dropped.map((hit) => [hit.turnId, hit.score])).toEqual(bare.map((hit) => [hit.turnId, hit.score]));
    await expect(memory.query('s', 'lantern', { scaffolding: [''] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });

  it('adaptive weights (on by default) scale the semantic arm by the words the save lacks, and change nothing for covered queries', async () => {
    const memory = await seededSave(TURNS, 'hashing');
    const covered = await memory.query('s', 'lantern night', { k: 6, adaptiveWeights: 0 });
    const coveredAdaptive = await memory.query('s', 'lantern night', { k: 6 });
    expect(coveredAdaptive.map((hit) => [hit.turnId, hit.score])).toEqual(covered.map((hit) => [hit.turnId, hit.score]));
    const half = await memory.query('s', 'lantern comet', { k: 6, adaptiveWeights: null });
    // The default for a save's chunks is 1.
    const halfAdaptive = await memory.query('s', 'lantern comet', { k: 6 });
    expect((await memory.query('s', 'lantern comet', { k: 6, adaptiveWeights: 1 })).map((hit) => hit.score)).toEqual(halfAdaptive.map((hit) => hit.score));
    const semantic = (hits: typeof half, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.semantic as number;
    const ratio = semantic(halfAdaptive, 0) / semantic(half, 0);
    expect(ratio).toBeGreaterThan(1);
    expect(ratio).toBeLessThan(2);
    expect(semantic(halfAdaptive, 5) / semantic(half, 5)).toBeCloseTo(ratio, 9);
    await memory.close();
  });
});

describe('the speaker profile signal', () => {
  // Ann talks of sailing twice; Rowan once, and of bread.
  const TURNS = [
    { speaker: 'Ann', scene: 1, text: 'I went sailing at dawn.' },
    { speaker: 'Rowan', scene: 1, text: 'I baked bread all morning.' },
    { speaker: 'Ann', scene: 2, text: 'The sailing club meets on Friday.' },
    { speaker: 'Rowan', scene: 2, text: 'Sailing makes me sick, and the bread burnt.' },
    { speaker: 'Ann', scene: 3, text: 'The harbour was calm.' },
  ];
  const seeded = () => seededSave(TURNS);

  it('scores each turn by everything its speaker said, z-scored over the turns, and explains it', async () => {
    const memory = await seeded();
    const options = { k: 5, windowSum: null, sceneWeight: 0, feedback: null, softMatch: null } as const;
    const off = await memory.query('s', 'sailing', options);
    const on = await memory.query('s', 'sailing', { ...options, profileWeight: 1 });
    const profile = (hits: typeof on, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.profile;
    expect(off.every((hit) => hit.explanation.contributions?.profile === undefined)).toBe(true);
    // Ann's turns all get the same lift (her harbour turn too: it is scored, it is not brought); Rowan's the same drop.
    expect(profile(on, 0)).toBeGreaterThan(0);
    expect(profile(on, 0)).toBe(profile(on, 2));
    expect(profile(on, 3)).toBeLessThan(0);
    // Weighted by the turns: 3 of Ann's at +z, 2 of Rowan's at -z' sum to 0.
    expect(3 * (profile(on, 0) as number) + 2 * (profile(on, 3) as number)).toBeCloseTo(0, 12);
    expect(on[0]?.turnId).toBe(0);
    await memory.close();
  });

  it('is exact under a turn bound and gives nothing with one speaker', async () => {
    const memory = await seeded();
    const options = { k: 5, windowSum: null, sceneWeight: 0, feedback: null, softMatch: null, profileWeight: 1, maxTurnId: 0 } as const;
    // Within turn 0 only Ann speaks: no profile signal.
    const bounded = await memory.query('s', 'sailing', options);
    expect(bounded.map((hit) => hit.turnId)).toEqual([0]);
    expect(bounded[0]?.explanation.contributions?.profile).toBeUndefined();
    await expect(memory.query('s', 'sailing', { profileWeight: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});
