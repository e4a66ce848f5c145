// BM25 posting slots as LEB128 gaps: exact round trips across every byte length, corrupt bytes refused, sections made from documents' terms, and a restored index's postings.
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/retrieval/bm25.js';
import { decodePostingGaps, documentPostingSectionsSteps, encodePostingGaps, PostingGapsEncoder } from '../src/retrieval/posting-gaps.js';
import { runSteps } from '../src/core/time-slice.js';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotRejected, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

function decodeAll(bytes: Uint8Array, byteEnds: Int32Array, ends: Int32Array, slots: number): Int32Array {
  const target = new Int32Array(ends.length === 0 ? 0 : (ends[ends.length - 1] as number));
  for (let term = 0; term < ends.length; term++) {
    const start = term === 0 ? 0 : (ends[term - 1] as number);
    decodePostingGaps(bytes, term === 0 ? 0 : (byteEnds[term - 1] as number), byteEnds[term] as number, target, start, (ends[term] as number) - start, slots);
  }
  return target;
}

describe('encodePostingGaps / decodePostingGaps', () => {
  it('encodes list by list (PostingGapsEncoder) the bytes of the flat lists, and refuses to finish with a list missing', () => {
    const encoder = new PostingGapsEncoder(3, 4);
    encoder.add(Int32Array.of(3, 4));
    encoder.add(new Int32Array(0));
    encoder.add(Int32Array.of(200));
    const { bytes, byteEnds } = encoder.finish();
    expect(Array.from(bytes)).toEqual([3, 0, 0xc8, 1]);
    expect(Array.from(byteEnds)).toEqual([2, 2, 4]);
    // Past its first guess of the bytes (1.5 a posting, at least 64): the buffer grows, the bytes are the same.
    const slots = Int32Array.from({ length: 400 }, (_, index) => index * 100_000);
    const wide = new PostingGapsEncoder(2, 8);
    wide.add(slots.subarray(0, 150));
    wide.add(slots.subarray(150));
    const flat = encodePostingGaps(slots, Int32Array.of(150, 400));
    const listed = wide.finish();
    expect(Array.from(listed.bytes)).toEqual(Array.from(flat.bytes));
    expect(Array.from(listed.byteEnds)).toEqual(Array.from(flat.byteEnds));
    const short = new PostingGapsEncoder(2, 1);
    short.add(Int32Array.of(1));
    expect(() => short.finish()).toThrow(/1 of 2 lists/);
  });

  it('writes the documented bytes', () => {
    const { bytes, byteEnds } = encodePostingGaps(Int32Array.of(3, 4, 200), Int32Array.of(3));
    expect(Array.from(bytes)).toEqual([3, 0, 0xc3, 1]);
    expect(Array.from(byteEnds)).toEqual([4]);
  });

  it('round-trips gaps of one to five bytes, empty lists and slot 0', () => {
    const slots = Int32Array.of(0, 1, 127, 256, 256 + 16_385, 2_000_000, 2_000_001, 2_147_483_646, 5, 0, 9);
    const ends = Int32Array.of(8, 8, 9, 11);
    const { bytes, byteEnds } = encodePostingGaps(slots, ends);
    expect(Array.from(decodeAll(bytes, byteEnds, ends, 2_147_483_647))).toEqual(Array.from(slots));
    expect(byteEnds[1]).toBe(byteEnds[0]);
    // 1 + 1 + 1 + 2 (gap 128) + 3 (gap 16,384) + 3 + 1 + 5 (gap over 2^28) bytes in the first list.
    expect(byteEnds[0]).toBe(17);
  });

  it('round-trips seeded random lists', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const lists: number[][] = Array.from({ length: 50 }, () => {
      const list: number[] = [];
      let slot = -1;
      const step = 1 + Math.floor(random() ** 4 * 100_000);
      for (let count = Math.floor(random() * 200); count > 0; count--) list.push((slot += 1 + Math.floor(random() * step)));
      return list;
    });
    const slots = Int32Array.from(lists.flat());
    let total = 0;
    const ends = Int32Array.from(lists, (list) => (total += list.length));
    const { bytes, byteEnds } = encodePostingGaps(slots, ends);
    expect(Array.from(decodeAll(bytes, byteEnds, ends, 2 ** 31 - 1))).toEqual(Array.from(slots));
  });

  it('refuses lists that are not strictly ascending', () => {
    expect(() => encodePostingGaps(Int32Array.of(4, 4), Int32Array.of(2))).toThrow(/not strictly ascending/);
    expect(() => encodePostingGaps(Int32Array.of(4, 2), Int32Array.of(2))).toThrow(/not strictly ascending/);
  });

  it('refuses corrupt bytes as a corrupt snapshot', () => {
    const target = new Int32Array(3);
    // A slot at or past the slot count.
    expect(() => decodePostingGaps(Uint8Array.of(3, 0, 0xc3, 1), 0, 4, target, 0, 3, 200)).toThrow(SnapshotRejected);
    // The list's bytes end inside a slot, or hold more than its slots.
    expect(() => decodePostingGaps(Uint8Array.of(3, 0, 0xc3), 0, 3, target, 0, 3, 1000)).toThrow(/posting gaps corrupt/);
    expect(() => decodePostingGaps(Uint8Array.of(3, 0, 0xc3, 1, 0), 0, 5, target, 0, 3, 1000)).toThrow(/posting gaps corrupt/);
    // A gap longer than five bytes.
    expect(() => decodePostingGaps(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 0, 6, target, 0, 1, 1000)).toThrow(/posting gaps corrupt/);
  });
});

