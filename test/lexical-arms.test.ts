// The pruned lexical and window arms give exactly what scoring every match gives: the same slots, the same doubles.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import { lexicalArms, STATISTICS_HEAD } from '../src/retrieval/lexical-arms.js';
import type { LexicalArms, LexicalArmsInput } from '../src/retrieval/lexical-arms.js';

const WORDS = ['lantern', 'mill', 'river', 'bread', 'fire', 'song', 'rowan', 'gate', 'cold', 'night', 'wolf', 'ash'];

/** A corpus of short texts over few words (three common, six rare, three never: many matches, many ties), some removed. */
const corpusArbitrary = (minimum: number, maximum: number) =>
  fc.record({
    texts: fc.array(fc.array(fc.nat({ max: WORDS.length - 1 }).map((word) => WORDS[word < 6 ? word % 3 : word] as string), { minLength: 1, maxLength: 9 }), { minLength: minimum, maxLength: maximum, size: 'max' }),
    removed: fc.array(fc.nat(), { maxLength: 30, size: 'max' }),
  });

const searchArbitrary = fc.record({
  query: fc.array(fc.constantFrom(...WORDS, 'unheard'), { minLength: 1, maxLength: 4 }),
  limit: fc.constantFrom(1, 3, 10, 50, 1000),
  feedback: fc.option(fc.record({ documents: fc.constantFrom(1, 3), terms: fc.constantFrom(2, 5), weight: fc.constantFrom(0.5, 1) }), { nil: undefined }),
  window: fc.option(fc.record({ reach: fc.constantFrom(1, 2, 3), weight: fc.constant(1) }), { nil: undefined }),
  filter: fc.option(fc.integer({ min: 2, max: 5 }), { nil: undefined }),
  ofAccepted: fc.boolean(),
});

function build(texts: string[][], removed: number[]): CorpusIndex {
  const index = new CorpusIndex(0);
  index.add(texts.map((words, turn) => ({ id: `c${turn}`, position: turn, kind: 'narrative', text: words.join(' '), embedding: null })));
  if (texts.length > 0) index.remove(removed.map((at) => `c${at % texts.length}`));
  return index;
}

/** Everything an arm answers, with each statistic to the last bit. */
function answers(arms: LexicalArms, slots: number, accept?: (slot: number) => boolean) {
  const window = arms.window;
  const everyWindow = window === undefined ? [] : Array.from({ length: slots }, (_, slot) => (accept === undefined || accept(slot) ? window.scoreOf(slot) : 0));
  const result = {
    terms: arms.terms,
    weights: arms.weights === undefined ? undefined : [...arms.weights],
    results: arms.results,
    statistics: [arms.statistics.count, arms.statistics.sum, arms.statistics.sumOfSquares],
    window: window === undefined ? undefined : { results: window.results, statistics: [window.statistics.count, window.statistics.sum, window.statistics.sumOfSquares], everyWindow },
  };
  window?.release();
  return result;
}

type SearchCase = typeof searchArbitrary extends fc.Arbitrary<infer T> ? T : never;

function bothWays(index: CorpusIndex, search: SearchCase, boundScale?: { peaks: number; windows: number }) {
  const slots = index.bm25.slots;
  const accept = search.filter === undefined ? undefined : (slot: number) => slot % (search.filter as number) !== 1;
  const corpus = search.ofAccepted && accept !== undefined ? index.bm25.corpusWithin(accept) : undefined;
  const input: LexicalArmsInput = { bm25: index.bm25, order: index.order, terms: index.analyze(search.query.join(' ')), limit: search.limit, accept, corpus, feedback: search.feedback, window: search.window, headSearchSlots: 0 };
  // A common term's bounds are made when it is asked for a second time: ask once before.
  if (search.window !== undefined) index.bm25.headReady(input.terms, search.window.reach);
  return { pruned: answers(lexicalArms({ ...input, boundScale }), slots, accept), exhaustive: answers(lexicalArms({ ...input, prune: false }), slots, accept) };
}

