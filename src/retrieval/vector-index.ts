// The semantic arm's index: unit vectors in one flat Float32Array, searched exactly by dot product.
import { noSteps, runSteps, STEP_ROWS } from '../core/time-slice.js';
import type { Steps } from '../core/time-slice.js';
import { grow, reserve } from './grow.js';
import { QuantizedVectors } from './quantized-vectors.js';
import { RowSpill } from './row-spill.js';
import type { ScoreStatistics } from './score-statistics.js';
import { SnapshotRejected } from './snapshot-format.js';
import type { LazySection, SnapshotReader, SnapshotWriter } from './snapshot-format.js';

/**
 * Reads the float32 vectors of some slots from where they are kept besides the index (the store), in the order
 * asked: null for a slot the store no longer holds (or holds without a vector). Synchronous: a query reads the few
 * rows it rescores while it runs.
 */
export type VectorRows = (slots: readonly number[]) => (Float32Array | null)[];

/** Slots read from the store in one statement by `readAll` (SQLite binds at most 32,766 parameters). */
const ROWS_PER_READ = 500;

/**
 * Slots whose rows a pass over rows kept in the store (`passReader`) reads at once, with their neighbours': about
 * 1.6 MB at 100 dimensions, dropped when the pass moves on, so a pass never holds the corpus's rows.
 */
const PASS_ROWS = 4096;

/** `array` grown to hold `needed` items (doubling, as `grow`), the new items set to -1. */
function growFilled(array: Int32Array, needed: number): Int32Array {
  if (needed <= array.length) return array;
  const next = grow(array, needed);
  next.fill(-1, array.length);
  return next;
}

/**
 * The dot product of `dims` values of `data` from `base` with `query`, summed in four lanes: the arithmetic every
 * ranked semantic score uses, so a score is the same number whichever path computed it.
 */
export function dotProduct(data: Float32Array, base: number, query: Float32Array, dims: number): number {
  let dot0 = 0;
  let dot1 = 0;
  let dot2 = 0;
  let dot3 = 0;
  let index = 0;
  for (; index + 3 < dims; index += 4) {
    dot0 += (data[base + index] as number) * (query[index] as number);
    dot1 += (data[base + index + 1] as number) * (query[index + 1] as number);
    dot2 += (data[base + index + 2] as number) * (query[index + 2] as number);
    dot3 += (data[base + index + 3] as number) * (query[index + 3] as number);
  }
  for (; index < dims; index++) dot0 += (data[base + index] as number) * (query[index] as number);
  return dot0 + dot1 + dot2 + dot3;
}

/**
 * An exact nearest-neighbour index over unit vectors (dot product = cosine similarity). Slots without a
 * vector are skipped. Exact search never misses a filtered result, which an approximate index can. The first
 * search makes an int8 copy (QuantizedVectors) that every search scans; the float32 vectors give the exact
 * scores of the few rows that can rank, so results equal a full float32 scan.
 *
 * @example
 * ```ts
 * const index = new VectorIndex();
 * index.set(0, new Float32Array([1, 0]));
 * index.search(new Float32Array([1, 0]), 5); // [{ slot: 0, score: 1 }]
 * ```
 */
