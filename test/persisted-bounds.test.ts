// The common terms' block bounds persisted with a BM25 index: read back equal to freshly made ones, used from a query's first ask, never used when stale or corrupt, dropped by a write and made again by the next persist.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { runSteps } from '../src/core/time-slice.js';
import { commonTermBoundsSteps, HEAD_SEARCH_SLOTS, termBlockBounds } from '../src/retrieval/block-bounds.js';
import { Bm25Index, PERSISTED_BOUNDS } from '../src/retrieval/bm25.js';
import type { PersistedBoundsOptions } from '../src/retrieval/bm25.js';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import { lexicalArms } from '../src/retrieval/lexical-arms.js';
import { PersistedBounds, termsToPersist, writeBoundsSteps } from '../src/retrieval/persisted-bounds.js';
import { DEFAULT_WINDOW_SUM } from '../src/retrieval/retrieval-defaults.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

const WORDS = Array.from({ length: 30 }, (_, index) => `w${index}`);
/** Bounds for every save (a small one too), within a large budget, for the default reach. */
const EVERY_SAVE: PersistedBoundsOptions = { reach: 2, fromSlots: 0, budgetBytes: 2 ** 30 };

/** Texts over few words, the first ones common (in most blocks), the later ones rare. */
function texts(count: number, seed: number): string[][] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(random() * 10) }, () => WORDS[Math.floor(random() * random() * WORDS.length)] as string));
}

/** Term id -> word, for the words an index holds. */
function namesOf(index: Bm25Index): (id: number) => string {
  const names = new Map(WORDS.filter((word) => index.frequencyOf(word) > 0).map((word) => [index.termId(word), word]));
  return (id) => names.get(id) ?? '';
}

function built(documents: readonly string[][]): Bm25Index {
  const index = new Bm25Index();
  for (const document of documents) index.addTokens(document);
  return index;
}

function written(index: Bm25Index, options: PersistedBoundsOptions = EVERY_SAVE): Buffer {
  const writer = new SnapshotWriter();
  index.writeState(writer, 'bm25', options);
  return writer.finish({ version: 1 });
}

function restored(bytes: Buffer, onClose?: () => void): Bm25Index {
  const inner = bytesSnapshotFile(bytes);
  const reader = SnapshotReader.open({ byteLength: inner.byteLength, read: (target, position) => inner.read(target, position), close: () => onClose?.() });
  const index = Bm25Index.readState(reader, 'bm25', {});
  reader.done();
  return index;
}

/** Every slot's norm as `Bm25Index` makes it (k1 = 1.2, b = 0.75). */
function norms(documents: readonly string[][]): Float64Array {
  const average = documents.reduce((sum, document) => sum + document.length, 0) / documents.length;
  return Float64Array.from(documents, (document) => 1.2 * (1 - 0.75 + (0.75 * document.length) / average));
}

/** Where a section's bytes begin in a snapshot (its offset in the body plus the body's start). */
function sectionStart(bytes: Buffer, name: string): number {
  const length = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.toString('utf8', 24, 24 + length)) as { sections: Record<string, [string, number, number, number]> };
  return Math.ceil((24 + length) / 8) * 8 + (header.sections[name] as [string, number, number, number])[1];
}

/** The head search against every match, on a corpus's first lexical query (feedback and windows as the defaults). */
function firstAsk(index: CorpusIndex, bm25: Bm25Index, query: string) {
  const terms = index.analyze(query);
  const input = { bm25, order: index.order, terms, limit: 10, feedback: { documents: 3, terms: 5, weight: 0.5 }, window: { reach: 2, weight: 1 }, headSearchSlots: 0 };
  const answer = (arms: ReturnType<typeof lexicalArms>) => {
    const result = { terms: arms.terms, results: arms.results, statistics: [arms.statistics.count, arms.statistics.sum, arms.statistics.sumOfSquares], window: arms.window?.results };
    arms.window?.release();
    return result;
  };
  return { pruned: answer(lexicalArms(input)), exhaustive: answer(lexicalArms({ ...input, prune: false })) };
}

