// Int8 copies of a corpus's vectors, scanned with SIMD to find the few rows whose exact score can reach the top k.
import { runSteps, STEP_ROWS } from '../core/time-slice.js';
import type { Steps } from '../core/time-slice.js';
import { createDotKernel, WASM_PAGE } from './int8-dot-kernel.js';
import type { ScoreStatistics } from './score-statistics.js';
import type { SnapshotReader, SnapshotWriter } from './snapshot-format.js';
import type { BoundsLayout, DotKernel } from './int8-dot-kernel.js';
import { grow } from './grow.js';
import { TopK } from './top-k.js';

const INT8_MAX = 127;
const INT16_MAX = 32_767;

/**
 * Math.round for |x| < 2^52 (the same value, up to the sign of a zero), without its data-dependent branch:
 * floor(x + 0.5) is Math.round's integer or one more when the addition rounded up, which `level - 0.5 > x`
 * (exact: level - 0.5 is representable) detects. On noise-like values (a vector's residuals) the branch is
 * mispredicted half the time; this one almost never is.
 *
 * @example
 * ```ts
 * roundHalfUp(2.5); // 3
 * roundHalfUp(0.49999999999999994); // 0, where Math.floor(x + 0.5) gives 1
 * ```
 */
export function roundHalfUp(x: number): number {
  const level = Math.floor(x + 0.5);
  return level - 0.5 > x ? level - 1 : level;
}

/**
 * Vectors stored as int8 with one scale per row (a quarter of float32's memory), for a fast exhaustive scan
 * whose every approximate score comes with a proven error bound. `search` uses the bound to pick the rows that
 * could be in the exact top `limit`, asks the caller for their exact scores and ranks by those: the result is
 * the exact top `limit`, the same as a float32 scan gives, at a fraction of the cost.
 *
 * Each row is stored relative to a fixed centre c (the mean of the vectors it was built from: text vectors
 * share a large common component, and the rest quantizes far more finely): v = c + s·q + e. The query is
 * quantized to int16, u = t·r + f. Then v·u = c·u + s·t·(q·r) + e·u + s·(q·f), and by Cauchy-Schwarz the
 * last two terms are within |e|·|u| + s·|q|·|f|, both norms known exactly.
 *
 * @example
 * ```ts
 * const vectors = QuantizedVectors.build(2, (slot) => rows[slot] ?? null);
 * vectors.search(query, 1, (slot) => exactScore(slot)); // [{ slot: 0, score: 0.6 }]
 * ```
 */
export class QuantizedVectors {
  private readonly kernel: DotKernel = createDotKernel();
  private readonly centre: Float64Array | null;
  private dims: number | null = null;
  /** Row length in bytes: the dimensions rounded up to a multiple of 8 (the kernel reads 8 at a time). */
  private stride = 0;
  private capacity = 0;
  /** Rows a build will store: room for them is made at once (the capacity reached is the same). */
  private plannedRows = 0;
  private slotCount = 0;
  private scales = new Float64Array(0);
  /** |e| per row: the norm of what quantization lost. */
  private errorNorms = new Float64Array(0);
  /** s·|q| per row: the norm of the quantized part. */
  private quantizedNorms = new Float64Array(0);
  private present = new Uint8Array(0);
  /**
   * True while the scan memory's copies of the scales, error norms and quantized norms (see `layout`) are those of
   * the arrays above: a change to a row clears it, and the next search copies them again.
   */
  private mirrored = false;
  /**
   * True while the scales, error norms and quantized norms are held only in the scan's memory, where the pass reads
   * them (rows read from a snapshot, until their first change): the three arrays above are then views of it, made
   * again when the memory grows (`viewKernelArrays`); a change gives them arrays of their own first (`ownArrays`).
   */
  private inKernel = false;
  /**
   * True while `buildSteps` stores its rows: the scales, error norms and quantized norms are then written straight
   * into the scan's memory (see `fillKernel`), not into arrays of their own copied there at the first search.
   */
  private filling = false;
  private readonly residual: Float64Array;
  /** Zeros: the centre of rows stored without one. */
  private origin = new Float64Array(0);
  private bytes = new Int8Array(0);

