// The int8 scan of the semantic arm and the pass over its dot products: a WebAssembly (SIMD) kernel, with a JS fallback.

/**
 * int8-dot.wat beside this file, assembled, base64. To rebuild it after changing the .wat:
 * `node --import tsx scripts/assemble-wat.ts src/retrieval/int8-dot.wat` (wabt's wat2wasm, a devDependency).
 * The test suite checks that it is the .wat's and that both kernels match the JS fallback on random data.
 */
const KERNEL_BASE64 =
  'AGFzbQEAAAABJgNgBX9/f39/AGARf39/f39/f39/f398fHx8fH8Bf2AFf398fH8AAwQDAAECBQMBAAEHIQQGbWVtb3J5AgAEc2NhbgAABmJvdW5kcwABBHN1bXMAAgqkBgOGAgMDfwN7AX8gBCABQQJ0aiEFIAJBcHEhBwJAA0AgBCAFTw0B/QwAAAAAAAAAAAAAAAAAAAAAIQj9DAAAAAAAAAAAAAAAAAAAAAAhCUEAIQYCQCAHRQ0AA0AgACAGav0ABAAhCiADIAZBAXRqIQsgCCAK/YcBIAv9AAQA/boB/a4BIQggCSAK/YgBIAv9AAQQ/boB/a4BIQkgBkEQaiEGIAYgB0kNAAsLIAYgAkkEQCAIIAAgBmr9AQMAIAMgBkEBdGr9AAQA/boB/a4BIQgLIAggCf2uASEIIAQgCP0bACAI/RsBaiAI/RsCIAj9GwNqajYCACAAIAJqIQAgBEEEaiEEDAALCwvMAwIHfwR8RAAAAAAAAPD/IRgCQANAIBEgAE8NASAFIBFqLQAAQQFGBEAgCyACIBFBA3RqKwMAIAyiIAEgEUECdGooAgC3oqAhGSAHBEAgBiATQQN0aiAZOQMAIBNBAWohEwsgAyARQQN0aisDACANoiAEIBFBA3RqKwMAIA6ioCAPoCEaIBkgGqAgGGNFBEAgCCASQQJ0aiARNgIAIBJBAWohEiAZIBqhIRsgGyAYZARAIBQgCkkEQCAUIRUgFEEBaiEUAkADQCAVRQ0BIBVBAWtBAXYhFyAbIAkgF0EDdGorAwBjRQ0BIAkgFUEDdGogCSAXQQN0aisDADkDACAXIRUMAAsLIAkgFUEDdGogGzkDACAUIApGBEAgCSsDACEYCwVBACEVAkADQCAVQQF0QQFqIRYgFiAUTw0BIBZBAWogFEkEQCAJIBZBAWpBA3RqKwMAIAkgFkEDdGorAwBjBEAgFkEBaiEWCwsgCSAWQQN0aisDACAbY0UNASAJIBVBA3RqIAkgFkEDdGorAwA5AwAgFiEVDAALCyAJIBVBA3RqIBs5AwAgCSsDACEYCwsLCyARQQFqIREMAAsLIBAgEzYCACAQIBg5AwggEgtMAgF/AXwgACABQQN0aiEFAkADQCAAIAVPDQEgACsDACEGIAIgBqAhAiADIAYgBqKgIQMgAEEIaiEADAALCyAEIAI5AwAgBCADOQMICw==';

/** The bytes of a WebAssembly page. */
export const WASM_PAGE = 65_536;

/**
 * A scan over rows of `stride` int8 values held in one linear memory: `scan(data, rows, stride, query, out)`
 * writes each row's integer dot product with the int16 query (both at byte offsets of `memory`) to the int32s at
 * `out`. Integer arithmetic, so the WebAssembly and JS versions give the same numbers bit for bit.
 */
