import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { tempDir, wordVectorTableOf } from './helpers.js';
import { isMnemoError } from '../src/core/errors.js';
import { WordVectorTable } from '../src/embedders/static/word-vector-table.js';
import { createAnalyzer } from '../src/retrieval/analyzer.js';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import type { IndexDocument } from '../src/retrieval/corpus-index.js';
import { hybridSearch } from '../src/retrieval/hybrid-search.js';
import type { HybridSearchInput } from '../src/retrieval/hybrid-search.js';
import { MAX_SOFT_MATCH_HEAD, MAX_SOFT_MATCH_REACH, optionalSoftMatch, softMatchScores } from '../src/retrieval/soft-match.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotWriter } from '../src/retrieval/snapshot-format.js';
import { WordRows, WordTable, wordTableOf } from '../src/retrieval/word-rows.js';

// A table built here: two word families far apart (light and bread) in 3 dimensions, and a speaker's name.
const WORDS: [string, number[]][] = [
  ['lighthouse', [100, 10, 0]],
  ['beacon', [90, 30, 0]],
  ['lamp', [60, 60, 0]],
  ['bread', [0, 10, 100]],
  ['cake', [0, 30, 90]],
  ['rowan', [0, 100, 0]],
  ['the', [50, 50, 50]],
];
const table = wordVectorTableOf(WORDS);
const words = new WordTable(table);
const rowOf = (word: string) => table.rowOf(word);
const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0) / Math.hypot(...a) / Math.hypot(...b);

function indexOf(texts: string[], options: { speakers?: string[]; wordTable?: WordTable | null } = {}): CorpusIndex {
  const index = new CorpusIndex(0, { analyzer: createAnalyzer(), wordTable: options.wordTable === undefined ? words : options.wordTable });
  index.add(texts.map((text, slot): IndexDocument => ({ id: `d${slot}`, text, embedding: null, position: slot, speaker: options.speakers?.[slot] })));
  return index;
}
const closeTo = (values: Float64Array | null, expected: number[]) => {
  expect(values).not.toBeNull();
  expect(values?.length).toBe(expected.length);
  expected.forEach((value, i) => expect(values?.[i]).toBeCloseTo(value, 12));
};