  /** An empty set of rows stored relative to `centre` (none: the origin). */
  constructor(centre: ArrayLike<number> | null = null) {
    this.centre = centre === null ? null : Float64Array.from(centre);
    this.residual = new Float64Array(centre?.length ?? 0);
  }

  /**
   * Quantizes rows 0..count-1 (null: no vector) around `centre`, by default their mean. `vectorOf` may return a
   * scratch buffer; without a centre it is called twice per row (once for the mean).
   */
  static build(count: number, vectorOf: (slot: number) => Float32Array | null, centre?: ArrayLike<number> | null): QuantizedVectors {
    return runSteps(QuantizedVectors.buildSteps(count, vectorOf, centre));
  }

  /** `build` in steps (a pause every few rows), for `runStepsSliced`; the rows must not change meanwhile. */
  static *buildSteps(count: number, vectorOf: (slot: number) => Float32Array | null, centre?: ArrayLike<number> | null): Steps<QuantizedVectors> {
    if (centre !== undefined) {
      const vectors = new QuantizedVectors(centre);
      vectors.plannedRows = count;
      vectors.filling = true;
      for (let slot = 0; slot < count; slot++) {
        if ((slot & STEP_ROWS) === 0) yield;
        vectors.set(slot, vectorOf(slot));
      }
      vectors.filling = false;
      return vectors;
    }
    let mean: Float64Array | null = null;
    let rows = 0;
    for (let slot = 0; slot < count; slot++) {
      if ((slot & STEP_ROWS) === 0) yield;
      const vector = vectorOf(slot);
      if (vector === null) continue;
      mean ??= new Float64Array(vector.length);
      if (vector.length !== mean.length) continue;
      for (let index = 0; index < vector.length; index++) mean[index] = (mean[index] as number) + (vector[index] as number);
      rows++;
    }
    if (mean !== null) for (let index = 0; index < mean.length; index++) mean[index] = (mean[index] as number) / rows;
    return yield* QuantizedVectors.buildSteps(count, vectorOf, mean);
  }

  /** The vector length, fixed by the first vector stored (null while empty). */
  get dimensions(): number | null {
    return this.dims;
  }

  /** Which scan runs: WebAssembly SIMD, or the JS fallback. */
  get kernelKind(): 'wasm-simd' | 'js' {
    return this.kernel.kind;
  }

  /** Makes room for `rows` rows plus the query and result scratch after them. */
  private reserve(rows: number): void {
    if (rows > this.capacity) {
      // The copies in the scan's memory move with the capacity: keep them apart first.
      this.ownArrays();
      // A build knows its rows: room for them exactly (the scan memory is the index's largest part).
      let capacity = Math.max(1024, this.capacity, rows <= this.plannedRows ? this.plannedRows : 0);
      while (capacity < rows) capacity = Math.ceil(capacity * 1.5);
      this.capacity = capacity;
    }
    this.ensureMemory(this.layout(1).out + 16);
  }

  /** Grows the scan's memory to at least `needed` bytes. */
  private ensureMemory(needed: number): void {
    const have = this.kernel.memory.buffer.byteLength;
    if (needed > have) this.kernel.memory.grow(Math.ceil((needed - have) / WASM_PAGE));
  }

  /** Where the query and the results go: after the rows, 16-byte aligned. */
  private scratchOffset(): number {
    return Math.ceil((this.capacity * this.stride) / 16) * 16;
  }

  /**
   * Where a search's scratch lies in the scan's memory, after the rows: the int16 query, then per row (for the
   * capacity) the dot products, the copies of the scales, error norms and quantized norms, the approximate scores,
   * the candidates and the eligible flags; then a heap of `limit` lower bounds and the pass's two results.
   */
  private layout(limit: number): BoundsLayout & { query: number } {
    const capacity = this.capacity;
    const query = this.scratchOffset();
    const dots = query + this.stride * 2;
    const scales = Math.ceil((dots + capacity * 4) / 8) * 8;
    const errors = scales + capacity * 8;
    const norms = errors + capacity * 8;
    const approximates = norms + capacity * 8;
    const candidates = approximates + capacity * 8;
    const eligible = candidates + capacity * 4;
    const heap = Math.ceil((eligible + capacity) / 8) * 8;
    return { query, dots, scales, errors, norms, eligible, approximates, candidates, heap, out: heap + Math.max(1, limit) * 8 };
  }