export class VectorIndex {
  private data = new Float32Array(0);
  private present = new Uint8Array(0);
  private slotCount = 0;
  private dims: number | null = null;
  private quantized: QuantizedVectors | null = null;
  /** The int8 copy a sliced run is making (see `prepareSteps`). */
  private preparing: Steps<void> | null = null;
  /** Counts the writes (a half-made int8 copy is kept only when none came in meanwhile). */
  private changes = 0;
  private reservedSlots = 0;
  /** The vectors of a persisted copy not read whole yet: a slot's row is read (and checked) when first used. */
  private lazyData: LazySection<Float32Array<ArrayBuffer>> | null = null;
  /**
   * Rows kept in the store (a persisted copy written without its float32 vectors, or an index built with the
   * store's `rows`): read from `rows` when used, `loaded` marking those read; null once every row is read into `data`.
   */
  private outside: { rows: VectorRows; loaded: Uint8Array } | null = null;
  /**
   * The rows read from the store until every row is (`readAll`): packed in `pool` in the order read, the row of a
   * slot at `rowOf[slot]` (-1: not read) and the slot of a row at `slotOfRow[row]`, instead of at their slots in a
   * `data` as large as the corpus (40 MB at 100k chunks, of which a query reads a few hundred rows: an array that
   * large counts towards V8's external memory and starts garbage collections in the first query). Writes keep no
   * row (the store has it); a pass over the rows drops each block it read before reading the next (`passReader`).
   */
  private sparse: { rowOf: Int32Array; pool: Float32Array; rows: number; slotOfRow: Int32Array } | null = null;
  /**
   * The sum of the vectors stored, per dimension, in slot order, and how many: `mean` without reading the rows,
   * while only appends came (each added in the order a pass over the slots adds them, so the same float64 sums).
   * Null once a write changed or removed a vector stored before (`mean` then reads every row).
   */
  private sum: { values: Float64Array | null; count: number } | null = { values: null, count: 0 };
  /** Where the spill of the rows given goes (see the constructor); null: no spill. */
  private readonly scratchDirectory: string | null;
  /**
   * The rows of every slot in order, as given (zeros for a slot without a vector), while the rows are in the store
   * and only appends came since slot 0: a pass over them (the int8 copy, made for a query or for the file only)
   * reads them from here instead of from the store. Closed at the first search (the copy then kept takes appends as
   * they come: no pass reads the rows again), a removal, a write that is not an append, or `releaseSpill`.
   */
  private spill: RowSpill | null = null;
  /** True once told a bulk load begins (`expectBulkLoad`): the first vector then opens the spill. */
  private spillWanted = false;

  /**
   * An empty index; with `rows`, the float32 vectors it is given are not kept: they are read back from `rows` (the
   * store, which holds every vector given here) when a search rescores them, or a block at a time by a pass over
   * them (the int8 copy, the mean), as a persisted copy written without them reads them. With `scratchDirectory`
   * too, an empty index told a bulk load begins (`expectBulkLoad`) keeps the vectors given from slot 0 on aside in a
   * scratch file there (`RowSpill`, see `spill`), which its int8 copies read instead of `rows`.
   */
  constructor(rows?: VectorRows, scratchDirectory: string | null = null) {
    this.scratchDirectory = rows === undefined ? null : scratchDirectory;
    if (rows === undefined) return;
    this.outside = { rows, loaded: new Uint8Array(0) };
    this.sparse = { rowOf: new Int32Array(0), pool: new Float32Array(0), rows: 0, slotOfRow: new Int32Array(0) };
  }

  /** The vector length, fixed by the first vector stored (null while empty). */
  get dimensions(): number | null {
    return this.dims;
  }

  /** Bytes of the int8 copy's scan memory (0 before it is made), for a memory estimate. */
  get quantizedBytes(): number {
    return this.quantized?.memoryBytes ?? 0;
  }

  /** Bytes of float32 rows held in memory: all of them, or those read from the store (a pass holds one block). */
  get heldRowBytes(): number {
    return this.data.byteLength + (this.sparse?.pool.byteLength ?? 0);
  }

  /** True while some rows are still to be read from the store (see `readState`'s `rows`). */
  get readsRows(): boolean {
    return this.outside !== null;
  }

  /** True once the int8 copy is made. */
  get prepared(): boolean {
    return this.quantized !== null;
  }

  /** Makes room for `slots` slots at once (their vectors are allocated when the first one fixes the length). */
  reserve(slots: number): void {
    this.reservedSlots = Math.max(this.reservedSlots, slots);
    this.present = reserve(this.present, slots);
    if (this.sparse !== null) return;
    this.readLazy();
    if (this.dims !== null) this.data = reserve(this.data, slots * this.dims);
  }

