import { describe, expect, it } from 'vitest';
import { Bm25Index, buildBm25, rankByBm25, rankWithBm25 } from '../src/retrieval/bm25.js';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

// Hand computation for the corpus below, k1 = 1.2, b = 0.75:
// docs: d0 = "cat sat mat" (3 tokens), d1 = "cat cat dog" (3), d2 = "dog bird" (2); N = 3, avgdl = 8/3.
// idf(cat) = ln(1 + (3 - 2 + 0.5)/(2 + 0.5)) = ln(1.6); idf(dog) = ln(1.6); idf(bird) = ln(1 + 2.5/1.5) = ln(8/3).
const idfCat = Math.log(1.6);
const idfBird = Math.log(8 / 3);
const term = (idf: number, tf: number, length: number) => (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * length) / (8 / 3)));

describe('BM25', () => {
  const corpus = ['cat sat mat', 'cat cat dog', 'dog bird'];

  it('matches hand-computed scores', () => {
    const index = buildBm25(corpus);
    const scores = index.scoreAll(['cat', 'bird']);
    expect(scores[0]).toBeCloseTo(term(idfCat, 1, 3), 12);
    expect(scores[1]).toBeCloseTo(term(idfCat, 2, 3), 12);
    expect(scores[2]).toBeCloseTo(term(idfBird, 1, 2), 12);
  });

  it('deduplicates query terms', () => {
    const index = buildBm25(corpus);
    expect(index.scoreAll(['cat', 'cat'])[1]).toBeCloseTo(index.scoreAll(['cat'])[1] as number, 12);
  });

  it('ranks best first, drops zero scores, keeps input order on ties', () => {
    expect(rankByBm25('cat', ['a', 'b', 'c'], corpus)).toEqual(['b', 'a']);
    expect(rankByBm25('zebra', ['a', 'b', 'c'], corpus)).toEqual([]);
    expect(rankByBm25('same', ['x', 'y', 'z'], ['same text', 'same text', 'other'])).toEqual(['x', 'y']);
    expect(rankByBm25('?!', ['x'], ['anything'])).toEqual([]);
  });

  it('reuses a built index for many queries', () => {
    const index = buildBm25(corpus);
    expect(rankWithBm25(index, 'dog', ['a', 'b', 'c'])).toEqual(['c', 'b']);
    expect(rankWithBm25(index, 'mat', ['a', 'b', 'c'])).toEqual(['a']);
  });

  it('updates statistics when documents are removed, as if they had never been added', () => {
    const incremental = new Bm25Index();
    for (const text of [...corpus, 'cat cat cat cat']) incremental.add(text);
    incremental.remove(3);
    const fresh = buildBm25(corpus);
    expect(incremental.size).toBe(3);
    expect(Array.from(incremental.scoreAll(['cat', 'dog'])).slice(0, 3)).toEqual(Array.from(fresh.scoreAll(['cat', 'dog'])));
    expect(incremental.frequencyOf('cat')).toBe(2);
  });

  it('applies the slot filter before taking the best', () => {
    const index = buildBm25(['apple apple apple', 'apple apple', 'apple']);
    expect(index.search(['apple'], 1, (slot) => slot === 2).map((hit) => hit.slot)).toEqual([2]);
  });
});

