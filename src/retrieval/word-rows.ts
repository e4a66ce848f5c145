// Each document's distinct content words as rows of a static word table, kept beside the index for soft word matching.
import type { Embedder } from '../seams/embedder.js';
import type { StaticEmbedder } from '../embedders/static/static-embedder.js';
import { lookupRow } from '../embedders/static/word-lookup.js';
import { grow } from './grow.js';
import { createDotKernel, WASM_PAGE } from './int8-dot-kernel.js';
import type { DotKernel } from './int8-dot-kernel.js';
import { SnapshotRejected } from './snapshot-format.js';
import type { LazySection, SnapshotReader, SnapshotWriter } from './snapshot-format.js';
import { tokenize } from './tokenize.js';

/**
 * A static embedder's word table as soft matching reads it: a token's row, and the cosines of rows with a query's
 * words. Rows are int8 (see `WordVectorTable`): a cosine is the int8 dot product over the two rows' lengths (their
 * scales cancel). A query's rows are noted first, then their cosines with every query word computed at once with
 * the int8 dot kernel (WebAssembly SIMD), one scan per query word over the noted rows copied side by side.
 */
export class WordTable {
  /** How many rows the table has. */
  readonly size: number;
  private readonly values: Int8Array;
  private readonly dimensions: number;
  /** A row's length in the kernel's memory: the dimensions rounded up to a multiple of 8 (it reads 8 at a time). */
  private readonly stride: number;
  /** The prepared query words' rows and their inverse lengths. */
  private queryRows = new Int32Array(0);
  private queryNorms = new Float64Array(0);
  /**
   * Three 32-bit cells a row, side by side (a query's notes of a row touch one cache line): the query that noted it
   * (`generation`), its place among that query's noted rows, and 1 / its int8 length as a float32 (0 for a zero row;
   * -1: not computed yet, `lengths` reads those cells). Made on first use.
   */
  private cells: Int32Array | null = null;
  private lengths: Float32Array | null = null;
  private generation = 0;
  private noted = new Int32Array(1024);
  private notedCount = 0;
  /** The noted rows' cosines with the query words, row by row (`place x words + word`). */
  private buffer = new Float64Array(1024);
  private kernel: DotKernel | null = null;
  /** The noted rows' inverse lengths (scratch of `compute`). */
  private norms = new Float64Array(1024);
  /** The table's values read four bytes at a time (null when its rows do not allow it; undefined: not checked yet). */
  private words32: Int32Array | null | undefined = undefined;

  constructor(private readonly table: StaticEmbedder['table']) {
    this.size = table.size;
    this.values = table.values;
    this.dimensions = table.dimensions;
    this.stride = Math.ceil(table.dimensions / 8) * 8;
  }

  /** The row of a token (lowercased, NFC), its form without accents next, or -1. */
  rowOf(token: string): number {
    return lookupRow(this.table, token);
  }

  /**
   * Starts a query: its words' rows; the rows noted for the previous query are dropped. The notes and cosines are
   * shared, so a caller prepares, notes, computes and reads in one synchronous run (no await between).
   */
  prepare(rows: readonly number[]): void {
    this.queryRows = Int32Array.from(rows);
    this.queryNorms = Float64Array.from(rows, (row) => this.inverseNorm(row));
    const cells = this.rowCells();
    this.generation++;
    if (this.generation === 2 ** 31 - 1) {
      for (let at = 0; at < cells.length; at += 3) cells[at] = 0;
      this.generation = 1;
    }
    this.notedCount = 0;
  }

  /** Notes a row whose cosines the query needs; returns its place (the same for a row noted twice). */
  note(row: number): number {
    const cells = this.cells as Int32Array;
    const at = row * 3;
    if (cells[at] === this.generation) return cells[at + 1] as number;
    cells[at] = this.generation;
    const place = this.notedCount++;
    if (place === this.noted.length) this.noted = grow(this.noted, this.notedCount);
    this.noted[place] = row;
    cells[at + 1] = place;
    return place;
  }