  /**
   * Stores (or clears, with null) the vector of a slot. A vector of another length is refused. An index whose rows
   * are in the store (see the constructor, `readState`) keeps none: the store holds this vector (it is written
   * there first), and it is read back from there when used.
   */
  set(slot: number, vector: Float32Array | null): boolean {
    this.changes++;
    this.preparing = null;
    const slots = this.slotCount;
    this.noteSum(slot, vector);
    if (this.sparse !== null) {
      const stored = this.setOutside(this.sparse, slot, vector);
      this.keepSpilled(slots, slot, vector, stored);
      return stored;
    }
    // Rows still in the store stay there (their flags say so); rows still in the file are read first.
    this.readLazy();
    this.slotCount = Math.max(this.slotCount, slot + 1);
    this.present = grow(this.present, this.slotCount);
    if (vector === null) {
      this.present[slot] = 0;
      this.quantized?.set(slot, null);
      return true;
    }
    if (this.dims === null) this.dims = vector.length;
    if (vector.length !== this.dims) return false;
    if (this.data.length < this.slotCount * this.dims) {
      // The largest array of an index: grow by a quarter, not double, beyond what was reserved.
      const slots = Math.max(this.reservedSlots, Math.ceil(this.slotCount * 1.25), 64);
      this.data = reserve(this.data, slots * this.dims);
    }
    this.data.set(vector, slot * this.dims);
    if (this.outside !== null && slot < this.outside.loaded.length) this.outside.loaded[slot] = 1;
    this.present[slot] = 1;
    this.quantized?.set(slot, vector);
    return true;
  }

  /** `set` for rows kept in the store: flags only, and the copy read before (if any) kept current. */
  private setOutside(sparse: NonNullable<VectorIndex['sparse']>, slot: number, vector: Float32Array | null): boolean {
    if (vector !== null) {
      if (this.dims === null) this.dims = vector.length;
      if (vector.length !== this.dims) {
        this.flagOutside(sparse, slot, this.has(slot));
        return false;
      }
    }
    this.flagOutside(sparse, slot, vector !== null);
    const row = sparse.rowOf[slot] as number;
    if (vector !== null && row >= 0) sparse.pool.set(vector, row * (this.dims as number));
    this.quantized?.set(slot, vector);
    return true;
  }

  /** Says whether `slot` has a vector, for rows kept in the store (read from there when used). */
  private flagOutside(sparse: NonNullable<VectorIndex['sparse']>, slot: number, present: boolean): void {
    const outside = this.outside as NonNullable<VectorIndex['outside']>;
    this.slotCount = Math.max(this.slotCount, slot + 1);
    this.present = grow(this.present, this.slotCount);
    outside.loaded = grow(outside.loaded, this.slotCount);
    sparse.rowOf = growFilled(sparse.rowOf, this.slotCount);
    this.present[slot] = present ? 1 : 0;
    outside.loaded[slot] = (sparse.rowOf[slot] as number) >= 0 ? 1 : 0;
  }

  /**
   * Keeps the spill (see `spill`) holding every slot's row in order after a write of `slot` (the index held `slots`
   * slots before it), or closes it: opened by the first vector, at slot 0 of an empty index.
   */
  private keepSpilled(slots: number, slot: number, vector: Float32Array | null, stored: boolean): void {
    if (this.spill === null && this.spillWanted && slots === 0 && slot === 0 && vector !== null && stored && this.scratchDirectory !== null) this.spill = RowSpill.open(this.scratchDirectory, vector.length);
    this.spillWanted = false;
    const spill = this.spill;
    if (spill === null) return;
    let kept = stored && slot >= slots && spill.rows === slots;
    for (let gap = slots; kept && gap < slot; gap++) kept = spill.append(null);
    if (kept) kept = spill.append(vector);
    if (!kept) this.releaseSpill();
  }

