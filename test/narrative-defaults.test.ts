// The narrative corpus's defaults: the scene speaker focus and the soft tail on for a save, off for the lore book and recall, and their off switches.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { CORPUS_DEFAULTS, DEFAULT_SOFT_TAIL } from '../src/retrieval/retrieval-defaults.js';
import { resolveSearchRequest } from '../src/retrieval/resolve-search-request.js';
import { SOFT_TAIL_HEAD, SOFT_TAIL_KEEP } from '../src/retrieval/soft-tail.js';
import { tempDir, wordVectorTableOf } from './helpers.js';

describe('the corpora\'s defaults for the scene speaker focus and the soft tail', () => {
  it('has both on for narrative (focus 1, tail keep 10 over head 200) and both off for the lore book and recall', () => {
    expect(DEFAULT_SOFT_TAIL).toEqual({ keep: SOFT_TAIL_KEEP, head: SOFT_TAIL_HEAD });
    expect(DEFAULT_SOFT_TAIL).toEqual({ keep: 10, head: 200 });
    const narrative = resolveSearchRequest('narrative', 'What did Ann bake?', {});
    expect(narrative.signals.sceneSpeakerFocus).toBe(1);
    expect(narrative.softTail).toEqual({ keep: 10, head: 200 });
    for (const corpus of ['lore', 'recall'] as const) {
      expect(CORPUS_DEFAULTS[corpus].signals.sceneSpeakerFocus).toBe(0);
      expect(CORPUS_DEFAULTS[corpus].softTail).toBeNull();
      const request = resolveSearchRequest(corpus, 'What did Ann bake?', {});
      expect(request.signals.sceneSpeakerFocus).toBe(0);
      expect(request.softTail).toBeUndefined();
    }
  });

  it('turns each off with 0 or null for the focus and null for the tail, and keeps a caller\'s own setting', () => {
    for (const off of [0, null]) expect(resolveSearchRequest('narrative', 'q', { sceneSpeakerFocus: off }).signals.sceneSpeakerFocus).toBe(0);
    expect(resolveSearchRequest('narrative', 'q', { softTail: null }).softTail).toBeUndefined();
    expect(resolveSearchRequest('narrative', 'q', { sceneSpeakerFocus: 0.5, softTail: { keep: 3 } })).toMatchObject({ signals: { sceneSpeakerFocus: 0.5 }, softTail: { keep: 3, head: 200 } });
    // The lore book takes them when asked.
    expect(resolveSearchRequest('lore', 'q', { sceneSpeakerFocus: 1, softTail: {} })).toMatchObject({ signals: { sceneSpeakerFocus: 1 }, softTail: { keep: 10, head: 200 } });
  });
});

// Two word families far apart (bread and light) in 3 dimensions: a static embedder over them gives the save soft matching.
const WORDS: [string, number[]][] = [
  ['bread', [0, 10, 100]],
  ['loaf', [0, 20, 95]],
  ['cake', [0, 30, 90]],
  ['rye', [5, 25, 90]],
  ['lighthouse', [100, 10, 0]],
  ['beacon', [90, 30, 0]],
  ['lamp', [60, 60, 0]],
];
const table = wordVectorTableOf(WORDS);
// Its vectors all zero: the chunks are found by words, and aligned by the table.
const embedder = { provider: 'static', modelId: 'test-table', dimensions: 3, maxBatchSize: 100, cacheable: false, table, rowsOf: () => [], embed: async (texts: readonly string[]) => texts.map(() => new Float32Array(3)) };

/**
 * A fair scene (Ann and Bo), 70 short turns on bread, then a long one whose bread is weak by words but whose
 * lighthouse sits near the question's beacon: past soft matching's head of 50, where only the tail's head reaches.
 */
const TURNS = [
  { speaker: 'Ann', scene: 1, text: 'I baked bread for the county fair beacon.' },
  { speaker: 'Bo', scene: 1, text: 'The county fair sounds like fun, I will bring bread too!' },
  { speaker: 'Ann', scene: 1, text: 'The fair judges loved the bread.' },
  ...Array.from({ length: 70 }, (_, n) => ({ speaker: n % 2 === 0 ? 'Bo' : 'Ann', scene: 2 + Math.floor(n / 5), text: `Bread on day ${n}.` })),
  { speaker: 'Ann', scene: 20, text: 'On a long walk past the harbour, the hills and the old mill by the river I carried some bread and saw the lighthouse lamp.' },
];

describe('the narrative defaults in a save', () => {
  const directory = tempDir('mnemo-narrative-defaults-');

  it('ranks by default as with both asked for, and with both off as the search without them (the default before)', async () => {
    const memory = await openMemory({ path: join(directory, 'defaults.db'), embedder, logger: silentLogger });
    await memory.addMany(TURNS.map(({ text, speaker, scene }, turnId) => ({ saveId: 's', turnId, text, metadata: { speaker, scene } })));
    const question = 'What bread did Ann bake for the fair beacon?';
    const k = TURNS.length;
    const byDefault = await memory.query('s', question, { k });
    expect(byDefault).toEqual(await memory.query('s', question, { k, sceneSpeakerFocus: 1, softTail: { keep: 10, head: 200 } }));
    const off = await memory.query('s', question, { k, sceneSpeakerFocus: 0, softTail: null });
    expect(await memory.query('s', question, { k, sceneSpeakerFocus: null, softTail: null })).toEqual(off);
    // The focus takes Bo's scene lift in the fair scene: his turn's scene part is there with both off, gone by default.
    const scenePart = (hits: typeof off, turn: number) => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.scene;
    expect(scenePart(off, 1)).toBeGreaterThan(0);
    expect(scenePart(byDefault, 1)).toBeUndefined();
    // The soft tail leaves the first 10 as the focus alone ranks them, and reorders only past them.
    const focusOnly = await memory.query('s', question, { k, softTail: null });
    expect(byDefault.slice(0, 10)).toEqual(focusOnly.slice(0, 10));
    expect(new Set(byDefault.map((hit) => hit.id))).toEqual(new Set(focusOnly.map((hit) => hit.id)));
    // Past them it raises the weakly worded turn whose lighthouse sits near the beacon (turn 71), which soft matching's own head of 50 never reaches.
    const place = (hits: typeof off, turn: number) => hits.findIndex((hit) => hit.turnId === turn);
    expect(place(focusOnly, 71)).toBeGreaterThan(50);
    expect(place(byDefault, 71)).toBe(10);
    expect(place(off, 71)).toBe(place(focusOnly, 71));
    // At k <= 10 the tail is skipped: the default is the focus alone.
    expect(await memory.query('s', question, { k: 5 })).toEqual(await memory.query('s', question, { k: 5, softTail: null }));
    await memory.close();
  });
});