export interface DotKernel {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  scan(data: number, rows: number, stride: number, query: number, out: number): void;
  /**
   * The pass over a scan's dot products (`BoundsLayout` gives the byte offsets in `memory`); returns how many
   * candidates it wrote. See `QuantizedVectors.search` for what each step is; `jsBounds` is the same in JS.
   */
  bounds(layout: BoundsLayout, rows: number, keep: boolean, limit: number, query: BoundsQuery): number;
  /**
   * The running sums of the `count` f64 scores at byte offset `scores`, continued from `sum` and `squares` (`sum +=
   * score`, `squares += score * score`, in order: `ScoreStatistics.addMany`'s operations, so the same doubles),
   * written as two f64 at `out`.
   */
  sums(scores: number, count: number, sum: number, squares: number, out: number): void;
  /** `wasm-simd` or `js`. */
  readonly kind: 'wasm-simd' | 'js';
}

/** The part of the WebAssembly API used here (the lib settings of this package do not declare it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/**
 * Where the pass over the dot products reads and writes, byte offsets in the kernel's memory: per row the int32
 * dot product (`dots`), the f64 scale, error norm and quantized norm, and a byte (1: the row may rank); what it
 * writes: the approximate score of each eligible row (`approximates`, when kept), the candidate rows (`candidates`,
 * int32), a heap of `limit` f64 lower bounds (`heap`), and at `out` the number of approximates (int32) and at
 * `out` + 8 the final floor (f64: the limit-th best lower bound, -Infinity with fewer).
 */
export interface BoundsLayout {
  dots: number;
  scales: number;
  errors: number;
  norms: number;
  eligible: number;
  approximates: number;
  candidates: number;
  heap: number;
  out: number;
}

/** The query's part of every row's bound (see `QuantizedVectors.search`). */
export interface BoundsQuery {
  base: number;
  step: number;
  queryNorm: number;
  queryError: number;
  slack: number;
}

/** The kernel module's bytes (int8-dot.wat assembled). */
export function kernelBytes(): Uint8Array {
  return Buffer.from(KERNEL_BASE64, 'base64');
}

let compiled: object | null | undefined;

function wasmModule(): object | null {
  if (compiled === undefined) {
    const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
    try {
      compiled = api === undefined ? null : new api.Module(kernelBytes());
    } catch {
      compiled = null; // no SIMD in this runtime: the JS scan below gives the same numbers
    }
  }
  return compiled;
}

/** A growable memory for the JS fallback, shaped like WebAssembly.Memory. */
class JsMemory {
  buffer = new ArrayBuffer(WASM_PAGE);
  grow(pages: number): number {
    const previous = this.buffer.byteLength / WASM_PAGE;
    const next = new ArrayBuffer(this.buffer.byteLength + pages * WASM_PAGE);
    new Uint8Array(next).set(new Uint8Array(this.buffer));
    this.buffer = next;
    return previous;
  }
}

/**
 * The pass over the dot products in JS, on `buffer` (a kernel's memory): for each eligible row in order, its
 * approximate score base + scale * step * dot and its error bound errorNorm * queryNorm + quantizedNorm *
 * queryError + slack (the same double operations, in the same order, as the WebAssembly kernel's); a row whose
 * upper bound reaches the floor is a candidate, and its lower bound, when above the floor, enters the heap of the
 * `limit` best lower bounds, whose least is the floor once full.
 *
 * @example
 * ```ts
 * const count = jsBounds(kernel.memory.buffer, layout, rows, true, 10, { base, step, queryNorm, queryError, slack });
 * ```
 */