  /**
   * Closes the spill of the rows given (see the constructor), freeing its file: rows not in memory are read from
   * the store from then on. The index calls it at its first search; call it when dropping an index.
   *
   * @example
   * ```ts
   * vectors.releaseSpill(); // an index let go of before its first search
   * ```
   */
  releaseSpill(): void {
    this.spill?.close();
    this.spill = null;
  }

  /**
   * Says a bulk load begins (its first write holds many rows): an empty index with a `scratchDirectory` then spills
   * the rows given from its first vector on (see the constructor). Anything else: nothing.
   *
   * @example
   * ```ts
   * if (index.size === 0 && documents.length >= 1024) vectors.expectBulkLoad();
   * ```
   */
  expectBulkLoad(): void {
    this.spillWanted = this.slotCount === 0 && this.scratchDirectory !== null;
  }

  /** True while the rows given are kept aside in a scratch file (see the constructor). */
  get spilled(): boolean {
    return this.spill !== null;
  }

  /** Keeps the running sum (see `sum`) in step with a write of `slot`, or gives it up. */
  private noteSum(slot: number, vector: Float32Array | null): void {
    const sum = this.sum;
    if (sum === null) return;
    if (slot < this.slotCount) {
      this.sum = null;
      return;
    }
    if (vector === null || (this.dims !== null && vector.length !== this.dims)) return;
    const values = (sum.values ??= new Float64Array(vector.length));
    for (let index = 0; index < vector.length; index++) values[index] = (values[index] as number) + (vector[index] as number);
    sum.count++;
  }

  /**
   * A new index holding the vectors of `slots` (in that order) at slots 0, 1, ..., without an int8 copy yet. With
   * `rows` (the copy's slots read from the store), an index whose rows are in the store makes a copy whose rows
   * stay there too: only the flags are copied, no row is read.
   */
  compacted(slots: readonly number[], rows?: VectorRows): VectorIndex {
    return runSteps(this.compactedSteps(slots, rows));
  }

  /** `compacted` in steps (a pause every few vectors), for `runStepsSliced`; the index must not change meanwhile. */
  *compactedSteps(slots: readonly number[], rows?: VectorRows): Steps<VectorIndex> {
    if (rows !== undefined && this.sparse !== null) {
      const copy = new VectorIndex(rows);
      // Its mean is summed over the rows when asked (in slot order: the sums a fresh build makes as it goes).
      copy.sum = null;
      copy.dims = this.dims;
      copy.reserve(slots.length);
      for (let target = 0; target < slots.length; target++) {
        if ((target & STEP_ROWS) === 0) yield;
        copy.flagOutside(copy.sparse as NonNullable<VectorIndex['sparse']>, target, this.has(slots[target] as number));
      }
      return copy;
    }
    yield* this.readAllSteps();
    const copy = new VectorIndex();
    copy.reserve(slots.length);
    for (let target = 0; target < slots.length; target++) {
      if ((target & STEP_ROWS) === 0) yield;
      copy.set(target, this.vectorOf(slots[target] as number));
    }
    return copy;
  }

  /**
   * Writes the vectors (and their int8 copy, once made) under `prefix` (views: write before the next change).
   * `inStore`: the float32 vectors are left out (the store holds them: `readState` is then given `VectorRows`).
   */
  writeState(writer: SnapshotWriter, prefix: string, inStore = false): void {
    if (!inStore) this.readAll();
    writer.array(`${prefix}.shape`, new Float64Array([this.dims ?? -1, this.slotCount, this.quantized === null ? 0 : 1, inStore ? 1 : 0]));
    writer.array(`${prefix}.present`, this.present.subarray(0, this.slotCount));
    if (this.dims !== null && !inStore) writer.array(`${prefix}.data`, this.data.subarray(0, this.slotCount * this.dims));
    this.quantized?.writeState(writer, `${prefix}.int8`);
  }