describe('lexicalArms: pruned against every match', () => {
  it('gives the same slots, scores, statistics and window sums (feedback, windows, filters, ties, small saves, removals)', () => {
    fc.assert(
      fc.property(corpusArbitrary(0, 400), searchArbitrary, ({ texts, removed }, search) => {
        const { pruned, exhaustive } = bothWays(build(texts, removed), search);
        expect(pruned).toEqual(exhaustive);
      }),
      { seed: 20_2026, numRuns: 300, endOnFailure: true },
    );
  });
  it('gives the same answers with k = 1000 over a save of a few thousand chunks', () => {
    fc.assert(
      fc.property(corpusArbitrary(1500, 2500), searchArbitrary, ({ texts, removed }, search) => {
        const { pruned, exhaustive } = bothWays(build(texts, removed), { ...search, limit: 1000 });
        expect(pruned).toEqual(exhaustive);
      }),
      { seed: 7, numRuns: 12, endOnFailure: true },
    );
  });
  // Unfiltered and with no removal (a dense order), the BM25 pass scores only the blocks whose bounds reach the heads.
  const headCase = fc.record({
    texts: fc.array(fc.array(fc.nat({ max: WORDS.length - 1 }).map((word) => WORDS[word < 6 ? word % 3 : word] as string), { minLength: 1, maxLength: 9 }), { minLength: 300, maxLength: 3000, size: 'max' }),
    search: searchArbitrary.map((search) => ({ ...search, filter: undefined, window: search.window ?? { reach: 2, weight: 1 } })),
  });
  it('gives the same answers when the BM25 pass skips blocks (no filter, no removal: block bounds)', () => {
    fc.assert(
      fc.property(headCase, ({ texts, search }) => {
        const { pruned, exhaustive } = bothWays(build(texts, []), search);
        expect(pruned).toEqual(exhaustive);
      }),
      { seed: 31, numRuns: 40, endOnFailure: true },
    );
  });
  for (const [bound, boundScale] of [['peak', { peaks: 0.5, windows: 1 }], ['window', { peaks: 1, windows: 0.5 }]] as const) {
    it(`is checked: with every block's ${bound} bound halved (wrong), the same comparison fails`, () => {
      let failed = 0;
      fc.assert(
        fc.property(headCase, ({ texts, search }) => {
          const { pruned, exhaustive } = bothWays(build(texts, []), search, boundScale);
          if (JSON.stringify(pruned) !== JSON.stringify(exhaustive)) failed++;
        }),
        { seed: 31, numRuns: 40 },
      );
      expect(failed).toBeGreaterThan(0);
    });
  }
  it('standardises over the best STATISTICS_HEAD scores, added best first', () => {
    const index = build(Array.from({ length: 300 }, (_, turn) => (turn % 3 === 0 ? ['lantern', 'mill'] : turn % 3 === 1 ? ['lantern'] : ['bread'])), []);
    const arms = lexicalArms({ bm25: index.bm25, order: index.order, terms: ['lantern'], limit: 10 });
    const every = index.bm25.search(['lantern'], 1000);
    expect(every).toHaveLength(200);
    expect(arms.results).toEqual(every.slice(0, 10));
    expect(arms.statistics.count).toBe(STATISTICS_HEAD);
    let sum = 0;
    for (const { score } of every.slice(0, STATISTICS_HEAD)) sum += score;
    expect(arms.statistics.sum).toBe(sum);
  });
});

describe('Bm25Index.headReady', () => {
  it('answers false the first time a common term is asked about, true after, and true for rare terms alone', () => {
    const index = build(Array.from({ length: 400 }, (_, turn) => (turn % 2 === 0 ? ['lantern', 'mill'] : turn === 7 ? ['rowan'] : ['bread'])), []);
    expect(index.bm25.headReady(['lantern', 'rowan'], 2)).toBe(false);
    expect(index.bm25.headReady(['lantern', 'rowan'], 2)).toBe(true);
    expect(index.bm25.headReady(['rowan'], 2)).toBe(true);
    expect(index.bm25.headReady(['bread'], 2)).toBe(false);
    // A change to the corpus forgets what was asked.
    index.add([{ id: 'c400', position: 400, kind: 'narrative', text: 'lantern', embedding: null }]);
    expect(index.bm25.headReady(['lantern'], 2)).toBe(false);
  });
});

