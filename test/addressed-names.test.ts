// Addressed names: which of the question's name terms the save uses to address a speaker (the rule), and the option in a save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { addressedNameTerms } from '../src/retrieval/addressed-names.js';

/** Six slots said by Bo (1) and Ann (2): "ann" is in slots 0, 1 (Bo's) and 2 (Ann's), "bo" in 3, 4 (Bo's) and 5 (Ann's); slot 6 removed. */
function source() {
  const speakers = [1, 1, 2, 1, 1, 2, 2];
  const postings: Record<string, number[]> = { ann: [0, 1, 2, 6], bo: [3, 4, 5], cake: [0, 2] };
  return { speakerOf: (slot: number) => speakers[slot] ?? 0, isAlive: (slot: number) => slot !== 6, forEachPosting: (term: string, visit: (slot: number) => void) => (postings[term] ?? []).forEach((slot) => visit(slot)) };
}

describe('addressedNameTerms', () => {
  it('drops a name term when under the share of the live chunks holding it are the named speaker\'s, never another term', () => {
    expect(addressedNameTerms(source(), ['ann', 'cake'], new Set(['ann']), new Set([2]), 0.5)).toEqual(new Set(['ann']));
    // Bo holds two of the three chunks naming him: kept at 0.5, dropped at 0.7.
    expect(addressedNameTerms(source(), ['bo', 'cake'], new Set(['bo']), new Set([1]), 0.5)).toEqual(new Set());
    expect(addressedNameTerms(source(), ['bo'], new Set(['bo']), new Set([1]), 0.7)).toEqual(new Set(['bo']));
    // Ann's own chunk 2 and the removed slot 6 (hers) would make it half: the removed one does not count.
    expect(addressedNameTerms(source(), ['ann'], new Set(['ann']), new Set([2]), 1 / 3)).toEqual(new Set());
    expect(addressedNameTerms(source(), ['ann'], new Set(['ann']), new Set([2]), 0.34)).toEqual(new Set(['ann']));
  });

  it('applies the filter, keeps a term no chunk holds, and drops nothing when off or no speaker is named', () => {
    expect(addressedNameTerms(source(), ['ann'], new Set(['ann']), new Set([2]), 0.5, (slot) => slot !== 0 && slot !== 1)).toEqual(new Set());
    expect(addressedNameTerms(source(), ['eve'], new Set(['eve']), new Set([3]), 0.5)).toEqual(new Set());
    expect(addressedNameTerms(source(), ['ann'], new Set(['ann']), new Set([2]), 0)).toEqual(new Set());
    expect(addressedNameTerms(source(), ['ann'], new Set(['ann']), new Set(), 0.5)).toEqual(new Set());
  });
});

describe('addressed names in a save', () => {
  const BARE = [
    { speaker: 'Bo', text: 'Ann, your lemon cake looks great!' },
    { speaker: 'Ann', text: 'Thanks! I baked it with fresh lemons this morning.' },
    { speaker: 'Bo', text: 'Ann, will you bake one for the party?' },
    { speaker: 'Ann', text: 'Maybe, if I have time.' },
  ];

  it('leaves the name to the speaker signal where others address the person, and keeps it where turns carry their speaker', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'static' });
    await memory.addMany(BARE.map(({ text, speaker }, turn) => ({ saveId: 'bare', turnId: turn, text, metadata: { speaker } })));
    await memory.addMany(BARE.map(({ text, speaker }, turn) => ({ saveId: 'said', turnId: turn, text: `${speaker} said, "${text}"`, metadata: { speaker } })));
    const options = { k: 4, windowSum: null, feedback: null, softMatch: null, adaptiveWeights: 0, lengthPrior: 0, sceneWeight: 0 } as const;
    const question = 'What did Ann bake?';
    const off = await memory.query('bare', question, options);
    const on = await memory.query('bare', question, { ...options, addressedNames: 0.5 });
    const lexical = (hits: typeof off, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.lexical as number;
    // Off, "ann" is matched where Bo speaks to her (turns 0 and 2); on, only "bake" is searched: Bo's question loses
    // what the name gave it, and Ann's own turn about baking draws level with it.
    expect(lexical(on, 2)).toBeLessThan(lexical(off, 2));
    expect(lexical(on, 1)).toBeGreaterThan(lexical(off, 1));
    expect(lexical(on, 1)).toBeCloseTo(lexical(on, 2), 12);
    // Every turn of "said" names its speaker: Ann's name is mostly in her own turns, so it is kept.
    const carried = await memory.query('said', question, options);
    expect((await memory.query('said', question, { ...options, addressedNames: 0.5 })).map(({ id, score }) => [id, score])).toEqual(carried.map(({ id, score }) => [id, score]));
    await expect(memory.query('bare', question, { addressedNames: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});