  /**
   * The vectors `writeState` wrote under `prefix`: the float32 rows are read when first used (the exact score of
   * a few rows the int8 scan keeps), from the file or, when it was written without them, from `rows` (a
   * snapshot without them and no `rows` is refused); the rest now.
   *
   * @example
   * ```ts
   * const vectors = VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors');
   * ```
   */
  static readState(reader: SnapshotReader, prefix: string, rows?: VectorRows): VectorIndex {
    const [dims, slots, quantized, inStore] = reader.array(`${prefix}.shape`, 'f64');
    const index = new VectorIndex();
    index.slotCount = slots as number;
    index.reservedSlots = index.slotCount;
    index.sum = null;
    index.present = reader.array(`${prefix}.present`, 'u8');
    if (index.present.length !== index.slotCount) throw new SnapshotRejected(`section ${prefix}.present disagrees with the shape (corrupt)`);
    if (dims !== undefined && dims >= 0) {
      index.dims = dims;
      if (inStore === 1) {
        if (rows === undefined) throw new SnapshotRejected('its vectors are kept in the store, which cannot read them by id here');
        index.outside = { rows, loaded: new Uint8Array(index.slotCount) };
        index.sparse = { rowOf: new Int32Array(index.slotCount).fill(-1), pool: new Float32Array(0), rows: 0, slotOfRow: new Int32Array(0) };
      } else {
        index.lazyData = reader.lazy(`${prefix}.data`, 'f32');
        index.data = index.lazyData.array;
      }
    }
    if (quantized === 1) index.quantized = QuantizedVectors.readState(reader, `${prefix}.int8`);
    return index;
  }

  /** Lets go of the int8 copy (the next search or `prepare` makes it again). */
  releaseInt8Copy(): void {
    this.quantized = null;
    this.preparing = null;
  }

  /** Forgets a slot's vector (and closes the spill: see `spill`). */
  remove(slot: number): void {
    this.changes++;
    this.preparing = null;
    // An index with removals is persisted as a compacted copy, which reads its rows from the store.
    this.releaseSpill();
    if (this.present[slot] === 1) this.sum = null;
    if (slot < this.slotCount) this.present[slot] = 0;
    this.quantized?.remove(slot);
  }

  /** True when the slot has a vector. */
  has(slot: number): boolean {
    return this.present[slot] === 1;
  }

  /** The stored vector of a slot (a view, not a copy), or null. */
  vectorOf(slot: number): Float32Array | null {
    if (this.dims === null || this.present[slot] !== 1) return null;
    this.readRow(slot, this.dims);
    const sparse = this.sparse;
    const base = sparse === null ? slot * this.dims : (sparse.rowOf[slot] as number) * this.dims;
    return (sparse === null ? this.data : sparse.pool).subarray(base, base + this.dims);
  }

  /** The mean of the stored vectors (null while empty). */
  mean(): Float64Array | null {
    return runSteps(this.meanSteps());
  }

  /**
   * `mean` in steps, for `runStepsSliced`: from the running sum while only appends came, else summed in slot order
   * over the rows (read a block at a time when they are in the store); the same float64 values either way.
   */
  *meanSteps(): Steps<Float64Array | null> {
    const dims = this.dims;
    if (dims === null) return null;
    let sum = this.sum?.values?.slice() ?? null;
    let count = this.sum?.count ?? 0;
    if (sum === null || sum.length !== dims) {
      sum = new Float64Array(dims);
      count = 0;
      const ahead = this.passReader();
      for (let slot = 0; slot < this.slotCount; slot++) {
        if ((slot & STEP_ROWS) === 0) yield;
        if (this.present[slot] !== 1) continue;
        ahead(slot);
        const vector = this.vectorOf(slot) as Float32Array;
        for (let index = 0; index < dims; index++) sum[index] = (sum[index] as number) + (vector[index] as number);
        count++;
      }
    }
    for (let index = 0; index < dims; index++) sum[index] = (sum[index] as number) / Math.max(1, count);
    return sum;
  }