describe('Bm25Index.boundsBytes', () => {
  it('counts the common terms\' kept block bounds, and the index\'s byteSize counts them (the hot-index budget sees them)', () => {
    const index = build(Array.from({ length: 400 }, (_, turn) => (turn % 2 === 0 ? ['lantern', 'mill'] : ['bread', 'river'])), []);
    const before = index.byteSize;
    expect(index.bm25.boundsBytes).toBe(0);
    const input: LexicalArmsInput = { bm25: index.bm25, order: index.order, terms: index.analyze('lantern'), limit: 10, window: { reach: 2, weight: 1 }, headSearchSlots: 0 };
    index.bm25.headReady(input.terms, 2);
    expect(index.bm25.headReady(input.terms, 2)).toBe(true);
    lexicalArms(input).window?.release();
    // One common term kept: its peaks and window bounds, a byte per block of 16 slots each, and its stretch starts.
    const blocks = Math.ceil(400 / 16);
    expect(index.bm25.boundsBytes).toBeGreaterThanOrEqual(2 * blocks);
    expect(index.byteSize - before).toBe(index.bm25.boundsBytes);
  });
});

describe('Bm25Index rare terms\' kept bounds', () => {
  it('keeps a rare term\'s bounds after its first head search (counted in boundsBytes) and answers the same with them, until the corpus changes', () => {
    // 'ash' in 3 of 3,000 chunks (rare: postings under a quarter of the blocks); 'mill' in every other one.
    const texts = Array.from({ length: 3000 }, (_, turn) => (turn % 1000 === 7 ? ['ash', 'mill'] : turn % 2 === 0 ? ['mill', 'river'] : ['bread']));
    const index = build(texts, []);
    const search: SearchCase = { query: ['ash', 'bread'], limit: 10, feedback: undefined, window: { reach: 2, weight: 1 }, filter: undefined, ofAccepted: false };
    index.bm25.headReady(['bread'], 2);
    const first = bothWays(index, search);
    expect(first.pruned).toEqual(first.exhaustive);
    const kept = index.bm25.boundsBytes;
    // Two terms kept: the common one (a byte of peaks and windows per block, its stretch starts) and the rare one
    // (its stretch starts and more): above the common one's bytes plus the stretch starts again.
    const blocks = Math.ceil(3000 / 16);
    const starts = 4 * ((blocks >> 6) + 2);
    expect(kept).toBeGreaterThan(2 * blocks + 2 * starts);
    const again = bothWays(index, search);
    expect(again.pruned).toEqual(first.pruned);
    expect(index.bm25.boundsBytes).toBe(kept);
    index.add([{ id: 'c3000', position: 3000, kind: 'narrative', text: 'ash ash', embedding: null }]);
    const changed = bothWays(index, search);
    expect(changed.pruned).toEqual(changed.exhaustive);
    expect(changed.pruned.results).not.toEqual(first.pruned.results);
  });
});

describe('Bm25Index.slotScorer', () => {
  it('scores a slot alone with the double scoring every match gives it (feedback weights, filtered statistics)', () => {
    fc.assert(
      fc.property(corpusArbitrary(1, 300), fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }), fc.boolean(), ({ texts, removed }, query, filtered) => {
        const index = build(texts, removed);
        const bm25 = index.bm25;
        const corpus = filtered ? bm25.corpusWithin((slot) => slot % 3 !== 0) : undefined;
        const weights = new Map(query.map((term, position) => [term, 1 / (position + 1)]));
        const score = bm25.slotScorer(query, weights, corpus);
        const every = new Map(bm25.search(query, bm25.slots, undefined, weights, undefined, corpus).map(({ slot, score: value }) => [slot, value]));
        for (let slot = 0; slot < bm25.slots; slot++) expect(score(slot)).toBe(every.get(slot) ?? 0);
      }),
      { seed: 11, numRuns: 100, endOnFailure: true },
    );
  });
});