  /**
   * The cosines of every noted row with every query word, `place x words + word`: a view, valid until the next
   * `compute`. Each is the product `cosine` gives, in the same order (integer dot, then the two inverse lengths).
   */
  compute(): Float64Array {
    const words = this.queryRows.length;
    const count = this.notedCount;
    this.buffer = grow(this.buffer, count * words);
    if (count === 0 || words === 0) return this.buffer;
    const kernel = (this.kernel ??= createDotKernel());
    const { dimensions, stride, values, noted } = this;
    const queryOffset = Math.ceil((count * stride) / 16) * 16;
    const outOffset = queryOffset + stride * 2;
    const needed = outOffset + count * 4;
    const have = kernel.memory.buffer.byteLength;
    if (needed > have) kernel.memory.grow(Math.ceil((needed - have) / WASM_PAGE));
    const memory = kernel.memory.buffer;
    this.copyRows(memory, count);
    const query = new Int16Array(memory, queryOffset, stride);
    const dots = new Int32Array(memory, outOffset, count);
    const norms = (this.norms = grow(this.norms, count));
    for (let place = 0; place < count; place++) norms[place] = this.inverseNorm(noted[place] as number);
    const buffer = this.buffer;
    for (let word = 0; word < words; word++) {
      const base = (this.queryRows[word] as number) * dimensions;
      query.fill(0);
      for (let index = 0; index < dimensions; index++) query[index] = values[base + index] as number;
      kernel.scan(0, count, stride, queryOffset, outOffset);
      const wordNorm = this.queryNorms[word] as number;
      for (let place = 0; place < count; place++) buffer[place * words + word] = (dots[place] as number) * wordNorm * (norms[place] as number);
    }
    return buffer;
  }

  /**
   * Copies the noted rows to the start of the kernel's memory, `stride` bytes each (zero padded): four bytes at a
   * time when the table's rows allow it (no per-row view is made, so a query's thousands of rows copy quickly).
   */
  private copyRows(memory: ArrayBuffer, count: number): void {
    const { dimensions, stride, values, noted } = this;
    if (this.words32 === undefined) this.words32 = values.byteOffset % 4 === 0 && dimensions % 4 === 0 ? new Int32Array(values.buffer, values.byteOffset, values.length / 4) : null;
    const words32 = this.words32;
    if (words32 !== null) {
      const rowWords = dimensions / 4;
      const strideWords = stride / 4;
      const target = new Int32Array(memory, 0, count * strideWords);
      for (let place = 0; place < count; place++) {
        const from = (noted[place] as number) * rowWords;
        const to = place * strideWords;
        for (let index = 0; index < rowWords; index++) target[to + index] = words32[from + index] as number;
        for (let index = rowWords; index < strideWords; index++) target[to + index] = 0;
      }
      return;
    }
    const target = new Int8Array(memory, 0, count * stride);
    for (let place = 0; place < count; place++) {
      const from = (noted[place] as number) * dimensions;
      const to = place * stride;
      for (let index = 0; index < dimensions; index++) target[to + index] = values[from + index] as number;
      for (let index = dimensions; index < stride; index++) target[to + index] = 0;
    }
  }

  /** The cosine of two rows' vectors (0 when either is all zeros). */
  cosine(a: number, b: number): number {
    const dimensions = this.dimensions;
    const values = this.values;
    let dot = 0;
    for (let index = 0; index < dimensions; index++) dot += (values[a * dimensions + index] as number) * (values[b * dimensions + index] as number);
    return dot * this.inverseNorm(a) * this.inverseNorm(b);
  }

  private inverseNorm(row: number): number {
    if (this.lengths === null) this.rowCells();
    const lengths = this.lengths as Float32Array;
    const at = row * 3 + 2;
    if ((lengths[at] as number) < 0) {
      const base = row * this.dimensions;
      let sum = 0;
      for (let index = 0; index < this.dimensions; index++) sum += (this.values[base + index] as number) ** 2;
      lengths[at] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    }
    return lengths[at] as number;
  }

  /** The rows' cells (see `cells`), made on first use: no query, every length to compute. */
  private rowCells(): Int32Array {
    if (this.cells === null) {
      const cells = new Int32Array(this.size * 3);
      const lengths = new Float32Array(cells.buffer);
      for (let at = 2; at < lengths.length; at += 3) lengths[at] = -1;
      this.cells = cells;
      this.lengths = lengths;
    }
    return this.cells;
  }
}

/**
 * The word table of the static embedder, or null for any other embedder (or none): soft word matching then stays
 * off, since only a static table gives each word its own vector.
 *
 * @example
 * ```ts
 * const table = wordTableOf(await loadStaticEmbedder()); // a WordTable
 * wordTableOf(null); // null
 * ```
 */
export function wordTableOf(embedder: Embedder | null | undefined): WordTable | null {
  if (embedder === null || embedder === undefined || embedder.provider !== 'static') return null;
  const table = (embedder as Partial<StaticEmbedder>).table;
  return table === undefined ? null : new WordTable(table);
}

/**
 * Each slot's distinct content words (the tokens the analyzer keeps, not stop words) as rows of a word table,
 * in first-appearance order, unknown words left out: recorded when a document is indexed, and persisted with the
 * index (read back on first use; a slot never recorded has none).
 *
 * @example
 * ```ts
 * const rows = new WordRows(table, (token) => token !== 'the');
 * rows.set(0, 'The lighthouse keeper');
 * rows.rowsOf(0); // Int32Array [row of 'lighthouse', row of 'keeper']
 * ```
 */