  /** The similarity of one slot to `query` (null when the slot has no vector). */
  scoreOf(query: Float32Array, slot: number): number | null {
    const vector = this.vectorOf(slot);
    if (vector === null || vector.length !== query.length) return null;
    let dot = 0;
    for (let index = 0; index < vector.length; index++) dot += (vector[index] as number) * (query[index] as number);
    return dot;
  }

  /** Adds the exact similarity to `query` of every slot `mask` marks (1) that has a vector to `statistics`, in slot order. */
  addExactScores(query: Float32Array, mask: Uint8Array, statistics: ScoreStatistics): void {
    const dims = this.dims;
    if (dims === null || query.length !== dims) return;
    this.readAll();
    const end = Math.min(mask.length, this.slotCount);
    for (let slot = 0; slot < end; slot++) {
      if (mask[slot] !== 1 || this.present[slot] !== 1) continue;
      this.readRow(slot, dims);
      statistics.add(dotProduct(this.data, slot * dims, query, dims));
    }
  }

  /** Makes the int8 copy every search scans, if not made yet (the first search would); null while empty. */
  prepare(): QuantizedVectors | null {
    if (this.dims === null) return null;
    if (this.quantized === null) runSteps(this.prepareSteps());
    return this.quantized;
  }

  /**
   * `prepare` in steps, for `runStepsSliced`: the copy is made aside and kept at the end. A search meanwhile
   * finishes it at once (`prepare`); a write meanwhile drops the half-made copy (it is made again when needed).
   */
  prepareSteps(): Steps<void> {
    if (this.dims === null || this.quantized !== null) return noSteps();
    this.preparing ??= this.quantizedSteps();
    return this.preparing;
  }

  private *quantizedSteps(): Steps<void> {
    const changes = this.changes;
    const built = yield* this.buildQuantizedSteps();
    if (this.changes !== changes) return;
    this.quantized ??= built;
    this.preparing = null;
  }

  /**
   * The `limit` slots most similar to `query`, best first (ties: lower slot first); `accept` filters first;
   * `statistics` receives every accepted slot's score (from the int8 scan: within 0.01 of the exact one).
   */
  search(query: Float32Array, limit: number, accept?: (slot: number) => boolean, statistics?: ScoreStatistics): { slot: number; score: number }[] {
    const dims = this.dims;
    if (dims === null || query.length !== dims || limit <= 0) return [];
    const quantized = this.prepare();
    if (quantized === null) return [];
    this.releaseSpill();
    return quantized.search(query, limit, (slot) => {
      this.readRow(slot, dims);
      return this.exactScore(query, slot, dims);
    }, accept, statistics, this.outside === null ? undefined : (slots) => this.readRowsOf(slots));
  }

  /**
   * Reads a persisted copy's row of `slot` if not read yet (it throws SnapshotRejected when the row is corrupt,
   * or the store no longer holds it).
   */
  private readRow(slot: number, dims: number): void {
    const outside = this.outside;
    if (outside !== null) {
      // Slots past the persisted ones were set in this process.
      if (slot < outside.loaded.length && outside.loaded[slot] !== 1) this.readRows(outside, [slot]);
      return;
    }
    const lazy = this.lazyData;
    if (lazy === null) return;
    lazy.need(slot * dims, (slot + 1) * dims);
    if (lazy.complete) this.lazyData = null;
  }

  /** The exact score of a slot whose row is read (`readRow`): the same arithmetic wherever the row is held. */
  private exactScore(query: Float32Array, slot: number, dims: number): number {
    const sparse = this.sparse;
    return sparse === null ? dotProduct(this.data, slot * dims, query, dims) : dotProduct(sparse.pool, (sparse.rowOf[slot] as number) * dims, query, dims);
  }

  /**
   * Makes the int8 copy again around the current mean, aside, and swaps it in at the end unless a write came
   * meanwhile: the copy a fresh build makes, for an index that only took appends since its copy was made.
   */
  *recentredSteps(): Steps<void> {
    if (this.dims === null) return;
    const changes = this.changes;
    const built = yield* this.buildQuantizedSteps();
    if (this.changes === changes) this.quantized = built;
  }

