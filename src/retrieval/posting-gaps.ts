// BM25 posting slots persisted as the gaps between them, in LEB128 bytes, and decoded back one term's list at a time.
import { STEP_ROWS } from '../core/time-slice.js';
import type { Steps } from '../core/time-slice.js';
import { SnapshotRejected } from './snapshot-format.js';

/**
 * Encodes strictly ascending posting lists (`slots`, each term's list ending at `ends[term]`) as LEB128 bytes: per
 * list, the first slot, then each slot's distance from the one before less one (0 for adjacent slots), 7 bits a
 * byte, low bits first. Returns the bytes and each list's end in them (what `decodePostingGaps` reads a list from).
 * Most postings belong to frequent terms, whose gaps are small: about 1.3 bytes a posting instead of 4.
 *
 * @example
 * ```ts
 * const { bytes, byteEnds } = encodePostingGaps(Int32Array.of(3, 4, 200), Int32Array.of(3));
 * // bytes: 3, 0, 195 1 (195 = 0xc3 with the high bit: 67 + 128), byteEnds: [4]
 * ```
 */
export function encodePostingGaps(slots: Int32Array, ends: Int32Array): { bytes: Uint8Array<ArrayBuffer>; byteEnds: Int32Array<ArrayBuffer> } {
  const encoder = new PostingGapsEncoder(ends.length, slots.length);
  let start = 0;
  for (let term = 0; term < ends.length; term++) {
    const end = ends[term] as number;
    encoder.add(slots.subarray(start, end));
    start = end;
  }
  return encoder.finish();
}

/**
 * `encodePostingGaps` one list at a time, from the lists where they are (no flat copy of every posting first):
 * `add` each term's list in term order, then `finish`. The bytes returned view the encoder's buffer (no copy).
 *
 * @example
 * ```ts
 * const encoder = new PostingGapsEncoder(2, 3);
 * encoder.add(Int32Array.of(3, 4));
 * encoder.add(Int32Array.of(200));
 * encoder.finish(); // bytes 3, 0, 200 1 (200 = 0xc8 with the high bit: 72 + 128), byteEnds [2, 4]
 * ```
 */
export class PostingGapsEncoder {
  private bytes: Uint8Array<ArrayBuffer>;
  private readonly byteEnds: Int32Array<ArrayBuffer>;
  private at = 0;
  private term = 0;

  /** Room for `terms` lists, the bytes sized for `postings` slots (grown when they need more). */
  constructor(terms: number, postings: number) {
    this.bytes = new Uint8Array(Math.max(64, postings + (postings >> 1)));
    this.byteEnds = new Int32Array(terms);
  }