  /** Views of the scales, error norms and quantized norms in the scan's memory (while only there: see `inKernel`). */
  private viewKernelArrays(): void {
    const buffer = this.kernel.memory.buffer;
    if (this.scales.buffer === buffer) return;
    const layout = this.layout(1);
    this.scales = new Float64Array(buffer, layout.scales, this.slotCount);
    this.errorNorms = new Float64Array(buffer, layout.errors, this.slotCount);
    this.quantizedNorms = new Float64Array(buffer, layout.norms, this.slotCount);
  }

  /**
   * Moves the scales, error norms and quantized norms of a build into the scan's memory, once room for its rows is
   * made: the build writes them there from then on (at 1M rows, no 24 MB of arrays beside the scan's copies).
   */
  private fillKernel(): void {
    const buffer = this.kernel.memory.buffer;
    const layout = this.layout(1);
    const rows = this.capacity;
    const scales = new Float64Array(buffer, layout.scales, rows);
    const errorNorms = new Float64Array(buffer, layout.errors, rows);
    const quantizedNorms = new Float64Array(buffer, layout.norms, rows);
    scales.set(this.scales.subarray(0, this.slotCount));
    errorNorms.set(this.errorNorms.subarray(0, this.slotCount));
    quantizedNorms.set(this.quantizedNorms.subarray(0, this.slotCount));
    this.scales = scales;
    this.errorNorms = errorNorms;
    this.quantizedNorms = quantizedNorms;
    this.inKernel = true;
    this.mirrored = true;
  }

  /** Gives the scales, error norms and quantized norms arrays of their own (before a change); the next search copies them in again. */
  private ownArrays(): void {
    if (!this.inKernel) return;
    this.viewKernelArrays();
    this.scales = this.scales.slice();
    this.errorNorms = this.errorNorms.slice();
    this.quantizedNorms = this.quantizedNorms.slice();
    this.inKernel = false;
    this.mirrored = false;
  }

  /** Stores (or clears, with null) the vector of a slot. A vector of another length is refused. */
  set(slot: number, vector: Float32Array | null): boolean {
    // A build goes on writing into the scan's memory (see `filling`); any other change owns the arrays first.
    if (!this.filling) this.ownArrays();
    this.slotCount = Math.max(this.slotCount, slot + 1);
    this.mirrored = this.inKernel;
    this.present = grow(this.present, this.slotCount);
    this.scales = grow(this.scales, this.slotCount);
    this.errorNorms = grow(this.errorNorms, this.slotCount);
    this.quantizedNorms = grow(this.quantizedNorms, this.slotCount);
    if (vector === null) {
      this.present[slot] = 0;
      return true;
    }
    if (this.dims === null) {
      if (this.centre !== null && this.centre.length !== vector.length) return false;
      this.dims = vector.length;
      this.stride = Math.ceil(vector.length / 8) * 8;
    }
    if (vector.length !== this.dims) return false;
    this.reserve(Math.max(this.slotCount, this.plannedRows));
    if (this.filling && !this.inKernel) this.fillKernel();
    const dims = vector.length;
    const residual = this.residual.length === dims ? this.residual : new Float64Array(dims);
    // Without a centre, values are taken relative to zeros (v - 0, as the origin gives).
    const centre = this.centre ?? (this.origin.length === dims ? this.origin : (this.origin = new Float64Array(dims)));
    let largest = 0;
    for (let index = 0; index < dims; index++) {
      const value = (vector[index] as number) - (centre[index] as number);
      residual[index] = value;
      largest = Math.max(largest, Math.abs(value));
    }
    const scale = largest / INT8_MAX;
    if (this.bytes.buffer !== this.kernel.memory.buffer) this.bytes = new Int8Array(this.kernel.memory.buffer);
    const bytes = this.bytes;
    const base = slot * this.stride;
    let lost = 0;
    let kept = 0;
    for (let index = 0; index < dims; index++) {
      const value = residual[index] as number;
      const level = scale === 0 ? 0 : roundHalfUp(value / scale);
      bytes[base + index] = level;
      lost += (value - scale * level) ** 2;
      kept += (scale * level) ** 2;
    }
    this.scales[slot] = scale;
    this.errorNorms[slot] = Math.sqrt(lost);
    this.quantizedNorms[slot] = Math.sqrt(kept);
    this.present[slot] = 1;
    return true;
  }