  /** The int8 copy of the rows as they are, centred on their mean (rows kept in the store read a block at a time). */
  private *buildQuantizedSteps(): Steps<QuantizedVectors> {
    if (!this.readsRows) yield* this.readAllSteps();
    const ahead = this.passReader();
    const centre = yield* this.meanSteps();
    return yield* QuantizedVectors.buildSteps(this.slotCount, (slot) => (ahead(slot), this.vectorOf(slot)), this.presentCount() === 0 ? null : centre);
  }

  /** How many slots hold a vector. */
  private presentCount(): number {
    let count = 0;
    for (let slot = 0; slot < this.slotCount; slot++) count += this.present[slot] === 1 ? 1 : 0;
    return count;
  }

  /**
   * For a pass over the slots in increasing order (it may start again from the first) while the rows are in the
   * store: call the function returned with each slot before its row, and the rows of `related(slot)`, are used.
   * When the slot is past the block read last, the rows read before are dropped and those of the next PASS_ROWS
   * slots with a vector, and of their related slots, are read at once: the pass holds one block, not the corpus.
   * Does nothing while the rows are in memory.
   *
   * @example
   * ```ts
   * const ahead = vectors.passReader();
   * for (let slot = 0; slot < count; slot++) if (vectors.has(slot)) use((ahead(slot), vectors.vectorOf(slot)));
   * ```
   */
  passReader(related?: (slot: number) => readonly (number | null)[]): (slot: number) => void {
    let start = 0;
    let end = 0;
    return (slot) => {
      const outside = this.outside;
      if (outside === null || this.sparse === null || (slot >= start && slot < end)) return;
      this.releaseRows();
      start = slot;
      end = Math.min(slot + PASS_ROWS, this.slotCount);
      const wanted: number[] = [];
      for (let at = start; at < end; at++) {
        if (this.present[at] !== 1) continue;
        wanted.push(at);
        if (related !== undefined) for (const other of related(at)) if (other !== null && (other < start || other >= end)) wanted.push(other);
      }
      this.readRowsOf(wanted);
    };
  }

  /** Drops the rows read from the store (they are read again when used): a pass's block, before the next. */
  private releaseRows(): void {
    const sparse = this.sparse;
    const outside = this.outside;
    if (sparse === null || outside === null) return;
    for (let row = 0; row < sparse.rows; row++) {
      const slot = sparse.slotOfRow[row] as number;
      if (sparse.rowOf[slot] === row) {
        sparse.rowOf[slot] = -1;
        outside.loaded[slot] = 0;
      }
    }
    sparse.rows = 0;
  }

  /**
   * Reads the rows of the slots given (with a vector, not read yet) from the store at once, before a loop that
   * uses them: one read for many, instead of one each.
   */
  readRowsOf(slots: readonly number[]): void {
    const outside = this.outside;
    if (outside === null) return;
    const wanted = [...new Set(slots)].filter((slot) => slot < outside.loaded.length && this.present[slot] === 1 && outside.loaded[slot] !== 1);
    for (let start = 0; start < wanted.length; start += ROWS_PER_READ) this.readRows(outside, wanted.slice(start, start + ROWS_PER_READ));
  }

  /** Reads every row of a persisted copy not read yet (before the vectors are copied or written out). */
  readAll(): void {
    runSteps(this.readAllSteps());
  }

  /** `readAll` in steps (a pause every ROWS_PER_READ rows read from the store), for `runStepsSliced`. */
  *readAllSteps(): Steps<void> {
    this.readLazy();
    const outside = this.outside;
    if (outside === null) return;
    let wanted: number[] = [];
    for (let slot = 0; slot < outside.loaded.length; slot++) {
      if (this.present[slot] !== 1 || outside.loaded[slot] === 1) continue;
      wanted.push(slot);
      if (wanted.length === ROWS_PER_READ) {
        yield;
        this.readRowsOf(wanted);
        wanted = [];
      }
    }
    this.readRowsOf(wanted);
    if (this.outside === outside) {
      this.outside = null;
      this.releaseSpill();
    }
  }

