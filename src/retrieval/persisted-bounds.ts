// The common terms' block bounds written with a BM25 index (sections <prefix>.bounds.*) and read back a term at a time on first use, so that no query pays for making them.
import type { Steps } from '../core/time-slice.js';
import { BLOCK_SHIFT, commonBoundSteps, STRETCH_SHIFT } from './block-bounds.js';
import type { TermBlockBounds } from './block-bounds.js';
import { SnapshotRejected } from './snapshot-format.js';
import type { FileBytes, SnapshotReader, SnapshotWriter } from './snapshot-format.js';

/**
 * What the persisted bounds were made under: the corpus statistics the length norms follow from (live documents,
 * their total length, slots), BM25's k1 and b, the window reach, and the block layout. Bounds made under another
 * are stale and never used.
 */
export interface BoundsKey {
  live: number;
  totalLength: number;
  slots: number;
  k1: number;
  b: number;
  reach: number;
}

/** The key as written: its fields, then BLOCK_SHIFT and STRETCH_SHIFT. */
function keyValues(key: BoundsKey): Float64Array {
  return Float64Array.of(key.live, key.totalLength, key.slots, key.k1, key.b, key.reach, BLOCK_SHIFT, STRETCH_SHIFT);
}

/** Blocks of `slots` slots (`1 << BLOCK_SHIFT` each) and stretch starts a common term's bounds hold. */
function layoutOf(slots: number): { blocks: number; starts: number; recordBytes: number } {
  const blocks = (slots + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
  const starts = (blocks >> STRETCH_SHIFT) + 2;
  // Per term: the stretch starts (i32), the block offsets (u16), the peaks and the windows (u8 each).
  return { blocks, starts, recordBytes: 4 * starts + 4 * blocks };
}

/**
 * The terms whose bounds are persisted: the common terms (postings at least a quarter of the blocks: the terms
 * whose bounds cost O(corpus) to make), those with the most postings first (ties: the lower id), while their bytes
 * stay within `budgetBytes`; ascending by id. `postings(id)` is term `id`'s posting count.
 *
 * @example
 * ```ts
 * const ids = termsToPersist(terms, (id) => lists[id].length, 1_000_000, 32 * 2 ** 20);
 * ```
 */
export function termsToPersist(termCount: number, postings: (id: number) => number, slots: number, budgetBytes: number): number[] {
  const { blocks, recordBytes } = layoutOf(slots);
  const common: number[] = [];
  for (let id = 0; id < termCount; id++) if (postings(id) > 0 && postings(id) * 4 >= blocks) common.push(id);
  common.sort((a, b) => postings(b) - postings(a) || a - b);
  const kept = common.slice(0, Math.max(0, Math.floor(budgetBytes / recordBytes)));
  return kept.sort((a, b) => a - b);
}

/**
 * Writes the bounds of `terms` (ascending ids; `boundsOf(id)` makes a common term's in steps, `termBlockBounds`'s
 * under `key`'s norms and reach: `commonTermBoundsSteps`) as three sections: `<prefix>.bounds.key` (f64, the key), `<prefix>.bounds.terms` (i32,
 * the ids) and `<prefix>.bounds.records` (u8, per term its stretch starts, block offsets, peaks and windows). One
 * pause per term at least.
 *
 * @example
 * ```ts
 * yield* writeBoundsSteps(writer, 'bm25', key, ids, (id) => commonTermBoundsSteps(...));
 * ```
 */
export function* writeBoundsSteps(writer: SnapshotWriter, prefix: string, key: BoundsKey, terms: readonly number[], boundsOf: (id: number) => Steps<TermBlockBounds>): Steps<void> {
  const { blocks, starts, recordBytes } = layoutOf(key.slots);
  const records = new Uint8Array(recordBytes * terms.length);
  for (let at = 0; at < terms.length; at++) {
    yield;
    const bounds = yield* boundsOf(terms[at] as number);
    if (bounds.offsets === null || bounds.starts.length !== starts || bounds.peaks.length !== blocks || bounds.windows.length !== blocks) throw new Error(`term ${terms[at]}: not a common term's bounds`);
    const base = at * recordBytes;
    new Int32Array(records.buffer, base, starts).set(bounds.starts);
    new Uint16Array(records.buffer, base + 4 * starts, blocks).set(bounds.offsets);
    records.set(bounds.peaks, base + 4 * starts + 2 * blocks);
    records.set(bounds.windows, base + 4 * starts + 3 * blocks);
  }
  writer.array(`${prefix}.bounds.key`, keyValues(key));
  writer.array(`${prefix}.bounds.terms`, Int32Array.from(terms));
  writer.array(`${prefix}.bounds.records`, records);
}

/**
 * The persisted bounds of a restored BM25 index: `take(id, postings)` reads (and checks: the section's block
 * checksums, then the stretch starts against the term's posting count) one term's bounds from the file, as
 * `termBlockBounds` made them when the index was written. A record found corrupt drops them all (`take` then gives
 * null and the caller makes the bounds, as without them); `release` lets the file close once none will be read.
 *
 * @example
 * ```ts
 * const persisted = PersistedBounds.read(reader, 'bm25', key, termCount);
 * const bounds = persisted?.has(id) ? persisted.take(id, list.length) : null;
 * ```
 */
export class PersistedBounds {
  private readonly records: Map<number, number>;
  private released = false;
  /** Why they were dropped (a corrupt record), for tests and logs; null while usable. */
  dropped: string | null = null;

  private constructor(
    /** The key they were made under. */
    readonly key: BoundsKey,
    terms: Int32Array,
    private readonly bytes: FileBytes,
  ) {
    this.records = new Map(Array.from(terms, (id, at) => [id, at]));
  }

  /** The sections' names under `prefix` (read apart: a few terms' records are read, from the file). */
  static sections(prefix: string): string[] {
    return [`${prefix}.bounds.records`];
  }

  /**
   * The bounds persisted under `prefix` when they were made under `key` for an index of `termCount` terms; null when
   * there are none (an index written without them), or they are stale (another key) or inconsistent (then nothing of
   * them is read again). Reads the key and the term ids now (checked).
   */
  static read(reader: SnapshotReader, prefix: string, key: BoundsKey, termCount: number): PersistedBounds | null {
    if (!reader.has(`${prefix}.bounds.key`)) return null;
    try {
      const written = reader.array(`${prefix}.bounds.key`, 'f64');
      const expected = keyValues(key);
      if (written.length !== expected.length || expected.some((value, at) => written[at] !== value)) return null;
      const terms = reader.array(`${prefix}.bounds.terms`, 'i32');
      for (let at = 0; at < terms.length; at++) {
        const id = terms[at] as number;
        if (!(id >= 0 && id < termCount) || (at > 0 && id <= (terms[at - 1] as number))) return null;
      }
      if (reader.itemCount(`${prefix}.bounds.records`, 'u8') !== terms.length * layoutOf(key.slots).recordBytes) return null;
      return new PersistedBounds(key, terms, reader.bytesInFile(`${prefix}.bounds.records`));
    } catch (error) {
      // A corrupt key or term list (or a section missing): the bounds are not used; the rest of the index is.
      if (error instanceof SnapshotRejected) return null;
      throw error;
    }
  }

  /** How many terms' bounds are left to read. */
  get size(): number {
    return this.records.size;
  }

  /** True when term `id`'s bounds are persisted and not read yet. */
  has(id: number): boolean {
    return this.records.has(id);
  }

  /**
   * Term `id`'s bounds (arrays of their own), read from the file; null when they are not persisted, or a record is
   * corrupt (every other is dropped too). `postings`: the term's posting count, which its stretch starts must end at.
   */
  take(id: number, postings: number): TermBlockBounds | null {
    const at = this.records.get(id);
    if (at === undefined) return null;
    this.records.delete(id);
    const { blocks, starts: startCount, recordBytes } = layoutOf(this.key.slots);
    let record: Uint8Array;
    try {
      record = this.bytes.range(at * recordBytes, (at + 1) * recordBytes).slice();
    } catch (error) {
      if (!(error instanceof SnapshotRejected)) throw error;
      this.drop(error.message);
      return null;
    }
    const starts = new Int32Array(record.buffer, 0, startCount);
    let ascending = starts[0] === 0 && starts[startCount - 1] === postings;
    for (let stretch = 1; stretch < startCount && ascending; stretch++) ascending = (starts[stretch] as number) >= (starts[stretch - 1] as number);
    if (!ascending) {
      this.drop(`term ${id}: stretch starts disagree with its postings`);
      return null;
    }
    if (this.records.size === 0) this.release();
    const { peakStep, windowStep } = commonBoundSteps(this.key.k1, this.key.reach);
    return {
      starts,
      offsets: new Uint16Array(record.buffer, 4 * startCount, blocks),
      peakBlocks: null,
      peaks: new Uint8Array(record.buffer, 4 * startCount + 2 * blocks, blocks),
      peakStep,
      windowBlocks: null,
      windows: new Uint8Array(record.buffer, 4 * startCount + 3 * blocks, blocks),
      windowStep,
    };
  }

  /** Drops every record not read yet (`reason` kept in `dropped`), and lets the file close. */
  drop(reason: string): void {
    this.dropped ??= reason;
    this.records.clear();
    this.release();
  }

  /** Says no more records are read: the file may close (once nothing else is read from it). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.records.clear();
    this.bytes.release();
  }
}