  /** Writes the rows, their scales and bounds and the centre under `prefix` (views: write before the next change). */
  writeState(writer: SnapshotWriter, prefix: string): void {
    if (this.inKernel) this.viewKernelArrays();
    const rows = this.slotCount;
    writer.array(`${prefix}.shape`, new Float64Array([this.dims ?? -1, rows, this.centre === null ? 0 : 1]));
    if (this.centre !== null) writer.array(`${prefix}.centre`, this.centre);
    writer.array(`${prefix}.scales`, this.scales.subarray(0, rows));
    writer.array(`${prefix}.errorNorms`, this.errorNorms.subarray(0, rows));
    writer.array(`${prefix}.quantizedNorms`, this.quantizedNorms.subarray(0, rows));
    writer.array(`${prefix}.present`, this.present.subarray(0, rows));
    if (this.bytes.buffer !== this.kernel.memory.buffer) this.bytes = new Int8Array(this.kernel.memory.buffer);
    writer.array(`${prefix}.bytes`, this.bytes.subarray(0, rows * this.stride));
  }

  /**
   * The sections of rows written under `prefix` that `readState` reads straight into the scan's memory (for
   * `SnapshotReader.readApart`).
   *
   * @example
   * ```ts
   * reader.readApart(QuantizedVectors.sectionsReadInto('contexts'));
   * ```
   */
  static sectionsReadInto(prefix: string): string[] {
    return [`${prefix}.bytes`, `${prefix}.scales`, `${prefix}.errorNorms`, `${prefix}.quantizedNorms`];
  }

  /**
   * The rows `writeState` wrote under `prefix`: the int8 rows, their scales and norms are read into the scan's
   * memory (where the pass reads them: no copy of their own), the rest into arrays of their own. Searches give
   * what the written copy gave.
   *
   * @example
   * ```ts
   * const vectors = QuantizedVectors.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'contexts');
   * ```
   */
  static readState(reader: SnapshotReader, prefix: string): QuantizedVectors {
    const [dims, rows, hasCentre] = reader.array(`${prefix}.shape`, 'f64');
    const vectors = new QuantizedVectors(hasCentre === 1 ? reader.array(`${prefix}.centre`, 'f64') : null);
    vectors.slotCount = rows as number;
    vectors.present = reader.array(`${prefix}.present`, 'u8');
    if (dims !== undefined && dims >= 0) {
      vectors.dims = dims;
      vectors.stride = Math.ceil(dims / 8) * 8;
      // Room for these rows exactly (a write grows it by half): the scan's memory counts towards V8's external memory.
      vectors.capacity = vectors.slotCount;
      vectors.reserve(vectors.slotCount);
      const buffer = vectors.kernel.memory.buffer;
      const layout = vectors.layout(1);
      vectors.bytes = new Int8Array(buffer);
      // Read straight into the scan's memory (no copy in between).
      reader.readInto(`${prefix}.bytes`, 'i8', vectors.bytes.subarray(0, vectors.slotCount * vectors.stride));
      reader.readInto(`${prefix}.scales`, 'f64', new Float64Array(buffer, layout.scales, vectors.slotCount));
      reader.readInto(`${prefix}.errorNorms`, 'f64', new Float64Array(buffer, layout.errors, vectors.slotCount));
      reader.readInto(`${prefix}.quantizedNorms`, 'f64', new Float64Array(buffer, layout.norms, vectors.slotCount));
      vectors.inKernel = true;
      vectors.mirrored = true;
      vectors.viewKernelArrays();
    } else {
      vectors.scales = reader.array(`${prefix}.scales`, 'f64');
      vectors.errorNorms = reader.array(`${prefix}.errorNorms`, 'f64');
      vectors.quantizedNorms = reader.array(`${prefix}.quantizedNorms`, 'f64');
    }
    return vectors;
  }

  /** Bytes of the scan's memory (the int8 rows, their query scratch), for a memory estimate. */
  get memoryBytes(): number {
    return this.kernel.memory.buffer.byteLength + this.slotCount * (this.inKernel ? 1 : 25);
  }