export class WordRows {
  private flat = new Int32Array(1024);
  private used = 0;
  /** Each slot's first row in `flat`, -1 when not recorded. */
  private starts = new Int32Array(64).fill(-1);
  private counts = new Int32Array(64);
  /** The persisted rows of an index read from a file, read (and checked) on first use: a cold open reads none. */
  private persisted: { counts: LazySection<Int32Array<ArrayBuffer>>; flat: LazySection<Int32Array<ArrayBuffer>>; slots: number } | null = null;

  constructor(
    readonly table: WordTable,
    /** Whether a token is a content word (the analyzer makes a term of it). */
    readonly isContent: (token: string) => boolean,
  ) {}

  /** The rows of a text's distinct content words known to the table, in first-appearance order. */
  rowsOfText(text: string): number[] {
    const rows: number[] = [];
    const seen = new Set<number>();
    for (const token of new Set(tokenize(text))) {
      if (!this.isContent(token)) continue;
      const row = this.table.rowOf(token);
      if (row < 0 || seen.has(row)) continue;
      seen.add(row);
      rows.push(row);
    }
    return rows;
  }

  /** Records the rows of a slot's text (a slot is recorded once). */
  set(slot: number, text: string): void {
    this.setRows(slot, this.rowsOfText(text));
  }

  /** Records a slot's rows as given (another index's, for a compacted copy). */
  setRows(slot: number, rows: ArrayLike<number>): void {
    this.restore();
    this.flat = grow(this.flat, this.used + rows.length);
    this.flat.set(rows, this.used);
    if (slot >= this.starts.length) {
      const previous = this.starts.length;
      this.starts = grow(this.starts, slot + 1);
      this.starts.fill(-1, previous);
      this.counts = grow(this.counts, slot + 1);
    }
    this.starts[slot] = this.used;
    this.counts[slot] = rows.length;
    this.used += rows.length;
  }

  /** Whether the slot's rows were recorded. */
  has(slot: number): boolean {
    this.restore();
    return slot < this.starts.length && (this.starts[slot] as number) >= 0;
  }

  /** The slot's rows (empty when not recorded): a view, valid until the next `set`. */
  rowsOf(slot: number): Int32Array {
    if (!this.has(slot)) return this.flat.subarray(0, 0);
    const start = this.starts[slot] as number;
    return this.flat.subarray(start, start + (this.counts[slot] as number));
  }

  /** Bytes held (for the index's memory estimate). */
  get memoryBytes(): number {
    if (this.persisted !== null) return this.persisted.counts.array.byteLength * 3 + this.persisted.flat.array.byteLength;
    return this.flat.byteLength + this.starts.byteLength + this.counts.byteLength;
  }

  /** Writes the first `slots` slots' rows, in slot order: each slot's count (-1: not recorded), then the rows. */
  writeState(writer: SnapshotWriter, prefix: string, slots: number): void {
    this.restore();
    const counts = new Int32Array(slots).fill(-1);
    let total = 0;
    for (let slot = 0; slot < slots; slot++) if (this.has(slot)) total += counts[slot] = this.counts[slot] as number;
    const flat = new Int32Array(total);
    let at = 0;
    for (let slot = 0; slot < slots; slot++) {
      if (!this.has(slot)) continue;
      flat.set(this.rowsOf(slot), at);
      at += counts[slot] as number;
    }
    writer.array(`${prefix}.counts`, counts);
    writer.array(`${prefix}.flat`, flat);
  }

  /**
   * Takes what `writeState` wrote as this (empty) instance's rows, read from the file on first use (SnapshotRejected
   * then when the sections disagree, so the index is rebuilt).
   */
  readState(reader: SnapshotReader, prefix: string, slots: number): void {
    this.persisted = { counts: reader.lazy(`${prefix}.counts`, 'i32'), flat: reader.lazy(`${prefix}.flat`, 'i32'), slots };
  }

  private restore(): void {
    const persisted = this.persisted;
    if (persisted === null) return;
    this.persisted = null;
    const { slots } = persisted;
    const counts = persisted.counts.needAll();
    const flat = persisted.flat.needAll();
    if (counts.length !== slots) throw new SnapshotRejected('word rows disagree with the ids');
    const starts = new Int32Array(Math.max(64, slots)).fill(-1);
    const kept = new Int32Array(Math.max(64, slots));
    let at = 0;
    for (let slot = 0; slot < slots; slot++) {
      const count = counts[slot] as number;
      if (count < 0) continue;
      starts[slot] = at;
      kept[slot] = count;
      at += count;
    }
    if (at !== flat.length) throw new SnapshotRejected('word rows disagree with their counts');
    for (const row of flat) if (row < 0 || row >= this.table.size) throw new SnapshotRejected('a word row is outside the word table');
    this.starts = starts;
    this.counts = kept;
    this.flat = flat.length > 0 ? flat : new Int32Array(1024);
    this.used = flat.length;
  }
}
