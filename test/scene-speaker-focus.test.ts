// Scene speaker focus: the scene signal's lift kept for the named speaker's chunks (the component), and in a save.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { CORPUS_DEFAULTS } from '../src/retrieval/retrieval-defaults.js';
import { focusedSceneScore, optionalSceneSpeakerFocus } from '../src/retrieval/scene-speaker-focus.js';

/** Five slots said by speakers 1, 2, 0, 2, 1, with scene parts 1, 0.8, 0.6, -0.5, -0.2. */
const SPEAKERS = [1, 2, 0, 2, 1];
const SCENE = [1, 0.8, 0.6, -0.5, -0.2];
const source = { speakerOf: (slot: number) => SPEAKERS[slot] ?? 0 };
const scene = (slot: number) => SCENE[slot] ?? 0;
const all = (score: (slot: number) => number) => [0, 1, 2, 3, 4].map(score);

describe('focusedSceneScore', () => {
  it('takes the lift from the chunks another speaker said, keeps every lowering and the named speaker\'s and nobody\'s parts', () => {
    expect(all(focusedSceneScore(scene, source, new Set([1]), 1))).toEqual([1, 0, 0.6, -0.5, -0.2]);
    expect(all(focusedSceneScore(scene, source, new Set([1]), 0.5))).toEqual([1, 0.4, 0.6, -0.5, -0.2]);
    // Both speakers named: nothing changes; speaker 2 alone: speaker 1's lift goes.
    expect(all(focusedSceneScore(scene, source, new Set([1, 2]), 1))).toEqual(SCENE);
    expect(all(focusedSceneScore(scene, source, new Set([2]), 1))).toEqual([0, 0.8, 0.6, -0.5, -0.2]);
  });

  it('is the scene signal itself when off or when the query names nobody', () => {
    expect(focusedSceneScore(scene, source, new Set([1]), 0)).toBe(scene);
    expect(focusedSceneScore(scene, source, new Set(), 1)).toBe(scene);
  });
});

describe('optionalSceneSpeakerFocus', () => {
  it('takes a share from 0 to 1, null as 0, undefined as the fallback, and refuses the rest', () => {
    expect(optionalSceneSpeakerFocus(1, 0)).toBe(1);
    expect(optionalSceneSpeakerFocus(0.25, 0)).toBe(0.25);
    expect(optionalSceneSpeakerFocus(null, 0.5)).toBe(0);
    expect(optionalSceneSpeakerFocus(undefined, 0.5)).toBe(0.5);
    for (const bad of [-0.1, 1.5, Number.NaN, '1', {}]) expect(() => optionalSceneSpeakerFocus(bad, 0)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

/** Scene 1 is about the fair (Ann and Bo talk of it), scene 2 about taxes, scene 3 about the fair again, Ann alone. */
const TURNS = [
  { speaker: 'Ann', scene: 1, text: 'I baked three loaves for the county fair.' },
  { speaker: 'Bo', scene: 1, text: 'The county fair sounds like a lot of fun!' },
  { speaker: 'Ann', scene: 1, text: 'The fair judges loved the rye loaf.' },
  { speaker: 'Bo', scene: 2, text: 'Taxes are due on Monday, sadly.' },
  { speaker: 'Ann', scene: 2, text: 'I filed my taxes last week.' },
  { speaker: 'Ann', scene: 3, text: 'Next year I will enter a cake at the fair.' },
];

describe('scene speaker focus in a save', () => {
  let directory: string | undefined;
  afterEach(() => {
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });

  async function save() {
    directory = mkdtempSync(join(tmpdir(), 'mnemo-scene-focus-'));
    const memory = await openMemory({ path: join(directory, 'focus.db'), logger: silentLogger, embedder: 'static' });
    await memory.addMany(TURNS.map(({ text, speaker, scene }, turn) => ({ saveId: 's', turnId: turn, text, metadata: { speaker, scene } })));
    return memory;
  }

  it('takes the scene lift from the other speaker\'s turn in a matching scene, and ranks a query naming nobody as without it', async () => {
    const memory = await save();
    // A heavy scene signal, the other arms' extras off, so the scene's lift decides between Bo's and Ann's fair turns.
    const options = { k: 10, windowSum: null, feedback: null, softMatch: null, speakerSemanticWeight: 0, sceneWeight: 4, sceneSpeakerFocus: 0 } as const;
    const question = 'What did Ann bring to the fair?';
    const off = await memory.query('s', question, options);
    const on = await memory.query('s', question, { ...options, sceneSpeakerFocus: 1 });
    const scenePart = (hits: typeof off, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.scene;
    // Bo's fair turn is lifted by its scene without the focus, not with it; Ann's keep their lift.
    expect(scenePart(off, 1)).toBeGreaterThan(0);
    expect(scenePart(on, 1)).toBeUndefined();
    for (const turn of [0, 2]) expect(scenePart(on, turn)).toBe(scenePart(off, turn));
    // Every other part of every hit is unchanged: each score is the one without the focus, less what it took.
    for (const hit of on) {
      const before = off.find(({ id }) => id === hit.id);
      expect(hit.score).toBeCloseTo((before?.score as number) - ((scenePart(off, hit.turnId) ?? 0) - (scenePart(on, hit.turnId) ?? 0)), 12);
    }
    // Bo's reply ranked above Ann's first fair turn on its scene's lift; with the focus, hers comes first.
    const place = (hits: typeof off, turn: number) => hits.findIndex((hit) => hit.turnId === turn);
    expect(place(off, 1)).toBeLessThan(place(off, 0));
    expect(place(on, 0)).toBeLessThan(place(on, 1));
    const nobody = 'What happened at the county fair?';
    expect(await memory.query('s', nobody, { ...options, sceneSpeakerFocus: 1 })).toEqual(await memory.query('s', nobody, options));
    await expect(memory.query('s', question, { sceneSpeakerFocus: 2 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });

  it('is on (1) by default for narrative only, and 0 or null gives the ranking without it', async () => {
    expect(CORPUS_DEFAULTS.narrative.signals.sceneSpeakerFocus).toBe(1);
    for (const corpus of ['lore', 'recall'] as const) expect(CORPUS_DEFAULTS[corpus].signals.sceneSpeakerFocus).toBe(0);
    const memory = await save();
    const question = 'What did Ann bring to the fair?';
    const byDefault = await memory.query('s', question, { k: 6 });
    expect(byDefault).toEqual(await memory.query('s', question, { k: 6, sceneSpeakerFocus: 1 }));
    const off = await memory.query('s', question, { k: 6, sceneSpeakerFocus: 0 });
    expect(await memory.query('s', question, { k: 6, sceneSpeakerFocus: null })).toEqual(off);
    // Off, Bo's fair turn keeps its scene lift; by default it has none.
    const scenePart = (hits: typeof off, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.scene;
    expect(scenePart(off, 1)).toBeGreaterThan(0);
    expect(scenePart(byDefault, 1)).toBeUndefined();
    await memory.close();
  });
});
