// The int8 x int16 dot-product scan of the semantic arm: a 198-byte WebAssembly SIMD kernel, with a JS fallback.

/**
 * int8-dot.wat beside this file, compiled with wabt 1.0.39, base64. To rebuild it after changing the .wat:
 * `npx -y -p wabt@1.0.39 wat2wasm src/retrieval/int8-dot.wat -o kernel.wasm && base64 -w0 kernel.wasm`.
 * The test suite checks it against the JS fallback on random data.
 */
const KERNEL_BASE64 =
  'AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcRAgZtZW1vcnkCAARzY2FuAAAKlAEBkQECAn8BeyAEIAFBAnRqIQUCQANAIAQgBU8NAf0MAAAAAAAAAAAAAAAAAAAAACEHQQAhBgNAIAcgACAGav0BAwAgAyAGQQF0av0ABAD9ugH9rgEhByAGQQhqIQYgBiACSQ0ACyAEIAf9GwAgB/0bAWogB/0bAiAH/RsDamo2AgAgACACaiEAIARBBGohBAwACwsL';

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
  /** `wasm-simd` or `js`. */
  readonly kind: 'wasm-simd' | 'js';
}

/** The part of the WebAssembly API used here (the lib settings of this package do not declare it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

let compiled: object | null | undefined;

function wasmModule(): object | null {
  if (compiled === undefined) {
    const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
    try {
      compiled = api === undefined ? null : new api.Module(Buffer.from(KERNEL_BASE64, 'base64'));
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

/** The same scan in JS (integer products and sums stay exact in doubles). */
export function jsDotKernel(): DotKernel {
  const memory = new JsMemory();
  return {
    kind: 'js',
    memory,
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
  return { kind: 'wasm-simd', memory, scan };
}
