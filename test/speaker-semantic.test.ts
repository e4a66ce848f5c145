// The speaker semantic part: the semantic arm counted again for the named speakers' chunks (the component), and in a save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { CORPUS_DEFAULTS } from '../src/retrieval/retrieval-defaults.js';
import { speakerSemanticPart } from '../src/retrieval/speaker-semantic.js';

/** Five slots said by speakers 1, 1, 2, 1, 0; the semantic arm returned slots 4, 2, 1, 0 and scores slot 3 exactly. */
function source() {
  const speakers = [1, 1, 2, 1, 0];
  const semantic = [{ slot: 4, score: 0.99 }, { slot: 2, score: 0.95 }, { slot: 1, score: 0.9 }, { slot: 0, score: 0.2 }];
  const exact = [0.2, 0.9, 0.95, 0.5, 0.99];
  return { speakerOf: (slot: number) => speakers[slot] ?? 0, semantic, exact: (slot: number) => exact[slot] ?? null };
}

describe('speakerSemanticPart', () => {
  it('keeps the semantic arm\'s results the named speakers said, in its order, and scores nobody else\'s chunk', () => {
    const part = speakerSemanticPart(source(), new Set([1]));
    expect(part?.results).toEqual([{ slot: 1, score: 0.9 }, { slot: 0, score: 0.2 }]);
    // Slot 3 is theirs though the arm did not return it (scored exactly); slot 2 is another speaker's, slot 4 nobody's.
    expect([0, 1, 2, 3, 4].map((slot) => part?.scoreOf(slot) ?? null)).toEqual([0.2, 0.9, null, 0.5, null]);
  });

  it('applies the filter, takes several speakers, and gives nothing when no speaker is named or none of theirs ranks', () => {
    const part = speakerSemanticPart(source(), new Set([1, 2]), (slot) => slot !== 1);
    expect(part?.results.map(({ slot }) => slot)).toEqual([2, 0]);
    expect(part?.scoreOf(1)).toBeNull();
    expect(part?.scoreOf(3)).toBe(0.5);
    expect(speakerSemanticPart(source(), new Set())).toBeNull();
    expect(speakerSemanticPart(source(), new Set([3]))).toBeNull();
    expect(speakerSemanticPart({ ...source(), semantic: [{ slot: 4, score: 0.99 }] }, new Set([1]))).toBeNull();
  });
});

/** Bo's turns are about the ocean, Ann's about a cat, the sea and taxes: a question names Ann. */
const TURNS = [
  { speaker: 'Bo', text: 'Ocean waves crash on the shore every night.' },
  { speaker: 'Ann', text: 'My cat sleeps all day on the sofa.' },
  { speaker: 'Bo', text: 'The ocean waves were huge today.' },
  { speaker: 'Ann', text: 'I love sailing boats out at sea.' },
  { speaker: 'Bo', text: 'Ocean waves and ocean tides, all week.' },
  { speaker: 'Ann', text: 'Taxes are due on Monday, sadly.' },
];

describe('the speaker semantic part in a save', () => {
  it('adds weight x its semantic part to each chunk the named speaker said, 0 to the others, and refuses a negative weight', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'static' });
    await memory.addMany(TURNS.map(({ text, speaker }, turn) => ({ saveId: 's', turnId: turn, text, metadata: { speaker } })));
    // The part (a default, 0.5) off for the baseline.
    const options = { k: 10, windowSum: null, feedback: null, softMatch: null, adaptiveWeights: 0, speakerSemanticWeight: 0 } as const;
    const question = 'What does Ann think of ocean waves?';
    const off = await memory.query('s', question, options);
    expect(off).toHaveLength(6);
    expect(off.every((hit) => hit.explanation.contributions?.speakerSemantic === undefined)).toBe(true);
    for (const weight of [1, 0.5]) {
      const on = await memory.query('s', question, { ...options, speakerSemanticWeight: weight });
      expect(on).toHaveLength(6);
      for (const hit of on) {
        const contributions = hit.explanation.contributions ?? {};
        const before = off.find(({ id }) => id === hit.id);
        const part = hit.turnId % 2 === 1 ? weight * (contributions.semantic as number) : 0;
        expect(contributions.speakerSemantic).toBeCloseTo(part, 12);
        expect(hit.score).toBeCloseTo((before?.score as number) + part, 12);
      }
    }
    // Ann's sea turn, nearest the question in meaning among hers, gains; her tax turn loses.
    const on = await memory.query('s', question, { ...options, speakerSemanticWeight: 1 });
    const part = (turn: number) => on.find((hit) => hit.turnId === turn)?.explanation.contributions?.speakerSemantic as number;
    expect(part(3)).toBeGreaterThan(part(5));
    // A question naming nobody is ranked as without the option.
    const nobody = await memory.query('s', 'ocean waves', { ...options, speakerSemanticWeight: 1 });
    expect(nobody.map(({ id, score }) => [id, score])).toEqual((await memory.query('s', 'ocean waves', options)).map(({ id, score }) => [id, score]));
    expect(nobody.every((hit) => hit.explanation.contributions?.speakerSemantic === undefined)).toBe(true);
    await expect(memory.query('s', question, { speakerSemanticWeight: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});

describe('the speaker semantic part as the default', () => {
  it('is 0.5 for a save\'s chunks and 0 for the lore book and recall', () => {
    expect(CORPUS_DEFAULTS.narrative.signals.speakerSemanticWeight).toBe(0.5);
    expect(CORPUS_DEFAULTS.lore.signals.speakerSemanticWeight).toBe(0);
    expect(CORPUS_DEFAULTS.recall.signals.speakerSemanticWeight).toBe(0);
  });

  it('ranks as 0.5 with every other default on, and 0 or null gives the ranking without the part', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'static' });
    await memory.addMany(TURNS.map(({ text, speaker }, turn) => ({ saveId: 's', turnId: turn, text, metadata: { speaker } })));
    const question = 'What does Ann think of ocean waves?';
    const byDefault = await memory.query('s', question, { k: 6 });
    expect(byDefault).toEqual(await memory.query('s', question, { k: 6, speakerSemanticWeight: 0.5 }));
    const off = await memory.query('s', question, { k: 6, speakerSemanticWeight: 0 });
    expect(await memory.query('s', question, { k: 6, speakerSemanticWeight: null })).toEqual(off);
    expect(off.every((hit) => hit.explanation.contributions?.speakerSemantic === undefined)).toBe(true);
    // Ann's turns (odd) carry the part; the off ranking is the default's scores without it.
    for (const hit of byDefault) {
      const part = hit.explanation.contributions?.speakerSemantic as number;
      if (hit.turnId % 2 === 1) expect(part).not.toBe(0);
      else expect(part).toBe(0);
      expect(off.find(({ id }) => id === hit.id)?.score).toBeCloseTo(hit.score - part, 12);
    }
    await memory.close();
  });
});