describe('WordTable and WordRows', () => {
  it('gives the cosine of two int8 rows (their scales cancel)', () => {
    expect(words.cosine(rowOf('lighthouse'), rowOf('beacon'))).toBeCloseTo(cosine([100, 10, 0], [90, 30, 0]), 5);
    expect(words.cosine(rowOf('lighthouse'), rowOf('bread'))).toBeCloseTo(cosine([100, 10, 0], [0, 10, 100]), 5);
  });
  it('computes a query\'s cosines with the noted rows at once, the same values as cosine()', () => {
    const query = [rowOf('beacon'), rowOf('cake')];
    words.prepare(query);
    const lamp = words.note(rowOf('lamp'));
    const bread = words.note(rowOf('bread'));
    expect(words.note(rowOf('lamp'))).toBe(lamp);
    const cosines = words.compute();
    for (const [place, row] of [[lamp, rowOf('lamp')], [bread, rowOf('bread')]] as const) {
      expect([cosines[place * 2], cosines[place * 2 + 1]]).toEqual(query.map((word) => words.cosine(word, row)));
    }
    words.prepare([rowOf('bread')]);
    const again = words.note(rowOf('lamp'));
    expect(words.compute()[again]).toBe(words.cosine(rowOf('bread'), rowOf('lamp')));
  });
  it('gives cosine()\'s values for many rows, whether the table\'s rows copy four bytes at a time or byte by byte', () => {
    // 12 dimensions at an aligned offset (copied as int32s) and at an odd one (copied as bytes); 300 rows of random
    // int8 values, one all zeros; more rows than fit the kernel's first page, noted out of order and twice.
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (const offset of [0, 1]) {
      const rows = 300;
      const backing = new Int8Array(offset + rows * 12);
      for (let at = offset + 12; at < backing.length; at++) backing[at] = (next() % 255) - 127;
      const values = new Int8Array(backing.buffer, offset, rows * 12);
      const wide = new WordTable(new WordVectorTable({ source: 'test', dimensions: 12, vocabularySize: rows, words: Array.from({ length: rows }, (_, row) => `w${row}`), ranks: Uint32Array.from({ length: rows }, (_, row) => row), scales: new Float32Array(rows).fill(0.01), values }));
      const query = [5, 0, 299];
      wide.prepare(query);
      const noted = Array.from({ length: 600 }, (_, at) => (at * 7919) % rows);
      const places = noted.map((row) => wide.note(row));
      const cosines = wide.compute();
      noted.forEach((row, at) => {
        const place = places[at] as number;
        expect(query.map((_, word) => cosines[place * 3 + word])).toEqual(query.map((word) => wide.cosine(word, row)));
      });
      expect(cosines[(places[0] as number) * 3]).toBe(0); // row 0 is all zeros
    }
  });
  it('keeps a text\'s distinct content words known to the table, stop words and unknown words left out', () => {
    const rows = new WordRows(words, (token) => token !== 'the');
    rows.set(3, 'The lighthouse, the LAMP and the lighthouse keeper');
    expect([...rows.rowsOf(3)]).toEqual([rowOf('lighthouse'), rowOf('lamp')]);
    expect(rows.has(3)).toBe(true);
    expect(rows.has(0)).toBe(false);
    expect([...rows.rowsOf(0)]).toEqual([]);
  });
  it('comes only from the static embedder: any other embedder (or none) leaves soft matching off', () => {
    expect(wordTableOf(null)).toBeNull();
    expect(wordTableOf({ provider: 'hashing', modelId: 'h', dimensions: 3, maxBatchSize: 1, embed: async () => [] })).toBeNull();
    const staticLike = { provider: 'static', modelId: 's', dimensions: 3, maxBatchSize: 1, embed: async () => [], table, rowsOf: () => [] };
    expect(wordTableOf(staticLike)).toBeInstanceOf(WordTable);
  });
  it('is recorded by the index for each document it adds, only with a word table', () => {
    expect([...(indexOf(['bread and cake']).wordRows?.rowsOf(0) ?? [])]).toEqual([rowOf('bread'), rowOf('cake')]);
    expect(indexOf(['bread'], { wordTable: null }).wordRows).toBeNull();
  });
});