describe('a restored Bm25Index', () => {
  function restored(index: Bm25Index): { copy: Bm25Index; writer: SnapshotWriter } {
    const writer = new SnapshotWriter();
    index.writeState(writer, 'bm25');
    return { copy: Bm25Index.readState(SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 1 }))), 'bm25', {}), writer };
  }

  it('visits the same postings and scores the same as the index it was written from, without a postingSlots section', () => {
    const index = new Bm25Index();
    for (let slot = 0; slot < 3000; slot++) index.add(slot % 997 === 0 ? 'rare dragon' : slot % 2 === 0 ? 'even dragon sleeps' : `odd word${slot % 300}`);
    index.remove(4);
    const { copy } = restored(index);
    for (const term of ['rare', 'dragon', 'even', 'odd', 'word7']) {
      const want: [number, number][] = [];
      const got: [number, number][] = [];
      index.forEachPosting(term, (slot, frequency) => want.push([slot, frequency]));
      copy.forEachPosting(term, (slot, frequency) => got.push([slot, frequency]));
      expect(got).toEqual(want);
      expect(got.length).toBeGreaterThan(0);
    }
    expect(copy.search(['rare', 'dragon'], 20)).toEqual(index.search(['rare', 'dragon'], 20));
    // Written again after a write, the copy round-trips as well.
    copy.add('rare again');
    index.add('rare again');
    const { copy: again } = restored(copy);
    expect(again.search(['rare'], 10)).toEqual(index.search(['rare'], 10));
  });
});

