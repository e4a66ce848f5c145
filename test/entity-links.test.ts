// Entity links: the proper nouns of a text, the link terms of a head, the option, and the arm through a real save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { buildBm25 } from '../src/retrieval/bm25.js';
import { MAX_ENTITY_LINK_HEAD, MAX_ENTITY_LINK_TERMS, linkTerms, optionalEntityLinks, properNouns } from '../src/retrieval/entity-links.js';

describe('properNouns', () => {
  it('keeps the words capitalised inside a sentence, each once, in order', () => {
    expect(properNouns('Yesterday we drove to Rome with Ana. Then we ate in Rome.')).toEqual(['Rome', 'Ana']);
    expect(properNouns('we met Kaël and the LGBTQ group at Café Ñandú')).toEqual(['Kaël', 'LGBTQ', 'Café', 'Ñandú']);
  });
  it('leaves out first words, words after quotes, brackets and colons, single letters and numbers', () => {
    expect(properNouns('The bridge fell. Nobody saw it! Why? "Really" (Maybe) [Shares a photo] note: Tomorrow')).toEqual([]);
    expect(properNouns('so I said 2023 was A good year')).toEqual([]);
    expect(properNouns('first line\nSecond line with Oslo')).toEqual(['Oslo']);
    expect(properNouns('no capitals here at all')).toEqual([]);
    expect(properNouns('')).toEqual([]);
  });
});

describe('linkTerms', () => {
  const texts = ['we drove to rome', 'rome was hot', 'ana sings', 'a cold night', 'the may fair', 'may rain', 'may sun', 'a long may day', 'the lantern glows', 'the bridge fell'];
  const bm25 = buildBm25(texts);
  const analyze = (word: string) => [word.toLowerCase()];
  it('analyzes the nouns and keeps the rarest, leaving out the query terms and the ignored ones', () => {
    expect(linkTerms(bm25, ['Rome', 'Ana'], analyze, [], new Set(), 5)).toEqual(['ana', 'rome']);
    expect(linkTerms(bm25, ['Rome', 'Ana'], analyze, [], new Set(), 1)).toEqual(['ana']);
    expect(linkTerms(bm25, ['Rome', 'Ana'], analyze, ['rome'], new Set(), 5)).toEqual(['ana']);
    expect(linkTerms(bm25, ['Rome', 'Ana', 'Ana'], analyze, [], new Set(['ana']), 5)).toEqual(['rome']);
  });
  it('leaves out a noun no document holds and one too common to link anything', () => {
    expect(linkTerms(bm25, ['Comet', 'Rome'], analyze, [], new Set(), 5)).toEqual(['rome']);
    // 'may' is in 4 of 10 documents: over both 5% of them and 2.
    expect(linkTerms(bm25, ['May', 'Rome'], analyze, [], new Set(), 5)).toEqual(['rome']);
    expect(linkTerms(bm25, ['Rome'], () => [], [], new Set(), 5)).toEqual([]);
  });
});

describe('optionalEntityLinks', () => {
  it('checks its options', () => {
    expect(optionalEntityLinks({ weight: 0.3 }, null)).toEqual({ weight: 0.3, head: 5, terms: 5 });
    expect(optionalEntityLinks({ weight: 0.3, head: 10, terms: 3 }, null)).toEqual({ weight: 0.3, head: 10, terms: 3 });
    expect(optionalEntityLinks({ weight: 0 }, null)).toBeUndefined();
    expect(optionalEntityLinks(undefined, { weight: 1, head: 3, terms: 2 })).toEqual({ weight: 1, head: 3, terms: 2 });
    expect(optionalEntityLinks(null, { weight: 1, head: 3, terms: 2 })).toBeUndefined();
    expect(() => optionalEntityLinks({ weight: -1 }, null)).toThrow(/entityLinks: expected/);
    expect(() => optionalEntityLinks({ weight: 1, head: MAX_ENTITY_LINK_HEAD + 1 }, null)).toThrow(/head\?: an integer from 1 to 50/);
    expect(() => optionalEntityLinks({ weight: 1, terms: MAX_ENTITY_LINK_TERMS + 1 }, null)).toThrow(/terms\?: an integer from 1 to 50/);
    expect(() => optionalEntityLinks({ weight: 1, terms: 0 }, null)).toThrow(/entityLinks/);
    expect(() => optionalEntityLinks({ weight: 1, head: 2.5 }, null)).toThrow(/entityLinks/);
    expect(() => optionalEntityLinks('0.3', null)).toThrow(/entityLinks/);
  });
});