describe('persisted block bounds', () => {
  it('are read back equal to the bounds made afresh, for every persisted term', () => {
    const documents = texts(5000, 3);
    const index = built(documents);
    const bytes = written(index);
    const reader = SnapshotReader.open(bytesSnapshotFile(bytes));
    const blocks = Math.ceil(documents.length / 16);
    const totalLength = documents.reduce((sum, document) => sum + document.length, 0);
    const persisted = PersistedBounds.read(reader, 'bm25', { live: documents.length, totalLength, slots: documents.length, k1: 1.2, b: 0.75, reach: 2 }, index.termCount);
    expect(persisted).not.toBeNull();
    const common = WORDS.filter((word) => index.frequencyOf(word) * 4 >= blocks);
    expect(common.length).toBeGreaterThan(3);
    expect(persisted?.size).toBe(common.length);
    const slotNorms = norms(documents);
    for (const word of common) {
      const slots: number[] = [];
      const frequencies: number[] = [];
      index.forEachPosting(word, (slot, frequency) => (slots.push(slot), frequencies.push(frequency)));
      const fresh = termBlockBounds(Int32Array.from(slots), Uint16Array.from(frequencies), slots.length, slotNorms, 1.2, 2, blocks);
      const id = index.termId(word);
      expect(persisted?.has(id)).toBe(true);
      expect(persisted?.take(id, slots.length)).toEqual(fresh);
    }
  });

  it('are the terms with the most postings within the budget; a term outside it is asked twice before its bounds are made, as before', () => {
    const documents = texts(5000, 5);
    const index = built(documents);
    const blocks = Math.ceil(documents.length / 16);
    const record = 4 * ((blocks >> 6) + 2) + 4 * blocks;
    const byPostings = [...WORDS].sort((a, b) => index.frequencyOf(b) - index.frequencyOf(a));
    const nameOf = namesOf(index);
    const ids = termsToPersist(index.termCount, (id) => index.frequencyOf(nameOf(id)), documents.length, 2 * record + record - 1);
    expect(ids).toEqual([index.termId(byPostings[0] as string), index.termId(byPostings[1] as string)].sort((a, b) => a - b));
    const copy = restored(written(index, { ...EVERY_SAVE, budgetBytes: 2 * record }));
    expect(copy.persistedBoundTerms).toBe(2);
    expect(copy.headReady([byPostings[0] as string, byPostings[1] as string], 2)).toBe(true);
    // The third most common term is common (bounds O(corpus)) but not persisted: its first ask waits.
    expect(index.frequencyOf(byPostings[2] as string) * 4).toBeGreaterThanOrEqual(blocks);
    expect(copy.headReady([byPostings[0] as string, byPostings[2] as string], 2)).toBe(false);
    expect(copy.headReady([byPostings[0] as string, byPostings[2] as string], 2)).toBe(true);
    // The postings' own bytes bound the budget too: a save whose postings are fewer bytes than one term's bounds persists none.
    expect(restored(written(built(texts(200, 5)), { ...EVERY_SAVE })).persistedBoundTerms).toBeLessThan(WORDS.length);
  });

  it('let a restored index take the head search from its first ask, with the answers of every match', () => {
    const documents = texts(6000, 11);
    const corpus = new CorpusIndex(0);
    corpus.add(documents.map((words, turn) => ({ id: `c${turn}`, position: turn, kind: 'narrative', text: words.join(' '), embedding: null })));
    const copy = restored(written(corpus.bm25));
    expect(copy.persistedBoundTerms).toBeGreaterThan(3);
    // A fresh index waits for a common term's second ask; the restored one is ready at once.
    const fresh = restored(written(corpus.bm25, { ...EVERY_SAVE, fromSlots: Infinity }));
    expect(fresh.persistedBoundTerms).toBe(0);
    for (const query of ['w0 w1', 'w2 w9 w20', 'w0 w3 w4 w29']) {
      const terms = corpus.analyze(query);
      expect(fresh.headReady(terms, 2)).toBe(false);
      expect(copy.headReady(terms, 2)).toBe(true);
      const { pruned, exhaustive } = firstAsk(corpus, copy, query);
      expect(pruned).toEqual(exhaustive);
      expect(pruned).toEqual(firstAsk(corpus, corpus.bm25, query).exhaustive);
    }
    expect(copy.persistedBoundTerms).toBeLessThan(restored(written(corpus.bm25)).persistedBoundTerms);
    // Another reach than the one they were made for: not used (made as before).
    expect(restored(written(corpus.bm25)).headReady(corpus.analyze('w0 w1'), 3)).toBe(false);
  });

  it('are not used when stale (made under other statistics, parameters or reach)', () => {
    const documents = texts(3000, 17);
    const index = built(documents);
    const totalLength = documents.reduce((sum, document) => sum + document.length, 0);
    const key = { live: documents.length, totalLength, slots: documents.length, k1: 1.2, b: 0.75, reach: 2 };
    const blocks = Math.ceil(documents.length / 16);
    const nameOf = namesOf(index);
    const ids = termsToPersist(index.termCount, (id) => index.frequencyOf(nameOf(id)), documents.length, 2 ** 30);
    const slotNorms = norms(documents);
    const boundsOf = (id: number) => {
      const slots: number[] = [];
      const frequencies: number[] = [];
      index.forEachPosting(nameOf(id), (slot, frequency) => (slots.push(slot), frequencies.push(frequency)));
      // The writer's own (a common term's, in steps with its own scratch).
      return commonTermBoundsSteps(Int32Array.from(slots), Uint16Array.from(frequencies), slots.length, slotNorms, 1.2, 2, blocks, new Float64Array(slots.length));
    };
    const withKey = (changed: Partial<typeof key>) => {
      const writer = new SnapshotWriter();
      index.writeState(writer, 'bm25', { ...EVERY_SAVE, fromSlots: Infinity });
      runSteps(writeBoundsSteps(writer, 'bm25', { ...key, ...changed }, ids, boundsOf));
      return restored(writer.finish({ version: 1 }));
    };
    expect(withKey({}).persistedBoundTerms).toBe(ids.length);
    for (const changed of [{ totalLength: totalLength + 1 }, { live: documents.length - 1 }, { k1: 1.5 }, { b: 0.5 }, { reach: 3 }]) {
      const copy = withKey(changed);
      expect(copy.persistedBoundTerms).toBe(0);
      expect(copy.headReady(['w0', 'w1'], 2)).toBe(false);
    }
  });

  it('are never used when a record is corrupt: the checksum finds it, they are dropped, and bounds are made as before', () => {
    const documents = texts(6000, 23);
    const corpus = new CorpusIndex(0);
    corpus.add(documents.map((words, turn) => ({ id: `c${turn}`, position: turn, kind: 'narrative', text: words.join(' '), embedding: null })));
    const bytes = written(corpus.bm25);
    // Zero the peaks of every record (a bound of 0 would skip every block): each 4 KiB block's checksum fails.
    const start = sectionStart(bytes, 'bm25.bounds.records');
    const blocks = Math.ceil(documents.length / 16);
    const record = 4 * ((blocks >> 6) + 2) + 4 * blocks;
    const copy = restored(Buffer.from(bytes));
    const corrupt = Buffer.from(bytes);
    for (let at = 0; at < copy.persistedBoundTerms; at++) corrupt.fill(0, start + at * record + 4 * ((blocks >> 6) + 2) + 2 * blocks, start + at * record + 4 * ((blocks >> 6) + 2) + 3 * blocks);
    const broken = restored(corrupt);
    expect(broken.persistedBoundTerms).toBe(copy.persistedBoundTerms);
    const query = 'w0 w1 w2';
    expect(broken.headReady(corpus.analyze(query), 2)).toBe(true);
    const { pruned, exhaustive } = firstAsk(corpus, broken, query);
    expect(broken.persistedBoundTerms).toBe(0);
    expect(pruned).toEqual(exhaustive);
    expect(pruned).toEqual(firstAsk(corpus, corpus.bm25, query).exhaustive);
    // Read as the reader hands it out: the checksum refuses the record.
    const reader = SnapshotReader.open(bytesSnapshotFile(corrupt));
    const totalLength = documents.reduce((sum, document) => sum + document.length, 0);
    const persisted = PersistedBounds.read(reader, 'bm25', { live: documents.length, totalLength, slots: documents.length, k1: 1.2, b: 0.75, reach: 2 }, corpus.bm25.termCount);
    expect(persisted?.take(corpus.bm25.termId('w0'), corpus.bm25.frequencyOf('w0'))).toBeNull();
    expect(persisted?.dropped).toMatch(/checksum mismatch/);
  });

  it('are dropped by a write (the file may close) and made again by the next persist', () => {
    const documents = texts(3000, 29);
    const index = built(documents);
    let closed = false;
    const copy = restored(written(index), () => (closed = true));
    expect(copy.persistedBoundTerms).toBeGreaterThan(0);
    copy.addTokens(['w0', 'w1', 'w1']);
    expect(copy.persistedBoundTerms).toBe(0);
    index.addTokens(['w0', 'w1', 'w1']);
    // The rest read by the next write: the file closes, and the new file holds bounds for the new statistics.
    const again = written(copy);
    expect(closed).toBe(true);
    expect(again.equals(written(index))).toBe(true);
    expect(restored(again).persistedBoundTerms).toBeGreaterThan(0);
    // A removal drops them too.
    const other = restored(written(index));
    other.remove(5);
    expect(other.persistedBoundTerms).toBe(0);
  });

  it('are made by default for the head search\'s saves and window reach', () => {
    expect(PERSISTED_BOUNDS.reach).toBe(DEFAULT_WINDOW_SUM.reach);
    expect(PERSISTED_BOUNDS.fromSlots).toBe(HEAD_SEARCH_SLOTS);
    // A smaller save is written as before (no bounds).
    const index = built(texts(3000, 31));
    expect(written(index, PERSISTED_BOUNDS).equals(written(index, { ...EVERY_SAVE, fromSlots: Infinity }))).toBe(true);
  });
});