describe('documentPostingSectionsSteps', () => {
  // The lists a posting in slot order makes of documents' terms (slot -> distinct terms and their frequencies),
  // encoded list by list: the reference.
  function fromLists(termCount: number, documents: Map<number, { terms: number[]; frequencies: number[] }>) {
    const lists = Array.from({ length: termCount }, () => ({ slots: [] as number[], frequencies: [] as number[] }));
    for (const [slot, document] of [...documents].sort((a, b) => a[0] - b[0])) {
      document.terms.forEach((term, at) => {
        lists[term]!.slots.push(slot);
        lists[term]!.frequencies.push(document.frequencies[at]!);
      });
    }
    const encoder = new PostingGapsEncoder(termCount, 16);
    const ends: number[] = [];
    let total = 0;
    for (const list of lists) {
      encoder.add(Int32Array.from(list.slots));
      ends.push((total += list.slots.length));
    }
    const { bytes, byteEnds } = encoder.finish();
    return { postingEnds: ends, bytes: Array.from(bytes), byteEnds: Array.from(byteEnds), frequencies: lists.flatMap((list) => list.frequencies), slots: lists.flatMap((list) => list.slots) };
  }

  it.each([
    ['u8 frequencies, gaps of one to four bytes', true, 2_200_000, 3_000],
    ['u16 frequencies, dense documents', false, 3_000, 3_000],
  ] as const)('makes from documents\' terms the bytes the lists give (%s)', (_name, narrow, slots, filled) => {
    const random = seededRandom(narrow ? 3 : 4);
    const termCount = 60;
    const documents = new Map<number, { terms: number[]; frequencies: number[] }>();
    // Documents at random slots (empty ones between): gaps from 0 to past 2^21 (four LEB128 bytes).
    for (let count = 0; count < filled; count++) {
      const slot = Math.floor(random() ** 3 * slots);
      const terms = [...new Set(Array.from({ length: 1 + Math.floor(random() * 8) }, () => Math.floor(random() ** 2 * (termCount - 1))))];
      documents.set(slot, { terms, frequencies: terms.map(() => 1 + Math.floor(random() * (narrow ? 255 : 700))) });
    }
    // A rare term at both ends: its one gap is the largest the slots allow.
    for (const slot of [0, slots - 1]) {
      const document = documents.get(slot) ?? { terms: [], frequencies: [] };
      document.terms.push(termCount - 1);
      document.frequencies.push(2);
      documents.set(slot, document);
    }
    const starts = new Int32Array(slots + 1);
    const flatTerms: number[] = [];
    const flatFrequencies: number[] = [];
    for (let slot = 0; slot < slots; slot++) {
      const document = documents.get(slot);
      if (document !== undefined) {
        flatTerms.push(...document.terms);
        flatFrequencies.push(...document.frequencies);
      }
      starts[slot + 1] = flatTerms.length;
    }
    const made = runSteps(documentPostingSectionsSteps(termCount, Uint16Array.from(flatTerms), starts, narrow ? Uint8Array.from(flatFrequencies) : Uint16Array.from(flatFrequencies), narrow));
    const expected = fromLists(termCount, documents);
    expect(Array.from(made.postingEnds)).toEqual(expected.postingEnds);
    expect(Array.from(made.bytes)).toEqual(expected.bytes);
    expect(Array.from(made.byteEnds)).toEqual(expected.byteEnds);
    expect(Array.from(made.frequencies)).toEqual(expected.frequencies);
    expect(made.frequencies instanceof Uint8Array).toBe(narrow);
    // Decoded back, the lists are the documents' postings; the rare term's gap took four bytes at 2.2M slots.
    expect(Array.from(decodeAll(made.bytes, made.byteEnds, made.postingEnds, slots))).toEqual(expected.slots);
    const rare = (made.byteEnds[termCount - 1] as number) - (made.byteEnds[termCount - 2] as number);
    expect(rare).toBe(1 + (slots > 2 ** 21 ? 4 : 2));
  });

  it('writes the documented example, and refuses a document holding a term twice', () => {
    const made = runSteps(documentPostingSectionsSteps(2, Uint16Array.of(1, 0, 1), Int32Array.of(0, 2, 3), Uint8Array.of(2, 1, 1), true));
    expect([Array.from(made.postingEnds), Array.from(made.bytes), Array.from(made.byteEnds), Array.from(made.frequencies)]).toEqual([[1, 3], [0, 0, 0], [1, 3], [1, 2, 1]]);
    expect(() => runSteps(documentPostingSectionsSteps(2, Uint16Array.of(1, 1), Int32Array.of(0, 2), Uint8Array.of(1, 1), true))).toThrow(/not strictly ascending/);
  });
});