describe('BM25 with pseudo-relevance feedback in one pass', () => {
  const texts = Array.from({ length: 300 }, (_, index) => `doc ${index % 7} ${index % 11 === 0 ? 'dragon' : 'knight'} ${index % 5 === 0 ? 'gold hoard' : 'road inn'} word${index % 13} word${index % 17}`);
  const index = buildBm25(texts);
  index.remove(44);
  index.remove(55);

  it('gives the same ranking and scores as search with the expanded terms, filtered or not', () => {
    for (const accept of [undefined, (slot: number) => slot % 3 !== 0]) {
      for (const query of [['dragon'], ['gold', 'knight'], ['word3', 'dragon', 'dragon']]) {
        const { results, weights } = index.searchWithFeedback(query, 20, { documents: 3, terms: 5, weight: 0.5 }, accept);
        expect(weights.size).toBeGreaterThan(new Set(query).size);
        expect(results).toEqual(index.search([...weights.keys()], 20, accept, weights));
      }
    }
  });

  it('counts every accepted matching document in the statistics, not only the top', async () => {
    const { ScoreStatistics } = await import('../src/retrieval/score-statistics.js');
    const statistics = new ScoreStatistics();
    index.search(['dragon'], 3, (slot) => slot < 200, undefined, statistics);
    const matching = [...index.scoreAll(['dragon']).entries()].filter(([slot, score]) => slot < 200 && score > 0);
    expect(statistics.count).toBe(matching.length);
    expect(statistics.mean).toBeCloseTo(matching.reduce((sum, [, score]) => sum + score, 0) / matching.length, 10);
  });

  it('scores every match as scoreOf scores one document, to the last bit, and hands them over in first-seen order', () => {
    const random = seededRandom(23);
    const words = Array.from({ length: 30 }, (_, index) => `w${index}`);
    const documents = Array.from({ length: 2000 }, () => Array.from({ length: Math.floor(random() * 15) }, () => words[Math.floor(random() ** 2 * words.length)] as string));
    const index = new Bm25Index();
    for (const document of documents) index.addTokens(document);
    for (const slot of [5, 6, 700]) index.remove(slot);
    for (let query = 0; query < 20; query++) {
      const terms = Array.from({ length: 1 + Math.floor(random() * 4) }, () => words[Math.floor(random() * words.length)] as string);
      const seen: number[] = [];
      const scores: number[] = [];
      const sink = {
        add: (score: number, slot: number) => { seen.push(slot); scores.push(score); },
        addMany: (given: Float64Array, slots: Int32Array | null, count: number) => { for (let at = 0; at < count; at++) sink.add(given[at] as number, slots?.[at] as number); },
      };
      const results = index.search(terms, documents.length, undefined, undefined, sink);
      // Each term in query order, its live documents in slot order, each document the first time one of its terms is met.
      const expected: number[] = [];
      const met = new Set<number>();
      for (const term of new Set(terms)) documents.forEach((document, slot) => { if (index.isAlive(slot) && document.includes(term) && !met.has(slot)) { met.add(slot); expected.push(slot); } });
      expect(seen).toEqual(expected);
      seen.forEach((slot, at) => expect(Object.is(scores[at], index.scoreOf(terms, slot))).toBe(true));
      expect(results.length).toBe(expected.length);
    }
  });

  it('scores the same whether postings are appended per document or by a bulk counting sort', () => {
    const random = seededRandom(11);
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`);
    // Skewed word choice (like text), repeated words, some empty documents.
    const documents = Array.from({ length: 700 }, () => Array.from({ length: Math.floor(random() * 12) }, () => words[Math.floor(random() ** 2 * words.length)] as string));
    const queries = Array.from({ length: 30 }, () => [words[Math.floor(random() * words.length)] as string, words[Math.floor(random() * words.length)] as string]);
    // One document at a time, searching after each (the per-document path).
    const incremental = new Bm25Index();
    // Bulk loads (a rebuild) mixed with small batches and removals, searching only between batches.
    const bulk = new Bm25Index();
    const batches = [300, 5, 1, 200, 64, 65, 65];
    let next = 0;
    for (const size of batches) {
      for (const document of documents.slice(next, next + size)) {
        incremental.addTokens(document);
        incremental.search(['w0'], 1);
        bulk.addTokens(document);
      }
      next += size;
      if (size === 5) for (const slot of [3, 17, next - 1]) { incremental.remove(slot); bulk.remove(slot); }
      for (const query of queries) {
        expect(bulk.search(query, 20)).toEqual(incremental.search(query, 20));
        expect([...bulk.scoreAll(query)]).toEqual([...incremental.scoreAll(query)]);
      }
      expect(bulk.feedbackTerms([0, 1, 2, next - 1], new Set(['w1']), 5)).toEqual(incremental.feedbackTerms([0, 1, 2, next - 1], new Set(['w1']), 5));
      expect(bulk.scoreOf(['w2', 'w3'], next - 2)).toBe(incremental.scoreOf(['w2', 'w3'], next - 2));
    }
    expect(next).toBe(documents.length);
  });

  // A load never searched has no postings lists: its write makes the posting sections from each document's terms
  // (documentPostingSectionsSteps), the bytes the lists give, and its first search after makes the lists.
  it('writes, never searched, the bytes a searched copy writes, and searches as it after', () => {
    const random = seededRandom(17);
    const words = Array.from({ length: 50 }, (_, index) => `w${index}`);
    const documents = Array.from({ length: 900 }, () => Array.from({ length: Math.floor(random() * 12) }, () => words[Math.floor(random() ** 2 * words.length)] as string));
    // Block bounds persisted at every size (no removed slot): a load never searched makes them from the sections.
    const withBounds = { reach: 2, fromSlots: 0, budgetBytes: 2 ** 30 };
    const bytesOf = (index: Bm25Index, bounds?: typeof withBounds) => {
      const writer = new SnapshotWriter();
      index.writeState(writer, 'bm25', bounds);
      return writer.finish({ version: 1 });
    };
    for (const removed of [[], [0, 450, 899]]) {
      const unsearched = new Bm25Index();
      const searched = new Bm25Index();
      documents.forEach((document, slot) => {
        unsearched.addTokens(document);
        searched.addTokens(document);
        if (slot % 97 === 0) searched.search(['w1'], 1);
      });
      for (const slot of removed) for (const index of [unsearched, searched]) index.remove(slot);
      const written = bytesOf(unsearched);
      expect(Buffer.compare(written, bytesOf(searched))).toBe(0);
      const bounded = bytesOf(unsearched, withBounds);
      expect(Buffer.compare(bounded, bytesOf(searched, withBounds))).toBe(0);
      if (removed.length === 0) expect(bounded.length).toBeGreaterThan(written.length);
      // A second write (still never searched) gives the same bytes; a search after finds what the searched copy finds.
      expect(Buffer.compare(bytesOf(unsearched), written)).toBe(0);
      for (const query of [['w0'], ['w3', 'w17'], ['w49']]) expect(unsearched.search(query, 10)).toEqual(searched.search(query, 10));
      expect(Buffer.compare(bytesOf(unsearched), written)).toBe(0);
    }
  });

  it('indexes term ids as it indexes their terms', () => {
    const byTokens = new Bm25Index();
    const byIds = new Bm25Index();
    for (const document of [['red', 'door', 'red'], ['blue', 'door'], []]) {
      byTokens.addTokens(document);
      byIds.addTermIds(Int32Array.from(document, (term) => byIds.termId(term)), document.length);
    }
    expect(byIds.termId('door')).toBe(1);
    expect([...byIds.scoreAll(['red', 'door'])]).toEqual([...byTokens.scoreAll(['red', 'door'])]);
    expect(byIds.averageLength).toBe(byTokens.averageLength);
  });

  // Each document's term ids are persisted as u16 below 65,536 terms, i32 from it: both widths read back whole and
  // take writes (a u16 copy is widened at its first, so a new term's id past 65,535 is kept, not truncated).
  it.each([
    ['u16 term ids', 65_535],
    ['i32 term ids', 65_536],
  ] as const)('reads back a persisted index with %s and takes writes after', (_name, terms) => {
    const index = new Bm25Index();
    const texts: string[] = [];
    for (let at = 0; at < terms; at += 5) texts.push(Array.from({ length: Math.min(5, terms - at) }, (_, k) => `w${at + k}`).join(' '));
    for (const text of texts) index.add(text);
    const writer = new SnapshotWriter();
    index.writeState(writer, 'bm25');
    const bytes = writer.finish({ version: 1 });
    const restored = Bm25Index.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'bm25', {});
    const queries = [['w0'], [`w${terms - 1}`], ['w7', 'w12345']];
    for (const query of queries) expect(restored.search(query, 5)).toEqual(index.search(query, 5));
    for (const copy of [index, restored]) {
      copy.add('w3 brandnew70000 brandnew70000');
      copy.add('brandnew70001 w3');
    }
    for (const query of [['brandnew70000'], ['brandnew70001'], ['w3']]) expect(restored.search(query, 5)).toEqual(index.search(query, 5));
    expect(restored.search(['brandnew70001'], 5).map((hit) => hit.slot)).toEqual([texts.length + 1]);
  });

  // Frequencies are persisted as u8 when the largest is below 256, u16 from it (the kind read back from the
  // section): both widths read back with the same scores, and a u8 copy takes a frequency past 255 at a write.
  it.each([
    ['u8 frequencies', 255, 'u8'],
    ['u16 frequencies', 256, 'u16'],
  ] as const)('reads back a persisted index with %s and takes writes after', (_name, repeats, kind) => {
    const texts = [`${'echo '.repeat(repeats)}cave`, 'echo bird', 'cave bird bird', 'bird song'];
    const index = new Bm25Index();
    for (const text of texts) index.add(text);
    const persist = (source: Bm25Index) => {
      const writer = new SnapshotWriter();
      source.writeState(writer, 'bm25');
      return SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 1 })));
    };
    const reader = persist(index);
    expect([reader.kindOf('bm25.frequenciesFlat'), reader.kindOf('bm25.postingFrequencies')]).toEqual([kind, kind]);
    const restored = Bm25Index.readState(reader, 'bm25', {});
    for (const query of [['echo'], ['cave', 'bird'], ['song']]) expect(restored.search(query, 5)).toEqual(index.search(query, 5));
    for (const copy of [index, restored]) copy.add(`${'echo '.repeat(300)}storm`);
    for (const query of [['echo'], ['storm'], ['bird']]) expect(restored.search(query, 5)).toEqual(index.search(query, 5));
    // 300 kept, not wrapped to 44: the new document outranks the one with 255 or 256.
    expect(restored.search(['echo'], 1).map((hit) => hit.slot)).toEqual([texts.length]);
    const again = persist(restored);
    expect(again.kindOf('bm25.frequenciesFlat')).toBe('u16');
    const reread = Bm25Index.readState(again, 'bm25', {});
    for (const query of [['echo'], ['storm'], ['cave', 'bird']]) expect(reread.search(query, 5)).toEqual(index.search(query, 5));
  });
  // A load keeps each document's term ids u16 and frequencies u8 while they fit (their persisted widths), and so the
  // lists a bulk posting makes of them; a document past either widens them, its values kept, not wrapped.
  it('widens the narrow term ids and frequencies when a document needs more, scoring as one built wide', () => {
    const random = seededRandom(5);
    const words = Array.from({ length: 30 }, (_, index) => `w${index}`);
    const documents = Array.from({ length: 200 }, () => Array.from({ length: 1 + Math.floor(random() * 10) }, () => words[Math.floor(random() * words.length)] as string));
    const bulk = new Bm25Index();
    const reference = new Bm25Index();
    for (const document of documents) {
      bulk.addTokens(document);
      reference.addTokens(document);
      reference.search(['w0'], 1);
    }
    const queries = [['w1'], ['w2', 'w3'], ['w4', 'fresh1']];
    for (const query of queries) expect(bulk.search(query, 10)).toEqual(reference.search(query, 10));
    // 300 repeats of a term whose list the bulk posting made narrow, and a term past 65,535 ids.
    const late = [...Array.from({ length: 300 }, () => 'w1'), 'w2', 'fresh1'];
    const many = Array.from({ length: 65_600 }, (_, index) => `t${index}`);
    for (const copy of [bulk, reference]) {
      copy.addTokens(late);
      copy.addTokens(many);
      copy.addTokens(['t65599', 'w1', 'w1']);
    }
    for (const query of [...queries, ['t65599'], ['t3', 'w1']]) expect(bulk.search(query, 10)).toEqual(reference.search(query, 10));
    expect(bulk.search(['w1'], 1).map((hit) => hit.slot)).toEqual([documents.length]);
    const writer = new SnapshotWriter();
    bulk.writeState(writer, 'bm25');
    const reader = SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 1 })));
    expect([reader.kindOf('bm25.termsFlat'), reader.kindOf('bm25.frequenciesFlat'), reader.kindOf('bm25.postingFrequencies')]).toEqual(['i32', 'u16', 'u16']);
    const restored = Bm25Index.readState(reader, 'bm25', {});
    for (const query of [...queries, ['t65599'], ['t3', 'w1']]) expect(restored.search(query, 10)).toEqual(reference.search(query, 10));
  });
  // A persisted copy's posting slots are decoded from their gaps as each term is first used, the gaps read from the
  // file into one reused buffer (no array keeps them); the file closes once every list is decoded and the rest read.
  it('scores a persisted copy term by term as the original, and lets its file close once every list is decoded', () => {
    const random = seededRandom(13);
    // Lists long enough that their gaps span several 4 KiB blocks (the common terms) and short ones.
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`);
    const original = new Bm25Index();
    for (let slot = 0; slot < 6000; slot++) original.addTokens(Array.from({ length: 1 + Math.floor(random() * 12) }, () => words[Math.floor(random() * Math.sqrt(random()) * words.length)] as string));
    const writer = new SnapshotWriter();
    original.writeState(writer, 'bm25');
    const inner = bytesSnapshotFile(writer.finish({ version: 1 }));
    let closed = false;
    const reader = SnapshotReader.open({ byteLength: inner.byteLength, read: (target, position) => inner.read(target, position), close: () => (closed = true) });
    const restored = Bm25Index.readState(reader, 'bm25', {});
    reader.done();
    const queries = [['w0'], ['w39', 'w1'], ['w20'], ['w0', 'w5', 'w7']];
    for (const query of queries) expect(restored.search(query, 20)).toEqual(original.search(query, 20));
    expect(closed).toBe(false);
    // Every other list, then a write (which reads the rest): the same bytes as the original's.
    for (const word of words) expect(restored.search([word], 50)).toEqual(original.search([word], 50));
    const again = new SnapshotWriter();
    restored.writeState(again, 'bm25');
    const expected = new SnapshotWriter();
    original.writeState(expected, 'bm25');
    expect(again.finish({ version: 1 }).equals(expected.finish({ version: 1 }))).toBe(true);
    expect(closed).toBe(true);
  });
  // A filter's statistics (`corpusWithin`) count a term's documents from its list, which a restored index reads on
  // first use: before, they read the list only if something else had, so a term met first in such a search counted
  // no document and was left out of the scores.
  it("scores a restored copy under a filter's statistics as the original, for terms whose lists were not read yet", () => {
    const original = new Bm25Index();
    for (let slot = 0; slot < 60; slot++) original.add(slot % 3 === 0 ? 'dragon sleeps here' : slot % 5 === 0 ? 'dragon cat' : 'a cat sat');
    const writer = new SnapshotWriter();
    original.writeState(writer, 'bm25');
    const restored = Bm25Index.readState(SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 1 }))), 'bm25', {});
    const even = (slot: number) => slot % 2 === 0;
    const corpus = restored.corpusWithin(even);
    const expected = original.search(['dragon', 'cat'], 10, undefined, undefined, undefined, original.corpusWithin(even));
    expect(expected.length).toBeGreaterThan(0);
    expect(restored.search(['dragon', 'cat'], 10, undefined, undefined, undefined, corpus)).toEqual(expected);
  });
  // One bulk posting leaves the lists' frequencies end to end (written as a view); lists appended one by one are
  // copied together: the same bytes either way, u8 or u16.
  it.each([
    ['u8', 3],
    ['u16', 300],
  ] as const)('writes the same %s posting frequencies whether its lists come from one bulk posting or from appends', (kind, repeats) => {
    const random = seededRandom(9);
    const words = Array.from({ length: 25 }, (_, index) => `w${index}`);
    const documents = Array.from({ length: 150 }, (_, slot) => [...Array.from({ length: 1 + Math.floor(random() * 8) }, () => words[Math.floor(random() * words.length)] as string), ...(slot === 70 ? Array.from({ length: repeats }, () => 'w4') : [])]);
    const bulk = new Bm25Index();
    const appended = new Bm25Index();
    for (const document of documents) {
      bulk.addTokens(document);
      appended.addTokens(document);
      appended.search(['w0'], 1);
    }
    const bytesOf = (index: Bm25Index) => {
      const writer = new SnapshotWriter();
      index.writeState(writer, 'bm25');
      return writer.finish({ version: 1 });
    };
    const written = bytesOf(bulk);
    expect(written.equals(bytesOf(appended))).toBe(true);
    expect(SnapshotReader.open(bytesSnapshotFile(written)).kindOf('bm25.postingFrequencies')).toBe(kind);
  });
  // A load persisted midway lets its lists go (made again at the next read, in one bulk posting): the writes and
  // searches after are those of an index that kept them; once searched, the lists are kept.
  it('scores and writes the same after its postings lists are let go midway through a load', () => {
    const random = seededRandom(13);
    const words = Array.from({ length: 30 }, (_, index) => `w${index}`);
    const documents = Array.from({ length: 400 }, () => Array.from({ length: 1 + Math.floor(random() * 9) }, () => words[Math.floor(random() * words.length)] as string));
    const released = new Bm25Index();
    const kept = new Bm25Index();
    const bytesOf = (index: Bm25Index) => {
      const writer = new SnapshotWriter();
      index.writeState(writer, 'bm25');
      return writer.finish({ version: 1 });
    };
    for (const [at, document] of documents.entries()) {
      released.addTokens(document);
      kept.addTokens(document);
      if (at === 150 || at === 151 || at === 300) {
        expect(bytesOf(released).equals(bytesOf(kept))).toBe(true);
        released.releasePostings();
      }
    }
    expect(bytesOf(released).equals(bytesOf(kept))).toBe(true);
    for (const query of [['w1'], ['w2', 'w9'], ['w29', 'w0', 'w3']]) expect(released.search(query, 20)).toEqual(kept.search(query, 20));
    released.releasePostings();
    released.addTokens(['w1', 'w1', 'w5']);
    kept.addTokens(['w1', 'w1', 'w5']);
    expect(released.search(['w1', 'w5'], 20)).toEqual(kept.search(['w1', 'w5'], 20));
    expect(bytesOf(released).equals(bytesOf(kept))).toBe(true);
  });
});