  /** Forgets a slot's vector. */
  remove(slot: number): void {
    this.mirrored = false;
    if (slot < this.slotCount) this.present[slot] = 0;
  }

  /** True when the slot has a vector. */
  has(slot: number): boolean {
    return this.present[slot] === 1;
  }

  /**
   * The exact top `limit` slots for `query`, best first (ties: lower slot first): one int8 scan over every row,
   * then `exact(slot)` for the rows `accept` keeps whose upper bound reaches the limit-th best lower bound.
   * `statistics` receives the approximate score of every accepted row (each within its bound of the exact one).
   * The candidates are scored highest bound first, as few as the exact top `limit` takes (see `exactTop`).
   * `beforeExact` is told every slot `exact` will be asked for before it is (in at most two rounds: to read their
   * vectors in one go each).
   */
  search(
    query: Float32Array,
    limit: number,
    exact: (slot: number) => number,
    accept?: (slot: number) => boolean,
    statistics?: ScoreStatistics,
    beforeExact?: (slots: readonly number[]) => void,
  ): { slot: number; score: number }[] {
    const dims = this.dims;
    if (dims === null || query.length !== dims || limit <= 0 || this.slotCount === 0) return [];
    let largest = 0;
    let queryNorm = 0;
    let base = 0;
    for (let index = 0; index < dims; index++) {
      const value = query[index] as number;
      largest = Math.max(largest, Math.abs(value));
      queryNorm += value * value;
      base += (this.centre?.[index] ?? 0) * value;
    }
    queryNorm = Math.sqrt(queryNorm);
    if (largest === 0) return this.rankExactly(limit, exact, accept, statistics);
    const step = largest / INT16_MAX;
    const rows = this.slotCount;
    this.reserve(rows);
    const layout = this.layout(limit);
    // The pass's results at `out` (16 bytes), the statistics' sums after them (16).
    this.ensureMemory(layout.out + 32);
    if (this.inKernel) this.viewKernelArrays();
    const buffer = this.kernel.memory.buffer;
    const words = new Int16Array(buffer, layout.query, this.stride);
    words.fill(0);
    let queryError = 0;
    for (let index = 0; index < dims; index++) {
      const level = Math.round((query[index] as number) / step);
      words[index] = level;
      queryError += ((query[index] as number) - step * level) ** 2;
    }
    queryError = Math.sqrt(queryError);
    this.kernel.scan(0, rows, this.stride, layout.query, layout.dots);
    const slack = 1e-9 * (1 + Math.abs(base));
    const scales = this.scales;
    const errorNorms = this.errorNorms;
    const quantizedNorms = this.quantizedNorms;
    if (!this.mirrored) {
      new Float64Array(buffer, layout.scales, rows).set(scales.subarray(0, rows));
      new Float64Array(buffer, layout.errors, rows).set(errorNorms.subarray(0, rows));
      new Float64Array(buffer, layout.norms, rows).set(quantizedNorms.subarray(0, rows));
      this.mirrored = true;
    }
    // The rows that may rank: those with a vector that the filter accepts (called once per row, in slot order).
    const eligible = new Uint8Array(buffer, layout.eligible, rows);
    eligible.set(this.present.subarray(0, rows));
    if (accept !== undefined) for (let slot = 0; slot < rows; slot++) if (eligible[slot] === 1 && !accept(slot)) eligible[slot] = 0;
    // In the kernel, for each eligible row in slot order: its approximate score (statistics receive them all) and
    // error bound; a row whose upper bound reaches the limit-th best lower bound so far (the floor) is a candidate.
    const count = this.kernel.bounds(layout, rows, statistics !== undefined, limit, { base, step, queryNorm, queryError, slack });
    const scored = new Int32Array(buffer, layout.out, 1)[0] as number;
    const floor = new Float64Array(buffer, layout.out + 8, 1)[0] as number;
    if (statistics !== undefined) {
      // Their sums in the kernel too (the same operations in the same order as addMany's loop: the same doubles).
      this.kernel.sums(layout.approximates, scored, statistics.sum, statistics.sumOfSquares, layout.out + 16);
      const sums = new Float64Array(buffer, layout.out + 16, 2);
      statistics.addSummed(new Float64Array(buffer, layout.approximates, scored), scored, sums[0] as number, sums[1] as number);
    }
    const dots = new Int32Array(buffer, layout.dots, rows);
    const candidates = new Int32Array(buffer, layout.candidates, count);
    // The candidates whose upper bound reaches the final floor, and those bounds.
    const wanted: number[] = [];
    const uppers: number[] = [];
    for (let index = 0; index < count; index++) {
      const slot = candidates[index] as number;
      const approximate = base + (scales[slot] as number) * step * (dots[slot] as number);
      const error = (errorNorms[slot] as number) * queryNorm + (quantizedNorms[slot] as number) * queryError + slack;
      if (approximate + error < floor) continue;
      wanted.push(slot);
      uppers.push(approximate + error);
    }
    return exactTop(wanted, uppers, limit, exact, beforeExact);
  }