describe('softMatchScores', () => {
  const options = { weight: 1, reach: 0, head: 50 };
  it('scores a document by the idf-weighted best cosine of each query word, z-scored over the head', async () => {
    const index = indexOf(['the lighthouse', 'the cake']);
    // Two documents: z-scores of +1 and -1, times the weight.
    closeTo(softMatchScores(index, 'beacon', [0, 1], options, undefined), [1, -1]);
    closeTo(softMatchScores(index, 'beacon', [0, 1], { ...options, weight: 2 }, undefined), [2, -2]);
  });
  it('weights the query\'s words by idf: the rarer word decides', async () => {
    // 'lamp' is in every document (idf low), 'bread' in one: the bread document leads although both match 'lamp'.
    const index = indexOf(['lamp bread', 'lamp lighthouse', 'lamp lighthouse']);
    const lift = softMatchScores(index, 'lamp cake', [0, 1, 2], options, undefined) as Float64Array;
    expect(lift[0]).toBeGreaterThan(lift[1] as number);
    expect(lift[1]).toBeCloseTo(lift[2] as number, 12);
  });
  it('takes the best alignment within reach (a short reply found through what it answers), filtered neighbours left out', async () => {
    // 'yes' has no vector (it aligns at 0); 'cake' is nearer 'beacon' than 'bread' is, 'lighthouse' nearest.
    const index = indexOf(['cake', 'lighthouse', 'yes', 'bread', 'cake']);
    closeTo(softMatchScores(index, 'beacon', [2, 4], options, undefined), [-1, 1]);
    closeTo(softMatchScores(index, 'beacon', [2, 4], { ...options, reach: 1 }, undefined), [1, -1]);
    closeTo(softMatchScores(index, 'beacon', [2, 4], { ...options, reach: 1 }, (slot) => slot !== 1), [-1, 1]);
  });
  it('leaves the words naming a speaker the query names to the speaker signal', async () => {
    const index = indexOf(['rowan said the lighthouse', 'cake'], { speakers: ['Rowan', 'Ash'] });
    const named = softMatchScores(index, 'what did Rowan bake, cake?', [0, 1], options, undefined);
    const unnamed = softMatchScores(index, 'what did bake, cake?', [0, 1], options, undefined);
    expect([...(named ?? [])]).toEqual([...(unnamed ?? [])]);
    // Without a speaker called Rowan, the word counts.
    const plain = indexOf(['rowan said the lighthouse', 'cake']);
    const counted = softMatchScores(plain, 'rowan', [0, 1], options, undefined) as Float64Array;
    expect(counted[0]).toBeGreaterThan(0);
  });
  it('gives nothing without word rows or without a query word that has a vector', async () => {
    expect(softMatchScores(indexOf(['cake'], { wordTable: null }), 'cake', [0], options, undefined)).toBeNull();
    expect(softMatchScores(indexOf(['cake']), 'the zeppelin', [0], options, undefined)).toBeNull();
  });
  it('keeps the rows in a persisted index and in its compacted copy: the same scores after reading it back', () => {
    const built = indexOf(['lighthouse', 'the keeper', 'cake', 'bread and lamp']);
    built.remove(['d1']);
    const writer = new SnapshotWriter();
    const copy = built.compacted();
    const scalars = copy.writeState(writer);
    expect(copy.configuration).toContain('wordRows=1');
    expect(indexOf(['cake'], { wordTable: null }).configuration).not.toContain('wordRows');
    const bytes = writer.finish({ key: 'k', identity: 'test', configuration: copy.configuration, version: 1, ...scalars });
    const restored = CorpusIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 1, { analyzer: createAnalyzer(), wordTable: words });
    expect([0, 1, 2].map((slot) => [...(restored.wordRows?.rowsOf(slot) ?? [])])).toEqual([[rowOf('lighthouse')], [rowOf('cake')], [rowOf('bread'), rowOf('lamp')]]);
    const fresh = indexOf(['lighthouse', 'cake', 'bread and lamp']);
    expect(softMatchScores(restored, 'beacon', [0, 1, 2], options, undefined)).toEqual(softMatchScores(fresh, 'beacon', [0, 1, 2], options, undefined));
  });
});

describe('optionalSoftMatch', () => {
  const defaults = { weight: 1, reach: 2, head: 50 };
  it('fills reach and head, keeps the corpus default when left out, and is off for null or weight 0', () => {
    expect(optionalSoftMatch({ weight: 0.5 }, null)).toEqual({ weight: 0.5, reach: 2, head: 50 });
    expect(optionalSoftMatch(undefined, defaults)).toEqual(defaults);
    expect(optionalSoftMatch(undefined, null)).toBeUndefined();
    expect(optionalSoftMatch(null, defaults)).toBeUndefined();
    expect(optionalSoftMatch({ weight: 0 }, defaults)).toBeUndefined();
  });
  it.each([
    [{ weight: -1 }],
    [{ weight: 1, reach: MAX_SOFT_MATCH_REACH + 1 }],
    [{ weight: 1, head: MAX_SOFT_MATCH_HEAD + 1 }],
    [{ weight: 1, head: 0 }],
    [{ weight: 1, reach: 1.5 }],
    [{ reach: 2 }],
    ['1,2,50'],
  ])('refuses %j with INVALID_INPUT naming the bounds', (value) => {
    try {
      optionalSoftMatch(value, null);
      expect.unreachable();
    } catch (error) {
      expect(isMnemoError(error) && error.code).toBe('INVALID_INPUT');
      expect((error as Error).message).toContain(`from 1 to ${MAX_SOFT_MATCH_HEAD}`);
    }
  });
});