describe('entity links in a save', () => {
  const TURNS = [
    'Yesterday I brought a lantern to the festival with Ana.',
    'The weather was cold.',
    'Later we all visited Ana at her flat.',
    'My sister paints birds.',
    'The bridge fell last winter.',
    'Nobody slept on the boat.',
    'We talked to Rowan about the harvest.',
    'A storm came at dawn.',
  ];
  const SPEAKERS = ['Rowan', 'Mira'];
  it('fuses in the BM25 of the head\'s proper nouns, leaves the other parts alone, and is deterministic', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'hashing' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text, metadata: { speaker: SPEAKERS[turn % 2] as string } })));
    const options = { k: 8, windowSum: null, feedback: null, adaptiveWeights: 0, softMatch: null } as const;
    const plain = await memory.query('s', 'lantern festival', options);
    expect(await memory.query('s', 'lantern festival', { ...options, entityLinks: null })).toEqual(plain);
    expect(await memory.query('s', 'lantern festival', { ...options, entityLinks: { weight: 0 } })).toEqual(plain);
    const settings = { weight: 1, head: 1, terms: 5 };
    const linked = await memory.query('s', 'lantern festival', { ...options, entityLinks: settings });
    expect(await memory.query('s', 'lantern festival', { ...options, entityLinks: settings })).toEqual(linked);
    expect(linked[0]?.turnId).toBe(0);
    type Kind = 'lexical' | 'semantic' | 'entityLinks';
    const part = (hits: typeof plain, turn: number, kind: Kind) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.[kind] as number;
    // Ana is linked: the turn naming her, which shares no word with the question, gains the most from the arm.
    const gains = [...TURNS.keys()].map((turn) => part(linked, turn, 'entityLinks'));
    expect(Math.max(...gains.filter((_gain, turn) => turn !== 0 && turn !== 2))).toBeLessThan(part(linked, 2, 'entityLinks'));
    expect(linked.findIndex((hit) => hit.turnId === 2)).toBeLessThan(plain.findIndex((hit) => hit.turnId === 2));
    for (const turn of TURNS.keys()) {
      expect(part(linked, turn, 'lexical')).toBe(part(plain, turn, 'lexical'));
      expect(part(linked, turn, 'semantic')).toBe(part(plain, turn, 'semantic'));
      const hit = linked.find((other) => other.turnId === turn);
      expect((hit?.score as number) - part(linked, turn, 'entityLinks')).toBeCloseTo(plain.find((other) => other.turnId === turn)?.score as number, 9);
    }
    // A heavier weight scales the arm's parts and nothing else.
    const heavier = await memory.query('s', 'lantern festival', { ...options, entityLinks: { ...settings, weight: 2 } });
    for (const turn of TURNS.keys()) expect(part(heavier, turn, 'entityLinks')).toBeCloseTo(2 * part(linked, turn, 'entityLinks'), 9);
    await expect(memory.query('s', 'lantern', { entityLinks: { weight: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
  it('links no speaker: a head naming only a speaker changes nothing', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'hashing' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text, metadata: { speaker: SPEAKERS[turn % 2] as string } })));
    const options = { k: 8, windowSum: null, feedback: null, adaptiveWeights: 0, softMatch: null } as const;
    const plain = await memory.query('s', 'harvest', options);
    expect(plain[0]?.turnId).toBe(6);
    expect(await memory.query('s', 'harvest', { ...options, entityLinks: { weight: 1, head: 1 } })).toEqual(plain);
    await memory.close();
  });
});
