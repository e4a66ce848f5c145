// The packed-vector decoder as a WebAssembly kernel (unpack-vector.wat), for the JS loop in packed-vector.ts to hand its work to.

/**
 * unpack-vector.wat beside this file, assembled, base64. To rebuild it after changing the .wat:
 * `node --import tsx scripts/assemble-wat.ts src/stores/sqlite/unpack-vector.wat` (wabt's wat2wasm, a devDependency).
 * The test suite checks that it is the .wat's and that it decodes as the JS loop does, to the bit.
 */
const KERNEL_BASE64 =
  'AGFzbQEAAAABCgFgBX9/f39/AX8DAgEABQMBAAEHEwIGbWVtb3J5AgAGdW5wYWNrAAAK/QEB+gEBDH8gAEEEaiEFIAUgAkEDbGohBiAGIQcgACABaiEIIAQgAkECdGohCQJAA0AgBCAJTw0BAkADQCALQRNODQEgByAISQRAIAogBy0AACALdHIhCgsgB0EBaiEHIAtBCGohCwwACwsgCkH/D3FBAXQvAQAhDCAMQQR2IQ0gAyANayEOIAxBD3EhDyANQRBGBEAgCkELdkH/AXEhDiAPQQhqIQ8LIAogD3YhCiALIA9rIQsgBS0AAiEQIAQgEEGAAXFBGHQgDkEXdHIgEEH/AHFBEHQgBS8BAHJyNgIAIAVBA2ohBSAEQQRqIQQMAAsLIAcgBmtBA3QgC2sL';

/** The bytes of a WebAssembly page. */
const PAGE = 65_536;
/** Where the kernel's memory holds the packed bytes: after the 2,048 u16 entries of the DECODE table at 0. */
const INPUT = 4096;

/** The kernel module's bytes (unpack-vector.wat assembled). */
export function unpackKernelBytes(): Uint8Array {
  return Buffer.from(KERNEL_BASE64, 'base64');
}

/**
 * Decodes a packed vector whose header the caller has read: `unpack(bytes, count, largest)` writes its `count`
 * floats to a new Float32Array and returns it, and sets `used` to the number of code-stream bits it used (bytes
 * past the end of `bytes` read as zeros, so a caller compares that with the stream's length to refuse a cut vector).
 */
export interface UnpackKernel {
  unpack(bytes: Uint8Array, count: number, largest: number): Float32Array;
  /** The code-stream bits the last `unpack` used. */
  used: number;
}

/** The part of the WebAssembly API used here (the lib settings of this package do not declare it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/**
 * The WebAssembly decoder over `decode` (packed-vector.ts's table: for each 11-bit window of the code stream, its
 * first symbol << 4 | that code's length), or null where the runtime has no WebAssembly (the JS loop decodes then).
 *
 * @example
 * ```ts
 * const kernel = createUnpackKernel(DECODE);
 * const vector = kernel!.unpack(bytes, 100, 127); // kernel!.used: the code-stream bits it read
 * ```
 */
export function createUnpackKernel(decode: Uint16Array): UnpackKernel | null {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (api === undefined || decode.length !== INPUT / 2) return null;
  let instance: { exports: Record<string, unknown> };
  try {
    instance = new api.Instance(new api.Module(unpackKernelBytes()), {});
  } catch {
    return null;
  }
  const memory = instance.exports['memory'] as { readonly buffer: ArrayBuffer; grow(pages: number): number };
  const run = instance.exports['unpack'] as (input: number, length: number, count: number, largest: number, out: number) => number;
  let bytes8 = new Uint8Array(memory.buffer);
  let floats = new Float32Array(memory.buffer);
  new Uint16Array(memory.buffer, 0, decode.length).set(decode);
  const kernel: UnpackKernel = {
    used: 0,
    unpack(bytes, count, largest) {
      const length = bytes.byteLength;
      const out = (INPUT + length + 3) & ~3;
      const needed = out + count * 4;
      // Only this grows the memory, so the views change only here.
      if (bytes8.byteLength < needed) {
        memory.grow(Math.ceil((needed - bytes8.byteLength) / PAGE));
        bytes8 = new Uint8Array(memory.buffer);
        floats = new Float32Array(memory.buffer);
      }
      bytes8.set(bytes, INPUT);
      kernel.used = run(INPUT, length, count, largest, out);
      // One copy out of the kernel's memory, into a buffer of the vector's own.
      const vector = new Float32Array(count);
      vector.set(floats.subarray(out >>> 2, (out >>> 2) + count));
      return vector;
    },
  };
  return kernel;
}