describe('hybridSearch with soft matching', () => {
  const texts = ['the cake was good', 'the lighthouse keeper waved', 'bread again', 'a lamp and the lighthouse', 'cake and bread'];
  const search = (index: CorpusIndex, extra: Partial<HybridSearchInput> = {}) =>
    hybridSearch({ index, queryText: 'beacon lamp', queryVector: null, k: 5, capPerSource: 50, fusion: 'zscore', loadTexts: async () => new Map(), ...extra });
  it('off (absent) ranks exactly as an index without word rows does', async () => {
    const plain = await search(indexOf(texts, { wordTable: null }));
    expect(await search(indexOf(texts))).toEqual(plain);
    expect(await search(indexOf(texts, { wordTable: null }), { softMatch: { weight: 1, reach: 2, head: 50 } })).toEqual(plain);
  });
  it('on, explains what it added as the soft contribution and lifts the aligned documents, in a fixed order', async () => {
    const index = indexOf(texts);
    const query = { queryText: 'beacon lighthouse cake', softMatch: { weight: 1, reach: 0, head: 50 } };
    const first = await search(index, query);
    expect(await search(index, query)).toEqual(first);
    const soft = new Map(first.map((hit) => [hit.id, hit.explanation.contributions?.soft ?? 0]));
    expect(soft.get('d1')).toBeGreaterThan(0);
    expect(soft.get('d3')).toBeGreaterThan(0);
    expect(soft.get('d0')).toBeLessThan(0);
    expect(soft.get('d4')).toBeLessThan(0);
    expect(first[0]?.id).toBe('d3');
    for (const hit of first) expect(hit.score).toBeCloseTo(Object.values(hit.explanation.contributions ?? {}).reduce((sum, part) => sum + part, 0), 12);
    const off = await search(index, { queryText: 'beacon lighthouse cake' });
    expect(off.every((hit) => hit.explanation.contributions?.soft === undefined)).toBe(true);
  });
});

