// Each document's distinct content words as rows of a static word table, kept beside the index for soft word matching.
import type { Embedder } from '../seams/embedder.js';
import type { StaticEmbedder } from '../embedders/static/static-embedder.js';
import { lookupRow } from '../embedders/static/word-lookup.js';
import { grow } from './grow.js';
import { tokenize } from './tokenize.js';

/**
 * A static embedder's word table as soft matching reads it: a token's row and the cosine of two rows. Rows are
 * int8 (see `WordVectorTable`), so a cosine is an int8 dot product over the two rows' lengths (their scales cancel).
 */
export class WordTable {
  private readonly values: Int8Array;
  private readonly dimensions: number;
  /** 1 / the int8 row's length, computed on first use (0: not yet; a zero row stays NaN-free at cosine 0). */
  private readonly inverseNorms: Float32Array;
  private readonly known: Uint8Array;

  constructor(private readonly table: StaticEmbedder['table']) {
    this.values = table.values;
    this.dimensions = table.dimensions;
    this.inverseNorms = new Float32Array(table.size);
    this.known = new Uint8Array(table.size);
  }

  /** The row of a token (lowercased, NFC), its form without accents next, or -1. */
  rowOf(token: string): number {
    return lookupRow(this.table, token);
  }

  /** The cosine of two rows' vectors (0 when either is all zeros). */
  cosine(a: number, b: number): number {
    const dimensions = this.dimensions;
    const values = this.values;
    const baseA = a * dimensions;
    const baseB = b * dimensions;
    let dot = 0;
    for (let index = 0; index < dimensions; index++) dot += (values[baseA + index] as number) * (values[baseB + index] as number);
    return dot * this.inverseNorm(a) * this.inverseNorm(b);
  }

  private inverseNorm(row: number): number {
    if (this.known[row] === 0) {
      const base = row * this.dimensions;
      let sum = 0;
      for (let index = 0; index < this.dimensions; index++) sum += (this.values[base + index] as number) ** 2;
      this.inverseNorms[row] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
      this.known[row] = 1;
    }
    return this.inverseNorms[row] as number;
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
 * in first-appearance order, unknown words left out. Set when a document is indexed; a slot never set (an index
 * read from a persisted file, which does not hold them) has none until `set` is called for it.
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
  /** Each slot's first row in `flat`, -1 when not set. */
  private starts = new Int32Array(64).fill(-1);
  private counts = new Int32Array(64);

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

  /** Records the rows of a slot's text (replacing none: a slot is set once). */
  set(slot: number, text: string): void {
    const rows = this.rowsOfText(text);
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
    return this.flat.byteLength + this.starts.byteLength + this.counts.byteLength;
  }
}
