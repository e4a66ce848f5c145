// Narrative memory through openMemory: explanations, degradation, reranking, focus terms and bad input.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../src/open-memory.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import type { Embedder } from '../src/seams/embedder.js';
import type { Reranker } from '../src/seams/reranker.js';
import type { Logger } from '../src/core/logger.js';
import { silentLogger } from '../src/core/logger.js';
import { MAX_K } from '../src/core/validate.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let files = 0;
const dbPath = () => join(dir, `narrative-${++files}.db`);

const TURNS = [
  'The smith Borin forges a blade of blue steel for the captain.',
  'Kaël hides the silver key beneath the third stone of the well.',
  'A storm floods the lower market and ruins the spice merchants.',
  'The captain pays Borin in pearls from the southern reefs.',
  'Mira reads the star charts on the tower roof until dawn.',
];

async function seeded(options: Parameters<typeof openMemory>[0] = {}) {
  const memory = await openMemory({ path: dbPath(), logger: silentLogger, ...options });
  for (const [index, text] of TURNS.entries()) await memory.add({ saveId: 's', turnId: index + 1, text });
  return memory;
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line) => lines.push(line), warn: (line) => lines.push(line) };
}

describe('hybrid query', () => {
  it('explains each hit: rank and score in each arm, fused score, boost', async () => {
    const memory = await seeded({ embedder: hashingEmbedder(), neighbourWeight: 0 });
    const [hit] = await memory.query('s', 'Where is the silver key hidden?', { k: 3, fusion: 'rrf', feedback: null });
    expect(hit?.text).toContain('silver key');
    expect(hit?.explanation.lexical?.rank).toBe(1);
    expect(hit?.explanation.semantic?.rank).toBe(1);
    expect(hit?.explanation.fused).toBeCloseTo(2 / 61, 12);
    expect(hit?.explanation.boost).toBe(0);
    expect(hit?.explanation.rerank).toBeNull();
    expect(hit?.score).toBeCloseTo(hit!.explanation.fused, 12);
    await memory.close();
  });

  it('without an embedder searches by words alone', async () => {
    const memory = await seeded({ embedder: null });
    const hits = await memory.query('s', 'pearls captain', { k: 5 });
    expect(hits[0]?.text).toContain('pearls');
    expect(hits.every((hit) => hit.explanation.semantic === null)).toBe(true);
    await memory.close();
  });

  it('finds "the well" by words: content words are not stop words (regression)', async () => {
    const memory = await seeded({ embedder: null });
    const hits = await memory.query('s', 'the well', { k: 3 });
    expect(hits[0]?.turnId).toBe(2);
    expect(hits[0]?.explanation.lexical?.rank).toBe(1);
    // Without the window sum, only the chunk that says it (the window sum also brings the turns around it).
    expect((await memory.query('s', 'the well', { k: 3, windowSum: null })).map((hit) => hit.turnId)).toEqual([2]);
    await memory.close();
  });
  it('when the embedder throws, falls back to words for that call and logs it once', async () => {
    const logger = recordingLogger();
    let broken = false;
    const inner = hashingEmbedder();
    const flaky: Embedder = { ...inner, embed: async (texts) => { if (broken) throw new Error('runtime gone'); return inner.embed(texts); } };
    const memory = await seeded({ embedder: flaky, logger });
    broken = true;
    for (let attempt = 0; attempt < 3; attempt++) {
      const hits = await memory.query('s', 'storm market', { k: 2 });
      expect(hits[0]?.text).toContain('storm');
      expect(hits[0]?.explanation.semantic).toBeNull();
    }
    expect(logger.lines.filter((line) => line.includes('runtime gone'))).toHaveLength(1);
    broken = false;
    expect((await memory.query('s', 'storm market', { k: 1 }))[0]?.explanation.semantic).not.toBeNull();
    await memory.close();
  });

  it('stores chunks without vectors when the embedder fails at write time, and still finds them by words', async () => {
    const failing: Embedder = { ...hashingEmbedder(), embed: async () => { throw new Error('down'); } };
    const memory = await openMemory({ path: dbPath(), embedder: failing, logger: silentLogger });
    await memory.add({ saveId: 's', turnId: 1, text: 'The ferry sank at Greywater.' });
    const [hit] = await memory.query('s', 'ferry');
    expect(hit?.text).toContain('ferry');
    await memory.close();
  });

  it('lifts chunks that mention a focus term by the focus boost', async () => {
    const memory = await seeded({ embedder: null });
    const plain = await memory.query('s', 'captain', { k: 2, fusion: 'rrf' });
    expect(plain.map((hit) => hit.turnId)).toEqual([4, 1]);
    const focused = await memory.query('s', 'captain', { k: 2, fusion: 'rrf', focusTerms: ['Blue Steel', 'nobody here'] });
    expect(focused.map((hit) => hit.turnId)).toEqual([1, 4]);
    expect(focused[0]?.explanation.boost).toBe(0.005);
    expect(focused[0]?.explanation.focusMatches).toEqual(['Blue Steel']);
    expect(focused[1]?.explanation.boost).toBe(0);
    expect(focused[0]?.score).toBeCloseTo(focused[0]!.explanation.fused + 0.005, 12);
    await memory.close();
  });

  it('reranks the fused head with the reranker, and keeps the fused order when it gives up', async () => {
    const calls: string[][] = [];
    const byLength: Reranker = {
      provider: 'test',
      modelId: 'length',
      rerank: async (_query, documents) => { calls.push([...documents]); return documents.map((text) => Math.min(1, text.length / 100)); },
    };
    const memory = await seeded({ embedder: null, reranker: byLength });
    const hits = await memory.query('s', 'captain storm Mira Kaël', { k: 5 });
    const lengths = hits.map((hit) => hit.text.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
    expect(hits[0]?.explanation.rerank).toBeCloseTo(lengths[0]! / 100, 12);
    expect(calls).toHaveLength(1);
    const unranked = await memory.query('s', 'captain storm Mira Kaël', { k: 5, rerank: false });
    expect(unranked.every((hit) => hit.explanation.rerank === null)).toBe(true);
    await memory.close();

    const givingUp: Reranker = { provider: 'test', modelId: 'none', rerank: async () => null };
    const second = await seeded({ embedder: null, reranker: givingUp });
    const fused = await second.query('s', 'captain Borin', { k: 3 });
    expect(fused.every((hit) => hit.explanation.rerank === null)).toBe(true);
    expect(fused.map((hit) => hit.score)).toEqual([...fused.map((hit) => hit.score)].sort((a, b) => b - a));
    await second.close();
  });

  it('returns nothing for an unknown save or a query with no words, never an error', async () => {
    const memory = await seeded({ embedder: hashingEmbedder() });
    expect(await memory.query('nobody', 'anything')).toEqual([]);
    expect(await memory.query('s', '"\'()*:^~-?!')).toEqual([]);
    const weird = await memory.query('s', 'key" OR "1"="1 AND NEAR(silver*, 2)', { k: 2 });
    expect(weird[0]?.text).toContain('silver key');
    await memory.close();
  });
});

describe('bad input', () => {
  it('refuses bad chunks with a message saying what was expected and writes nothing', async () => {
    const memory = await openMemory({ path: dbPath(), logger: silentLogger });
    const cases: [unknown, RegExp][] = [
      [{ saveId: 's', turnId: 1, text: '' }, /text: expected a string with at least one non-space character, got ""/],
      [{ saveId: 's', turnId: 1, text: '   \n' }, /text: expected a string with at least one non-space character/],
      [{ saveId: 's', turnId: 1.5, text: 'x' }, /turnId: expected an integer >= 0, got 1.5/],
      [{ saveId: 's', turnId: -2, text: 'x' }, /turnId: expected an integer >= 0, got -2/],
      [{ saveId: 's', turnId: '3', text: 'x' }, /turnId: expected an integer >= 0, got "3"/],
      [{ saveId: '', turnId: 1, text: 'x' }, /saveId: expected a non-empty string/],
      [{ saveId: 's', turnId: 1, text: 'x', metadata: [1] }, /metadata: expected a plain object/],
      [{ saveId: 's', turnId: 1, text: 'x', chunkType: '' }, /chunkType: expected a non-empty string/],
    ];
    for (const [input, message] of cases) {
      await expect(memory.add(input as never)).rejects.toMatchObject({ code: 'INVALID_INPUT', category: 'USER', message: expect.stringMatching(message) });
    }
    expect(await memory.count('s')).toBe(0);
    expect(await memory.listSaves()).toEqual([]);
    await memory.close();
  });

  it('refuses k out of range and bad turn bounds in a query', async () => {
    const memory = await openMemory({ path: dbPath(), logger: silentLogger });
    await memory.add({ saveId: 's', turnId: 1, text: 'something' });
    for (const k of [0, -1, 2.5]) {
      await expect(memory.query('s', 'something', { k })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(`k: expected an integer from 1 to ${MAX_K}`) });
    }
    for (const k of [MAX_K + 1, 1e9]) {
      await expect(memory.query('s', 'something', { k })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { field: 'k', limit: 'k', maximum: MAX_K } });
    }
    await expect(memory.query('s', 'something', { maxTurnId: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.rewind('s', -1)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await memory.query('s', 'something', { k: MAX_K })).toHaveLength(1);
    await memory.close();
  });

  it('refuses calls on a closed store', async () => {
    const memory = await openMemory({ path: dbPath(), logger: silentLogger });
    await memory.close();
    await expect(memory.count('s')).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });
});

describe('z-score fusion', () => {
  it('ranks by the weighted sum of standardised arm scores, and the weights move the order', async () => {
    const memory = await seeded({ embedder: hashingEmbedder() });
    const both = await memory.query('s', 'captain pearls reefs', { k: 3, fusion: 'zscore' });
    expect(both[0]?.text).toContain('pearls');
    expect(both[0]?.explanation.fused).toBeGreaterThan(both[1]!.explanation.fused);
    const scores = both.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const lexicalOnly = await memory.query('s', 'captain', { k: 2, fusion: 'zscore', weights: { semantic: 0 }, windowSum: null });
    expect(lexicalOnly.map((hit) => hit.turnId)).toEqual([4, 1]);
    await expect(memory.query('s', 'x', { fusion: 'nope' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });

  it('scores a chunk the same whatever k and the cap (the arms are standardised over everything they scored)', async () => {
    const memory = await seeded({ embedder: hashingEmbedder() });
    for (const query of ['captain pearls reefs', 'the storm and the well', 'Borin']) {
      const wide = new Map((await memory.query('s', query, { k: 5, capPerSource: 5 })).map((hit) => [hit.id, hit.score]));
      const narrow = await memory.query('s', query, { k: 2, capPerSource: 2 });
      expect(narrow.length).toBeGreaterThan(0);
      for (const hit of narrow) expect(hit.score).toBe(wide.get(hit.id));
    }
    await memory.close();
  });

  it('runs only the lexical arm when the semantic one is weighted 0, and never embeds the query then', async () => {
    let calls = 0;
    const base = hashingEmbedder();
    const counting: Embedder = { ...base, embed: async (texts) => { calls += texts.length; return base.embed(texts); } };
    const memory = await seeded({ embedder: counting });
    const before = calls;
    const hits = await memory.query('s', 'captain', { k: 5, weights: { semantic: 0 }, windowSum: null });
    expect(calls).toBe(before);
    expect(hits.map((hit) => hit.turnId)).toEqual([4, 1]);
    expect(hits.every((hit) => hit.explanation.semantic === null && hit.explanation.lexical !== null)).toBe(true);
    await memory.close();
  });
});

describe('warm', () => {
  it('builds a save index before the first query, which then reads nothing more from the store, and ranks the same', async () => {
    const path = dbPath();
    const writer = await openMemory({ path, embedder: hashingEmbedder(), logger: silentLogger });
    for (const [index, text] of TURNS.entries()) await writer.add({ saveId: 's', turnId: index + 1, text });
    const expected = await writer.query('s', 'Borin and the captain', { k: 5 });
    await writer.close();

    // Without its persisted index (see index-snapshot.test.ts), so that warm builds it from the store.
    const reader = await openMemory({ path, embedder: hashingEmbedder(), logger: silentLogger, indexDirectory: false });
    let scans = 0;
    const scan = reader.store.scanChunks.bind(reader.store);
    reader.store.scanChunks = (...args) => {
      scans++;
      return scan(...args);
    };
    expect(await reader.warm('s')).toBe(TURNS.length);
    expect(scans).toBe(1);
    const hits = await reader.query('s', 'Borin and the captain', { k: 5 });
    expect(scans).toBe(1);
    expect(hits.map((hit) => [hit.id, hit.score])).toEqual(expected.map((hit) => [hit.id, hit.score]));
    expect(await reader.warm('empty-save')).toBe(0);
    await expect(reader.warm('')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await reader.close();
  });
});