describe('hybridSearch with the soft tail', () => {
  // Every text holds 'lamp' once in two terms (one BM25 score, so the fused order is the slots'); only d3's other word
  // sits near 'beacon'. Soft matching's own head is the first candidate only: d3 is past it.
  const texts = ['lamp bread', 'lamp cake', 'lamp rowan', 'lamp lighthouse', 'lamp cake', 'lamp bread'];
  const softMatch = { weight: 1, reach: 0, head: 1 };
  const search = (index: CorpusIndex, extra: Partial<HybridSearchInput> = {}) =>
    hybridSearch({ index, queryText: 'beacon lamp', queryVector: null, k: 6, capPerSource: 50, fusion: 'zscore', softMatch, loadTexts: async () => new Map(), ...extra });
  it('keeps the first `keep` hits exactly, and raises past them what the wider head aligns best', async () => {
    const index = indexOf(texts);
    const plain = await search(index);
    expect(plain.map((hit) => hit.id)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd5']);
    const tailed = await search(index, { softTail: { keep: 1, head: 200 } });
    expect(tailed[0]).toEqual(plain[0]);
    expect(tailed[1]?.id).toBe('d3');
    expect(tailed[1]?.explanation.contributions?.soft).toBeGreaterThan(0);
    for (let at = 1; at < tailed.length; at++) expect(tailed[at]?.score).toBeLessThanOrEqual(tailed[at - 1]?.score as number);
    for (const hit of tailed) expect(hit.score).toBeCloseTo(Object.values(hit.explanation.contributions ?? {}).reduce((sum, part) => sum + part, 0), 12);
    expect(await search(index, { softTail: { keep: 1, head: 200 } })).toEqual(tailed);
  });
  it('gives a smaller k the first hits of a longer ranking where the cap keeps every candidate, and changes nothing without soft matching or past the whole list', async () => {
    const index = indexOf(texts);
    const tail = { keep: 1, head: 200 };
    const all = await search(index, { softTail: tail });
    expect(await search(index, { softTail: tail, k: 2 })).toEqual(all.slice(0, 2));
    expect(await search(index, { softTail: tail, softMatch: undefined })).toEqual(await search(index, { softMatch: undefined }));
    expect(await search(index, { softTail: { keep: 6, head: 200 } })).toEqual(await search(index));
    // A k within the kept head is not aligned past it: the hits, scores and explanations as without the tail.
    expect(await search(index, { softTail: tail, k: 1 })).toEqual(await search(index, { k: 1 }));
  });
});

describe('soft matching through openMemory', () => {
  const directory = tempDir();
  // A static embedder over the test's table (its vectors all zero: the chunks are found by words, and aligned by the table).
  const embedder = { provider: 'static', modelId: 'test-table', dimensions: 3, maxBatchSize: 100, cacheable: false, table, rowsOf: () => [], embed: async (texts: readonly string[]) => texts.map(() => new Float32Array(3)) };
  const texts = ['the cake was good', 'the lighthouse keeper waved', 'bread again', 'a lamp and the lighthouse', 'cake and bread'];
  const ask = { k: 5, softMatch: { weight: 1, reach: 0 } };
  it('explains what it added, on by default (1, 2, 50), null turns it off, and ranks the same from the index persisted and read back', async () => {
    const path = join(directory, 'soft.db');
    const memory = await openMemory({ path, embedder, logger: silentLogger });
    await memory.addMany(texts.map((text, turnId) => ({ saveId: 's', turnId, text })));
    const first = await memory.query('s', 'beacon lighthouse cake', ask);
    expect(first.some((hit) => (hit.explanation.contributions?.soft ?? 0) > 0)).toBe(true);
    const byDefault = await memory.query('s', 'beacon lighthouse cake', { k: 5 });
    expect(byDefault).toEqual(await memory.query('s', 'beacon lighthouse cake', { k: 5, softMatch: { weight: 1, reach: 2, head: 50 } }));
    expect(byDefault.some((hit) => (hit.explanation.contributions?.soft ?? 0) > 0)).toBe(true);
    const plain = await memory.query('s', 'beacon lighthouse cake', { k: 5, softMatch: null });
    expect(plain.every((hit) => hit.explanation.contributions?.soft === undefined)).toBe(true);
    await memory.close();
    expect(readdirSync(`${path}.index`).length).toBeGreaterThan(0);
    const reopened = await openMemory({ path, embedder, logger: silentLogger });
    const again = await reopened.query('s', 'beacon lighthouse cake', ask);
    expect(again.map((hit) => [hit.id, hit.score])).toEqual(first.map((hit) => [hit.id, hit.score]));
    await reopened.close();
  });
  it('takes the soft tail as a query option (on by default, keep 10: nothing changes at k <= 10): the kept head as without it, a bad setting refused', async () => {
    const memory = await openMemory({ path: join(directory, 'tail.db'), embedder, logger: silentLogger });
    await memory.addMany(texts.map((text, turnId) => ({ saveId: 's', turnId, text })));
    const plain = await memory.query('s', 'beacon lighthouse cake', { k: 5 });
    expect(await memory.query('s', 'beacon lighthouse cake', { k: 5, softTail: null })).toEqual(plain);
    expect(await memory.query('s', 'beacon lighthouse cake', { k: 5, softTail: { keep: 10, head: 200 } })).toEqual(plain);
    const tailed = await memory.query('s', 'beacon lighthouse cake', { k: 5, softTail: { keep: 2 } });
    expect(tailed.slice(0, 2)).toEqual(plain.slice(0, 2));
    expect(new Set(tailed.map((hit) => hit.id))).toEqual(new Set(plain.map((hit) => hit.id)));
    await expect(memory.query('s', 'beacon', { softTail: { keep: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});
