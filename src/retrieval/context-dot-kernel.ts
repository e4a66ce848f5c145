// The exact score of a neighbour-context vector: a WebAssembly kernel (compiled at once, so the first query's rescoring is not interpreted), with a JS fallback.

/**
 * context-dot.wat beside this file, assembled, base64. To rebuild it after changing the .wat:
 * `node --import tsx scripts/assemble-wat.ts src/retrieval/context-dot.wat` (wabt's wat2wasm). The test suite checks that it is the
 * .wat's and that it scores as the JS fallback does, to the bit.
 */
const KERNEL_BASE64 =
  'AGFzbQEAAAABCQFgBH98f38BfAMCAQAFAwEAAQcSAgZtZW1vcnkCAAVzY29yZQAACvUDAfIDAgZ/BXwgAEECdEEPakFwcSEEIARBAnQhBSAAQQJ0IQdBACEGAkADQCAGIAdPDQEgBSAGaiAGKgIAOAIAIAZBBGohBgwACwtBASEJAkADQCAJQQJLDQEgAiAJcQRAIAQgCWwhCEEAIQYCQANAIAYgB08NASAFIAZqIAUgBmoqAgC7IAEgCCAGaioCALuioLY4AgAgBkEEaiEGDAALCwsgCUEBaiEJDAALC0EAIQYCQANAIAYgB08NASAKIAUgBmoqAgC7IAUgBmoqAgC7oqAhCiAGQQRqIQYMAAsLIAqfIQogCkQAAAAAAAAAAGQEQEEAIQYCQANAIAYgB08NASAFIAZqIAUgBmoqAgC7IAqjtjgCACAGQQRqIQYMAAsLCyAEQQNsIQhBACEGIANBBEYEQAJAA0AgBkEMaiAHQQRrSg0BIAsgBSAGaioCALsgCCAGaioCALuioCELIAwgBSAGaioCBLsgCCAGaioCBLuioCEMIA0gBSAGaioCCLsgCCAGaioCCLuioCENIA4gBSAGaioCDLsgCCAGaioCDLuioCEOIAZBEGohBgwACwsLAkADQCAGIAdPDQEgCyAFIAZqKgIAuyAIIAZqKgIAu6KgIQsgBkEEaiEGDAALCyADQQRGBHwgCyAMoCANoCAOoAUgCwsL';

/** The kernel module's bytes (context-dot.wat assembled). */
export function contextKernelBytes(): Uint8Array {
  return Buffer.from(KERNEL_BASE64, 'base64');
}

/**
 * Makes the context vector normalise(own + weight * previous + weight * next) in `target` (a neighbour may be
 * null): each sum computed in double and stored as float32, the previous neighbour's first, then divided by the
 * norm (the square root of the sum of squares, in order) when that is above 0. Returns `target`.
 *
 * @example
 * ```ts
 * mixContext(new Float32Array(2), own, previous, null, 0.5);
 * ```
 */
export function mixContext(target: Float32Array, own: Float32Array, previous: Float32Array | null, next: Float32Array | null, weight: number): Float32Array {
  const dims = target.length;
  target.set(own);
  if (previous !== null) addScaled(target, previous, weight);
  if (next !== null) addScaled(target, next, weight);
  let norm = 0;
  for (let index = 0; index < dims; index++) norm += (target[index] as number) * (target[index] as number);
  norm = Math.sqrt(norm);
  if (norm > 0) for (let index = 0; index < dims; index++) target[index] = (target[index] as number) / norm;
  return target;
}

/** target += weight * vector, each sum stored at float32. */
function addScaled(target: Float32Array, vector: Float32Array, weight: number): void {
  for (let index = 0; index < target.length; index++) target[index] = (target[index] as number) + weight * (vector[index] as number);
}

/**
 * The dot product of two vectors: in four lanes summed at the end, as `dotProduct` in vector-index.ts does the
 * semantic arm's (lanes = 4), or in one, in order (lanes = 1).
 */
function laneDot(vector: Float32Array, query: Float32Array, lanes: 1 | 4): number {
  const dims = vector.length;
  let dot0 = 0;
  let dot1 = 0;
  let dot2 = 0;
  let dot3 = 0;
  let index = 0;
  if (lanes === 4) {
    for (; index + 3 < dims; index += 4) {
      dot0 += (vector[index] as number) * (query[index] as number);
      dot1 += (vector[index + 1] as number) * (query[index + 1] as number);
      dot2 += (vector[index + 2] as number) * (query[index + 2] as number);
      dot3 += (vector[index + 3] as number) * (query[index + 3] as number);
    }
  }
  for (; index < dims; index++) dot0 += (vector[index] as number) * (query[index] as number);
  return lanes === 4 ? dot0 + dot1 + dot2 + dot3 : dot0;
}

/** Scores context vectors: `score` is laneDot(mixContext(...), query, lanes), the same double to the bit whichever runs it. */
export interface ContextKernel {
  score(own: Float32Array, previous: Float32Array | null, next: Float32Array | null, weight: number, query: Float32Array, lanes: 1 | 4): number;
  /** `wasm` or `js`. */
  readonly kind: 'wasm' | 'js';
}

/** The JS fallback (and the reference the kernel is tested against). */
export function jsContextKernel(): ContextKernel {
  let scratch = new Float32Array(0);
  return {
    kind: 'js',
    score(own, previous, next, weight, query, lanes) {
      if (scratch.length !== own.length) scratch = new Float32Array(own.length);
      return laneDot(mixContext(scratch, own, previous, next, weight), query, lanes);
    },
  };
}

/** The part of the WebAssembly API used here (the lib settings of this package do not declare it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/** The WebAssembly kernel: the rows copied to its memory (own, previous, next, query at multiples of a 16-byte-rounded stride). */
function wasmContextKernel(api: WebAssemblyApi): ContextKernel {
  const instance = new api.Instance(new api.Module(contextKernelBytes()), {});
  const memory = instance.exports['memory'] as { readonly buffer: ArrayBuffer; grow(pages: number): number };
  const run = instance.exports['score'] as (dims: number, weight: number, neighbours: number, lanes: number) => number;
  let floats = new Float32Array(memory.buffer);
  return {
    kind: 'wasm',
    score(own, previous, next, weight, query, lanes) {
      const dims = own.length;
      const stride = Math.ceil((dims * 4) / 16) * 4;
      const needed = 5 * stride * 4;
      if (memory.buffer.byteLength < needed) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / 65_536));
      if (floats.buffer !== memory.buffer) floats = new Float32Array(memory.buffer);
      floats.set(own, 0);
      if (previous !== null) floats.set(previous, stride);
      if (next !== null) floats.set(next, 2 * stride);
      floats.set(query, 3 * stride);
      return run(dims, weight, (previous === null ? 0 : 1) | (next === null ? 0 : 2), lanes);
    },
  };
}

let shared: ContextKernel | undefined;

/**
 * The process's context kernel (one, as every call runs to its end before the next): WebAssembly where the
 * runtime has it, else JS.
 *
 * @example
 * ```ts
 * contextKernel().score(own, previous, next, 0.5, query, 4);
 * ```
 */
export function contextKernel(): ContextKernel {
  if (shared === undefined) {
    const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
    try {
      shared = api === undefined ? jsContextKernel() : wasmContextKernel(api);
    } catch {
      shared = jsContextKernel();
    }
  }
  return shared;
}
