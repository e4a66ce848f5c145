// The one search path: per-corpus defaults, the request resolver, the pipeline (documents read once) and the document-shaped index.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import type { IndexDocument } from '../src/retrieval/corpus-index.js';
import { resolveSearchRequest, searchOptionsOf } from '../src/retrieval/resolve-search-request.js';
import { CORPUS_DEFAULTS, DEFAULT_FEEDBACK } from '../src/retrieval/retrieval-defaults.js';
import { searchCorpus } from '../src/retrieval/search-corpus.js';
import type { Embedder } from '../src/seams/embedder.js';
import type { Reranker } from '../src/seams/reranker.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

describe('resolveSearchRequest', () => {
  it('fills each corpus\'s own defaults: feedback on for narrative only, RRF and 2 x cap ranked hits for recall', () => {
    const narrative = resolveSearchRequest('narrative', 'the gate', {});
    expect(narrative).toMatchObject({ k: 5, ranked: 5, capPerSource: 50, fusion: 'zscore', feedback: DEFAULT_FEEDBACK, focusBoost: 0.5, rrfK: 60, rerank: true, rerankTop: undefined });
    const lore = resolveSearchRequest('lore', 'the gate', { k: 20 });
    expect(lore).toMatchObject({ k: 20, ranked: 20, capPerSource: 100, fusion: 'zscore', feedback: undefined, focusBoost: 0.5 });
    const recall = resolveSearchRequest('recall', 'the gate', { k: 3 });
    expect(recall).toMatchObject({ k: 3, ranked: 100, capPerSource: 50, fusion: 'rrf', feedback: undefined, focusBoost: 0.005 });
    expect([CORPUS_DEFAULTS.narrative.neighbourWeight, CORPUS_DEFAULTS.lore.neighbourWeight, CORPUS_DEFAULTS.recall.neighbourWeight]).toEqual([0.5, 0, 0]);
  });

  it('lets the caller\'s options win, null turning feedback off and false the reranker', () => {
    const request = resolveSearchRequest('narrative', 'q', { k: 2, feedback: null, fusion: 'rrf', rerank: false, capPerSource: 0, rrfK: 10, focusTerms: ['Kaël', ' ', ''], weights: { semantic: 0 } });
    expect(request).toMatchObject({ k: 2, feedback: undefined, fusion: 'rrf', rerank: false, capPerSource: 10_000, rrfK: 10, focusTerms: ['Kaël'], focusBoost: 0.005, weights: { lexical: undefined, semantic: 0 } });
    expect(resolveSearchRequest('lore', 'q', { feedback: { documents: 2, terms: 3, weight: 1 } }).feedback).toEqual({ documents: 2, terms: 3, weight: 1 });
  });

  it('refuses a bad option with a coded error naming it', () => {
    for (const [options, field] of [[{ k: 0 }, 'k'], [{ capPerSource: -1 }, 'capPerSource'], [{ rrfK: -1 }, 'rrfK'], [{ focusBoost: -1 }, 'focusBoost'], [{ weights: { lexical: Number.NaN } }, 'weights.lexical'], [{ rerankTop: 1.5 }, 'rerankTop'], [{ fusion: 'max' }, 'fusion']] as const) {
      expect(() => resolveSearchRequest('lore', 'q', options as never)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', details: expect.objectContaining({ field }) }));
    }
    expect(() => resolveSearchRequest('narrative', 42)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });

  it('picks the ranking options out of wider query defaults (a corpus without turns ignores filters)', () => {
    expect(searchOptionsOf({ k: 3, excludeChunkType: 'lore', maxTurnId: 4, fusion: 'rrf', feedback: null })).toEqual({ k: 3, fusion: 'rrf', feedback: null });
  });
});

describe('searchCorpus', () => {
  const documents = ['the red gate opens', 'a red door', 'the gate keeper sleeps', 'green fields far away'].map((text, index) => ({ id: `d${index}`, text }));
  const index = new CorpusIndex(0);
  index.add(documents.map((document) => ({ ...document, embedding: null })));

  function reader() {
    const reads: string[][] = [];
    return { reads, read: async (ids: readonly string[]) => { reads.push([...ids]); return documents.filter((document) => ids.includes(document.id)); } };
  }

  it('reads each document once, even when focus terms and a reranker read texts before the hits are built', async () => {
    const { reads, read } = reader();
    const reranker: Reranker = { provider: 'test', modelId: 'length', rerank: async (_query, texts) => texts.map((text) => text.length) };
    const request = resolveSearchRequest('lore', 'red gate', { k: 2, focusTerms: ['keeper'], rerankTop: 3 });
    const { hits } = await searchCorpus({ request, index, embedder: null, logger: silentLogger, reranker, read, idOf: (document) => document.id, textOf: (document) => document.text });
    expect(hits).toHaveLength(2);
    expect(hits.every((hit) => hit.explanation.rerank !== null)).toBe(true);
    expect(reads).toHaveLength(1);
    const readIds = reads.flat();
    expect(new Set(readIds).size).toBe(readIds.length);
  });

  it('reads only the hits it keeps, leaves out vanished documents, and embeds nothing over an empty index', async () => {
    const { reads, read } = reader();
    const request = resolveSearchRequest('recall', 'red gate', { k: 5 });
    const { hits } = await searchCorpus({ request, index, embedder: null, logger: silentLogger, read: async (ids) => (await read(ids)).filter((document) => document.id !== 'd1'), idOf: (document) => document.id, textOf: (document) => document.text, keep: (hit) => hit.id !== 'd2' });
    expect(reads).toEqual([['d0', 'd1']]);
    expect(hits.map((hit) => hit.document.id)).toEqual(['d0']);
    let calls = 0;
    const counting: Embedder = { ...hashingEmbedder(), embed: async (texts) => { calls++; return hashingEmbedder().embed(texts); } };
    const empty = await searchCorpus({ request, index: new CorpusIndex(0), embedder: counting, logger: silentLogger, read, idOf: (document) => document.id, textOf: (document) => document.text });
    expect(empty).toEqual({ hits: [], queryVector: null });
    expect(calls).toBe(0);
  });
});

describe('the document-shaped index', () => {
  const document = (id: string, position?: number, kind?: string): IndexDocument => ({ id, text: 'tideline', embedding: null, position, kind });
  const ids = (index: CorpusIndex, filter: Parameters<CorpusIndex['filterFor']>[0]) => index.lexical(['tideline'], 10, index.filterFor(filter)).map(({ slot }) => index.idOf(slot)).sort();

  it('filters and removes by any safe-integer position, and by kind', () => {
    const index = new CorpusIndex(0);
    index.add([document('early', 3_000_000_000, 'narrative'), document('late', 5_000_000_000, 'dialogue'), document('latest', 2 ** 52, 'narrative')]);
    expect(ids(index, { maxPosition: 4_000_000_000 })).toEqual(['early']);
    expect(ids(index, { kind: 'narrative' })).toEqual(['early', 'latest']);
    expect(ids(index, { excludeKinds: ['narrative'], maxPosition: 2 ** 53 })).toEqual(['late']);
    expect(ids(index, { kind: 'unknown' })).toEqual([]);
    expect(index.removeAfter(4_000_000_000)).toBe(2);
    expect(ids(index, {})).toEqual(['early']);
  });

  it('keeps documents without a position or kind out of position and kind filters, and out of removals by position', () => {
    const index = new CorpusIndex(0);
    index.add([document('timeless'), document('typed', 1, 'lore')]);
    expect(ids(index, { maxPosition: 10 })).toEqual(['typed']);
    expect(ids(index, { kind: 'lore' })).toEqual(['typed']);
    expect(ids(index, { excludeKinds: ['lore'] })).toEqual(['timeless']);
    expect(index.removeAfter(-1)).toBe(1);
    expect(index.removeAt(1, 'lore')).toBe(0);
    expect(index.remove(['timeless', 'absent'])).toBe(1);
    expect(index.size).toBe(0);
  });

  it('serves turn ids beyond 32 bits through narrative memory, as the store holds them', async () => {
    const memory = await openMemory({ path: join(dir, 'big-turns.db'), embedder: hashingEmbedder(), logger: silentLogger });
    const turns = [3_000_000_000, 5_000_000_000];
    for (const turnId of turns) await memory.add({ saveId: 's', turnId, text: `the bell tolls at turn ${turnId}` });
    expect((await memory.query('s', 'bell tolls', { maxTurnId: 4_000_000_000 })).map((hit) => hit.turnId)).toEqual([3_000_000_000]);
    await memory.rewind('s', 4_000_000_000);
    expect((await memory.query('s', 'bell tolls')).map((hit) => hit.turnId)).toEqual([3_000_000_000]);
    await memory.close();
  });
});

describe('narrative memory on the pipeline', () => {
  it('asks the store for its vector-search capability once, and reads each chunk once per query', async () => {
    const store = openInMemoryStore();
    let asked = 0;
    Object.defineProperty(store, 'vectorSearch', { get: () => { asked++; return null; } });
    const memory = await openMemory({ store, embedder: hashingEmbedder(), logger: silentLogger });
    for (const [turnId, text] of ['Borin forges a blade', 'the captain pays Borin', 'a storm floods the market'].entries()) await memory.add({ saveId: 's', turnId, text });
    const getChunks = store.getChunks.bind(store);
    const reads: string[][] = [];
    store.getChunks = async (chunkIds) => { reads.push([...chunkIds]); return getChunks(chunkIds); };
    const hits = await memory.query('s', 'Borin', { k: 2, focusTerms: ['captain'] });
    await memory.query('s', 'storm');
    expect(hits.map((hit) => [hit.text, hit.explanation.focusMatches])).toEqual(expect.arrayContaining([['the captain pays Borin', ['captain']], ['Borin forges a blade', []]]));
    expect(reads).toHaveLength(2);
    expect(asked).toBe(1);
    await memory.close();
  });
});