export function jsBounds(buffer: ArrayBuffer, layout: BoundsLayout, rows: number, keep: boolean, limit: number, query: BoundsQuery): number {
  const dots = new Int32Array(buffer, layout.dots, rows);
  const scales = new Float64Array(buffer, layout.scales, rows);
  const errors = new Float64Array(buffer, layout.errors, rows);
  const norms = new Float64Array(buffer, layout.norms, rows);
  const eligible = new Uint8Array(buffer, layout.eligible, rows);
  const approximates = new Float64Array(buffer, layout.approximates, keep ? rows : 0);
  const candidates = new Int32Array(buffer, layout.candidates, rows);
  const heap = new Float64Array(buffer, layout.heap, limit);
  const { base, step, queryNorm, queryError, slack } = query;
  let count = 0;
  let scored = 0;
  let size = 0;
  let floor = -Infinity;
  for (let slot = 0; slot < rows; slot++) {
    if (eligible[slot] !== 1) continue;
    const approximate = base + (scales[slot] as number) * step * (dots[slot] as number);
    if (keep) approximates[scored++] = approximate;
    const error = (errors[slot] as number) * queryNorm + (norms[slot] as number) * queryError + slack;
    if (approximate + error < floor) continue;
    candidates[count++] = slot;
    const low = approximate - error;
    if (!(low > floor)) continue;
    let at: number;
    if (size < limit) {
      at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!(low < (heap[parent] as number))) break;
        heap[at] = heap[parent] as number;
        at = parent;
      }
    } else {
      at = 0;
      for (;;) {
        let child = 2 * at + 1;
        if (child >= size) break;
        if (child + 1 < size && (heap[child + 1] as number) < (heap[child] as number)) child++;
        if (!((heap[child] as number) < low)) break;
        heap[at] = heap[child] as number;
        at = child;
      }
    }
    heap[at] = low;
    if (size === limit) floor = heap[0] as number;
  }
  new Int32Array(buffer, layout.out, 1)[0] = scored;
  new Float64Array(buffer, layout.out + 8, 1)[0] = floor;
  return count;
}

/**
 * The sums of `count` f64 scores in `buffer` at byte offset `scores`, in JS: the kernel's `sums` (see DotKernel).
 *
 * @example
 * ```ts
 * jsSums(kernel.memory.buffer, layout.approximates, scored, statistics.sum, statistics.sumOfSquares, layout.out + 16);
 * ```
 */
export function jsSums(buffer: ArrayBuffer, scores: number, count: number, sum: number, squares: number, out: number): void {
  const values = new Float64Array(buffer, scores, count);
  for (let index = 0; index < count; index++) {
    const score = values[index] as number;
    sum += score;
    squares += score * score;
  }
  const result = new Float64Array(buffer, out, 2);
  result[0] = sum;
  result[1] = squares;
}

/** The same scan in JS (integer products and sums stay exact in doubles). */
export function jsDotKernel(): DotKernel {
  const memory = new JsMemory();
  return {
    kind: 'js',
    memory,
    bounds: (layout, rows, keep, limit, query) => jsBounds(memory.buffer, layout, rows, keep, limit, query),
    sums: (scores, count, sum, squares, out) => jsSums(memory.buffer, scores, count, sum, squares, out),
    scan(data, rows, stride, query, out) {
      const bytes = new Int8Array(memory.buffer);
      const words = new Int16Array(memory.buffer, query, stride);
      const results = new Int32Array(memory.buffer, out, rows);
      for (let row = 0; row < rows; row++) {
        let sum = 0;
        const base = data + row * stride;
        for (let index = 0; index < stride; index++) sum += (bytes[base + index] as number) * (words[index] as number);
        results[row] = sum;
      }
    },
  };
}

/**
 * A new kernel with its own memory: WebAssembly SIMD where the runtime has it (Node 16.4 and later), else JS.
 *
 * @example
 * ```ts
 * const kernel = createDotKernel();
 * kernel.scan(0, rows, 104, queryOffset, outOffset);
 * ```
 */
export function createDotKernel(): DotKernel {
  const module = wasmModule();
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (module === null || api === undefined) return jsDotKernel();
  const instance = new api.Instance(module, {});
  const memory = instance.exports['memory'] as DotKernel['memory'];
  const scan = instance.exports['scan'] as (data: number, rows: number, stride: number, query: number, out: number) => void;
  const pass = instance.exports['bounds'] as (...args: number[]) => number;
  const sums = instance.exports['sums'] as DotKernel['sums'];
  const bounds: DotKernel['bounds'] = (layout, rows, keep, limit, { base, step, queryNorm, queryError, slack }) =>
    pass(rows, layout.dots, layout.scales, layout.errors, layout.norms, layout.eligible, layout.approximates, keep ? 1 : 0, layout.candidates, layout.heap, limit, base, step, queryNorm, queryError, slack, layout.out);
  return { kind: 'wasm-simd', memory, scan, bounds, sums };
}
