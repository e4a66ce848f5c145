// Lore a character may not know weighs on none of its scores: BM25 and z-score statistics are those of what it may see.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import type { LoreEntryInput } from '../src/lore/lore-schema.js';
import type { LoreHit, LoreSearchOptions } from '../src/lore/lore-book.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { Bm25Index } from '../src/retrieval/bm25.js';
import { tempDir } from './helpers.js';

const dir = tempDir('mnemo-hidden-lore-');

/** What a character can see: continental lore and the entries of Millholm. */
const VISIBLE: LoreEntryInput[] = [
  { source: 'world', title: 'The old well', content: 'The old well of Millholm is dry; the well keeper says the water went under the hill.', scopeLevel: 'continental', scopeTags: [] },
  { source: 'world', title: 'Harvest fair', content: 'Every autumn Millholm holds a harvest fair by the well and the mill.', scopeLevel: 'continental', scopeTags: [] },
  { source: 'world', title: 'The mill', content: 'The mill grinds barley for three villages; the miller is a quiet man.', scopeLevel: 'regional', scopeTags: ['millholm'] },
  { source: 'world', title: 'Hill paths', content: 'Paths over the hill lead to the quarry and to the well of the shepherds.', scopeLevel: 'local', scopeTags: ['millholm'] },
];

/** Secrets of a guild the character is not in, full of the words it searches for. */
const HIDDEN: LoreEntryInput[] = Array.from({ length: 20 }, (_, index) => ({
  source: 'guild',
  title: `Secret ${index}`,
  content: `The guild hides its gold in the well, well below the water line; cache ${index} lies under the hill by the mill.`,
  scopeLevel: 'faction',
  scopeTags: ['thieves_guild'],
}));

const SEARCHES: { query: string; options: LoreSearchOptions }[] = [
  { query: 'the old well under the hill', options: { tags: ['millholm'], k: 10 } },
  { query: 'well water', options: { tags: ['millholm'], k: 10, fusion: 'rrf' } },
  { query: 'mill and well', options: { tags: ['millholm'], k: 10, feedback: { documents: 2, terms: 3, weight: 0.5 } } },
  { query: 'harvest by the well', options: { tags: [], k: 10, focusTerms: ['Millholm'] } },
];

let memory: Mnemo | null = null;
afterEach(async () => {
  await memory?.close();
  memory = null;
});

async function searchAll(book: Mnemo, entries: LoreEntryInput[]): Promise<{ title: string; score: number; explanation: LoreHit['explanation'] }[][]> {
  await book.lore.importEntries(entries);
  const answers = [];
  for (const { query, options } of SEARCHES) {
    answers.push((await book.lore.search(query, options)).map(({ title, score, explanation }) => ({ title, score, explanation })));
  }
  return answers;
}

describe('hidden lore and scores', () => {
  it('gives a character the same hits, scores and explanations whether or not the book holds entries it may not know', async () => {
    const open = (name: string) => openMemory({ path: join(dir, name), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
    memory = await open('visible.db');
    const alone = await searchAll(memory, VISIBLE);
    await memory.close();
    memory = await open('mixed.db');
    // The hidden entries come first and last, so slots differ as well as statistics.
    const mixed = await searchAll(memory, [...HIDDEN.slice(0, 10), ...VISIBLE, ...HIDDEN.slice(10)]);
    expect(alone.every((hits) => hits.length > 0)).toBe(true);
    expect(mixed).toEqual(alone);
    expect(JSON.stringify(mixed)).not.toContain('Secret');
    // Someone who may read the whole book (an admin, ignoreScope) still ranks with every entry's statistics.
    const everything = await memory.lore.search('the old well under the hill', { ignoreScope: true, k: 30 });
    expect(everything.some((hit) => hit.title.startsWith('Secret'))).toBe(true);
    const well = everything.find((hit) => hit.title === 'The old well');
    expect(well?.explanation.lexical?.score).not.toBe(alone[0]?.find((hit) => hit.title === 'The old well')?.explanation.lexical?.score);
  });

  it('scores within a filter as an index of the filtered documents alone, and unfiltered as before', () => {
    const texts = ['the well is dry', 'the well keeper', 'gold in the well well well', 'gold under the hill', 'the mill'];
    const hidden = new Set([2, 3]);
    const full = new Bm25Index();
    for (const text of texts) full.add(text);
    const visibleOnly = new Bm25Index();
    for (const [slot, text] of texts.entries()) if (!hidden.has(slot)) visibleOnly.add(text);
    const within = (slot: number) => !hidden.has(slot);
    const corpus = full.corpusWithin(within);
    expect(corpus.count).toBe(3);
    const scoped = full.search(['well', 'keeper'], 10, within, undefined, undefined, corpus);
    const expected = visibleOnly.search(['well', 'keeper'], 10);
    // Slots 0, 1, 4 of the full index are slots 0, 1, 2 of the visible one.
    expect(scoped.map(({ slot, score }) => [[0, 1, -1, -1, 2][slot], score])).toEqual(expected.map(({ slot, score }) => [slot, score]));
    expect(full.scoreOf(['well'], 1, undefined, corpus)).toBe(visibleOnly.scoreOf(['well'], 1));
    expect(full.scoreOf(['well'], 2, undefined, corpus)).toBe(0);
    // Without a corpus, the statistics are the whole index's: hidden documents count, as an unscoped search expects.
    expect(full.search(['well', 'keeper'], 10, within)[0]?.score).not.toBe(expected[0]?.score);
  });
});