  /**
   * Reads every row of a persisted copy still in its file (before the vectors change: a grown array would lose
   * them), and moves the rows read from the store into `data`, at their slots (before a change or a read of all).
   */
  private readLazy(): void {
    this.lazyData?.needAll();
    this.lazyData = null;
    const sparse = this.sparse;
    if (sparse === null) return;
    this.sparse = null;
    const dims = this.dims as number;
    this.data = new Float32Array(this.slotCount * dims);
    for (let slot = 0; slot < sparse.rowOf.length; slot++) {
      const row = sparse.rowOf[slot] as number;
      if (row >= 0) this.data.set(sparse.pool.subarray(row * dims, (row + 1) * dims), slot * dims);
    }
  }

  /**
   * Copies the vectors of `slots` into place: from the spill as far as it holds them, the rest from the store; a
   * slot the store no longer holds (or with another length) refuses the persisted copy.
   */
  private readRows(outside: { rows: VectorRows; loaded: Uint8Array }, slots: readonly number[]): void {
    const dims = this.dims as number;
    const sparse = this.sparse;
    if (sparse !== null && (sparse.rows + slots.length) * dims > sparse.pool.length) {
      const rows = Math.max(256, sparse.rows * 2, sparse.rows + slots.length);
      const pool = new Float32Array(rows * dims);
      pool.set(sparse.pool.subarray(0, sparse.rows * dims));
      sparse.pool = pool;
      sparse.slotOfRow = reserve(sparse.slotOfRow, rows);
    }
    const spilled = this.readSpilled(outside, slots, dims);
    if (spilled === slots.length) return;
    const rest = spilled === 0 ? slots : slots.slice(spilled);
    const vectors = outside.rows(rest);
    rest.forEach((slot, index) => {
      const vector = vectors[index];
      if (vector === null || vector === undefined || vector.length !== dims) throw new SnapshotRejected('a vector it holds is no longer in the store');
      if (sparse === null) this.data.set(vector, slot * dims);
      else if ((sparse.rowOf[slot] as number) < 0) {
        sparse.pool.set(vector, sparse.rows * dims);
        sparse.slotOfRow[sparse.rows] = slot;
        sparse.rowOf[slot] = sparse.rows++;
      }
      outside.loaded[slot] = 1;
    });
  }

  /**
   * Reads the rows of `slots` from the spill (see `spill`), each run of consecutive slots at once, from the first
   * slot on until one it does not hold (or one read already); returns how many it read (the rest: from the store).
   */
  private readSpilled(outside: { rows: VectorRows; loaded: Uint8Array }, slots: readonly number[], dims: number): number {
    const spill = this.spill;
    if (spill === null) return 0;
    const sparse = this.sparse;
    const usable = (slot: number) => slot < spill.rows && (sparse === null || (sparse.rowOf[slot] as number) < 0);
    let done = 0;
    while (done < slots.length && usable(slots[done] as number)) {
      const first = slots[done] as number;
      let end = done + 1;
      while (end < slots.length && slots[end] === first + (end - done) && usable(slots[end] as number)) end++;
      const count = end - done;
      const read = sparse === null ? spill.read(first, count, this.data, first * dims) : spill.read(first, count, sparse.pool, sparse.rows * dims);
      if (!read) {
        this.releaseSpill();
        return done;
      }
      for (let slot = first; slot < first + count; slot++) {
        if (sparse !== null) {
          sparse.slotOfRow[sparse.rows] = slot;
          sparse.rowOf[slot] = sparse.rows++;
        }
        outside.loaded[slot] = 1;
      }
      done = end;
    }
    return done;
  }
}