  /** Ranks every accepted row by its exact score (a zero query: nothing to approximate with). */
  private rankExactly(limit: number, exact: (slot: number) => number, accept?: (slot: number) => boolean, statistics?: ScoreStatistics): { slot: number; score: number }[] {
    const top = new TopK(limit);
    for (let slot = 0; slot < this.slotCount; slot++) {
      if (this.present[slot] !== 1 || (accept !== undefined && !accept(slot))) continue;
      const score = exact(slot);
      statistics?.add(score);
      top.push(slot, score);
    }
    return top.sorted();
  }
}

/**
 * The exact top `limit` of the candidates `slots` (in slot order, each with `uppers`, a proven upper bound of its
 * exact score), best first (ties: lower slot first), asking `exact` for as few as that takes: highest upper bound
 * first, stopping once the next bound is below the limit-th best exact score found (no candidate left can enter,
 * its exact score being at most its bound). The result is the one scoring every candidate gives: the top `limit`
 * under (score, then slot) is the same whatever order they are pushed in. `beforeExact` is told, before each of at
 * most two rounds, the slots `exact` is then asked for: the `limit` best bounds, then those of the rest that still
 * reach the limit-th best exact score. A NaN score (no order holds with it) has every candidate scored, in slot
 * order, as before.
 *
 * @example
 * ```ts
 * exactTop([4, 9, 12], [0.9, 0.5, 0.8], 1, (slot) => scores.get(slot)); // scores 12 too only if 4's is below 0.8; 9 if both are below 0.5
 * ```
 */
export function exactTop(
  slots: readonly number[],
  uppers: readonly number[],
  limit: number,
  exact: (slot: number) => number,
  beforeExact?: (slots: readonly number[]) => void,
): { slot: number; score: number }[] {
  const order = Array.from(slots.keys()).sort((a, b) => (uppers[b] as number) - (uppers[a] as number) || (slots[a] as number) - (slots[b] as number));
  const scores = new Float64Array(slots.length).fill(Number.NaN);
  const scored = new Uint8Array(slots.length);
  const top = new TopK(limit);
  let read = 0;
  let broken = false;
  for (let rank = 0; rank < order.length; rank++) {
    const at = order[rank] as number;
    if (top.full && (uppers[at] as number) < top.threshold) break;
    if (rank === read) {
      // The next round: the `limit` best bounds first, then every bound left that reaches the threshold (it only rises).
      let end = rank + 1;
      if (rank === 0) end = Math.min(order.length, limit);
      else while (end < order.length && !((uppers[order[end] as number] as number) < top.threshold)) end++;
      beforeExact?.(order.slice(rank, end).map((index) => slots[index] as number));
      read = end;
    }
    const score = exact(slots[at] as number);
    scores[at] = score;
    scored[at] = 1;
    if (Number.isNaN(score)) {
      broken = true;
      break;
    }
    top.push(slots[at] as number, score);
  }
  if (!broken) return top.sorted();
  // A NaN: every candidate scored and pushed in slot order (scores already computed are reused).
  beforeExact?.(slots.filter((_, index) => scored[index] !== 1));
  const all = new TopK(limit);
  slots.forEach((slot, index) => all.push(slot, scored[index] === 1 ? (scores[index] as number) : exact(slot)));
  return all.sorted();
}