  /** Encodes the next term's list (strictly ascending slots). */
  add(slots: Int32Array): void {
    let bytes = this.bytes;
    let at = this.at;
    let previous = -1;
    for (let index = 0; index < slots.length; index++) {
      const slot = slots[index] as number;
      if (slot <= previous) throw new Error(`posting slots of term ${this.term} not strictly ascending (${previous}, ${slot})`);
      let gap = slot - previous - 1;
      previous = slot;
      if (at + 5 > bytes.length) {
        const wider = new Uint8Array(bytes.length * 2);
        wider.set(bytes);
        this.bytes = bytes = wider;
      }
      while (gap >= 0x80) {
        bytes[at++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      bytes[at++] = gap;
    }
    this.at = at;
    this.byteEnds[this.term++] = at;
  }

  /** The bytes of the lists added and each list's end in them; every term's list must have been added. */
  finish(): { bytes: Uint8Array<ArrayBuffer>; byteEnds: Int32Array<ArrayBuffer> } {
    if (this.term !== this.byteEnds.length) throw new Error(`posting gaps: ${this.term} of ${this.byteEnds.length} lists added`);
    return { bytes: this.bytes.subarray(0, this.at), byteEnds: this.byteEnds };
  }
}

/** The posting sections of an index, as a write lays them out: per term, its postings' end, its gaps' end, its frequencies. */
export interface PostingSections {
  /** Each term's end in the postings (the number of postings of the terms up to it). */
  postingEnds: Int32Array<ArrayBuffer>;
  /** Every term's slots as LEB128 gaps, term by term (as `PostingGapsEncoder` writes them). */
  bytes: Uint8Array<ArrayBuffer>;
  /** Each term's end in `bytes`. */
  byteEnds: Int32Array<ArrayBuffer>;
  /** Every posting's frequency, term by term, in slot order within a term. */
  frequencies: Uint8Array<ArrayBuffer> | Uint16Array<ArrayBuffer>;
}

/** LEB128 bytes of a gap (below 2^35). */
const gapBytes = (gap: number): number => (gap < 0x80 ? 1 : gap < 0x4000 ? 2 : gap < 0x200000 ? 3 : gap < 0x10000000 ? 4 : 5);

/**
 * The posting sections of documents given as their term lists (document `slot`'s distinct term ids at
 * [starts[slot], starts[slot + 1]) of `terms`, their frequencies aligned in `frequencies`), made without the
 * postings lists: a first pass over the documents counts each term's postings and gap bytes, a second writes
 * every gap and frequency where its term's part begins. The bytes are those `PostingGapsEncoder` makes of the
 * lists a posting in slot order would make (a 1M load: no 61 MB of posting slots and 15 MB of frequencies held
 * for the write, only the 21 MB of gaps and the frequencies). Frequencies are u8 when `narrow` (each below 256).
 * In steps (a pause every few documents), for `runStepsSliced`.
 *
 * @example
 * ```ts
 * // document 0 holds terms 1 and 0, document 1 term 1
 * const sections = runSteps(documentPostingSectionsSteps(2, Uint16Array.of(1, 0, 1), Int32Array.of(0, 2, 3), Uint8Array.of(2, 1, 1), true));
 * // postingEnds [1, 3], bytes [0, 0, 0] (term 0: slot 0; term 1: slots 0 and 1), byteEnds [1, 3], frequencies [1, 2, 1]
 * ```
 */
export function* documentPostingSectionsSteps(termCount: number, terms: ArrayLike<number>, starts: Int32Array, frequencies: ArrayLike<number>, narrow: boolean): Steps<PostingSections> {
  const slots = starts.length - 1;
  const previous = new Int32Array(termCount).fill(-1);
  const postingAt = new Int32Array(termCount);
  const byteAt = new Int32Array(termCount);
  for (let slot = 0; slot < slots; slot++) {
    if ((slot & STEP_ROWS) === 0) yield;
    for (let position = starts[slot] as number; position < (starts[slot + 1] as number); position++) {
      const id = terms[position] as number;
      const last = previous[id] as number;
      if (slot <= last) throw new Error(`posting slots of term ${id} not strictly ascending (${last}, ${slot})`);
      previous[id] = slot;
      postingAt[id] = (postingAt[id] as number) + 1;
      byteAt[id] = (byteAt[id] as number) + gapBytes(slot - last - 1);
    }
  }
  const postingEnds = new Int32Array(termCount);
  const byteEnds = new Int32Array(termCount);
  let postings = 0;
  let bytes = 0;
  for (let id = 0; id < termCount; id++) {
    const count = postingAt[id] as number;
    const length = byteAt[id] as number;
    postingAt[id] = postings;
    byteAt[id] = bytes;
    postingEnds[id] = postings += count;
    byteEnds[id] = bytes += length;
  }
  const gaps = new Uint8Array(bytes);
  const written = narrow ? new Uint8Array(postings) : new Uint16Array(postings);
  previous.fill(-1);
  for (let slot = 0; slot < slots; slot++) {
    if ((slot & STEP_ROWS) === 0) yield;
    for (let position = starts[slot] as number; position < (starts[slot + 1] as number); position++) {
      const id = terms[position] as number;
      let gap = slot - (previous[id] as number) - 1;
      previous[id] = slot;
      let at = byteAt[id] as number;
      while (gap >= 0x80) {
        gaps[at++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      gaps[at++] = gap;
      byteAt[id] = at;
      const posting = postingAt[id] as number;
      written[posting] = frequencies[position] as number;
      postingAt[id] = posting + 1;
    }
  }
  return { postingEnds, bytes: gaps, byteEnds, frequencies: written };
}

/**
 * Decodes one list `encodePostingGaps` wrote (bytes [from, to)) into `target` at `offset`, `count` slots, each
 * checked: below `slots`, the bytes ending exactly with the list's last slot. Anything else is a corrupt snapshot
 * (SnapshotRejected).
 *
 * @example
 * ```ts
 * const target = new Int32Array(3);
 * decodePostingGaps(Uint8Array.of(3, 0, 0xc3, 1), 0, 4, target, 0, 3, 1000); // target: [3, 4, 200]
 * ```
 */
export function decodePostingGaps(bytes: Uint8Array, from: number, to: number, target: Int32Array, offset: number, count: number, slots: number): void {
  let at = from;
  let slot = -1;
  const end = offset + count;
  for (let index = offset; index < end; index++) {
    if (at >= to) throw new SnapshotRejected('posting gaps corrupt');
    let byte = bytes[at++] as number;
    let gap = byte;
    // A gap of one byte (most of a frequent term's) is its value; a longer one adds 7 bits a byte, at most 5 bytes.
    if (byte >= 0x80) {
      gap = byte & 0x7f;
      let scale = 0x80;
      do {
        if (at >= to || scale > 0x10000000) throw new SnapshotRejected('posting gaps corrupt');
        byte = bytes[at++] as number;
        gap += (byte & 0x7f) * scale;
        scale *= 0x80;
      } while (byte >= 0x80);
    }
    slot += gap + 1;
    if (slot >= slots) throw new SnapshotRejected('posting slots out of range');
    target[index] = slot;
  }
  if (at !== to) throw new SnapshotRejected('posting gaps corrupt');
}
