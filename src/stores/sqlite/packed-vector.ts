// An exact, smaller byte form of a float32 vector for SQLite: each float's exponent coded by its distance from the vector's largest.
import { MnemoError } from '../../core/errors.js';
import { createUnpackKernel, type UnpackKernel } from './unpack-vector-kernel.js';

/**
 * The first byte of a packed vector (its code's version). A packed vector's length is never a multiple of 4, so
 * it is told apart from the raw little-endian float32 bytes a row written before the code holds by length alone.
 */
const PACKED = 1;
/** Tag (1), dimensions (u16), the largest exponent (u8). */
const HEADER = 4;
/** Distances from the largest exponent that have a code of their own; a larger one is ESCAPE and then its exponent (8 bits). */
const DISTANCES = 16;
const ESCAPE = DISTANCES;
/**
 * The code length of each distance 0..15 and of ESCAPE: a Huffman code of the distances in the 100-dimension
 * static embedder's vectors at 100k chunks (0: 1.2%, 1: 2.6%, 2: 9.2%, 3: 19.8%, 4: 27.0%, 5: 18.9%, 6: 10.4%,
 * 7: 5.4%, 8: 2.7%, then halving). 2.91 bits a float on average instead of the 8 of the exponent byte: a float
 * takes its sign, that code and its 23 mantissa bits, 26.9 bits instead of 32 (400 bytes -> about 341 at 100
 * dimensions). A vector whose code would not be smaller (an infinity or NaN among finite floats) stays raw.
 */
const LENGTHS = new Uint8Array([6, 5, 4, 2, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 10, 11, 11]);
const LONGEST = 11;

/** Each symbol's code, bit-reversed (bits are written from the lowest up). */
const CODES = new Uint16Array(DISTANCES + 1);
/** For each LONGEST-bit window of the stream, the symbol it starts with (high bits) and that symbol's code length (low 4 bits). */
const DECODE = new Uint16Array(1 << LONGEST);

// Canonical Huffman codes: by length, then by symbol.
{
  let code = 0;
  let previous = 0;
  const order = [...LENGTHS].map((length, symbol) => [length, symbol] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [length, symbol] of order) {
    code <<= length - previous;
    previous = length;
    let reversed = 0;
    for (let bit = 0; bit < length; bit++) reversed |= ((code >>> bit) & 1) << (length - 1 - bit);
    CODES[symbol] = reversed;
    for (let rest = 0; rest < 1 << (LONGEST - length); rest++) DECODE[reversed | (rest << length)] = (symbol << 4) | length;
    code++;
  }
}

/** The floats being packed, as bits (one copy per call instead of a view of each vector). */
let scratch = new Float32Array(1024);
let scratchBits = new Uint32Array(scratch.buffer);

/** A stored vector that cannot be read: the file was damaged or written by something else. */
function corrupt(what: string): MnemoError {
  return new MnemoError('STORE_FAILURE', `A stored vector is corrupt: ${what}. Restore the database from a backup, or re-embed the save (mnemo reindex).`, { details: { reason: 'corrupt vector' } });
}

/**
 * The packed bytes of a vector, or null when packing would not make it smaller (then store its raw float32
 * bytes). Exact: `unpackVector` gives back every bit (signs of zeros, subnormals, NaN payloads).
 *
 * @example
 * ```ts
 * const packed = packVector(new Float32Array([0.12, -0.5, 0.031])); // Uint8Array, or null
 * ```
 */
export function packVector(vector: Float32Array): Buffer | null {
  const count = vector.length;
  if (count === 0 || count > 0xffff) return null;
  if (scratch.length < count) {
    scratch = new Float32Array(Math.max(count, scratch.length * 2));
    scratchBits = new Uint32Array(scratch.buffer);
  }
  scratch.set(vector);
  const bits = scratchBits;
  let largest = 0;
  for (let index = 0; index < count; index++) {
    const exponent = ((bits[index] as number) >>> 23) & 0xff;
    if (exponent > largest) largest = exponent;
  }
  let codeBits = 0;
  for (let index = 0; index < count; index++) {
    const distance = largest - (((bits[index] as number) >>> 23) & 0xff);
    codeBits += distance < DISTANCES ? (LENGTHS[distance] as number) : LONGEST + 8;
  }
  let size = HEADER + count * 3 + ((codeBits + 7) >>> 3);
  if (size % 4 === 0) size++;
  if (size >= count * 4) return null;
  // allocUnsafe: every byte is written below (the padding byte too).
  const out = Buffer.allocUnsafe(size);
  out[0] = PACKED;
  out[1] = count & 0xff;
  out[2] = count >>> 8;
  out[3] = largest;
  // Sign and mantissa, 3 bytes a float, little-endian; then the exponents' codes, a stream from the lowest bit up.
  let position = HEADER + count * 3;
  let buffer = 0;
  let filled = 0;
  for (let index = 0, at = HEADER; index < count; index++, at += 3) {
    const value = bits[index] as number;
    out[at] = value & 0xff;
    out[at + 1] = (value >>> 8) & 0xff;
    out[at + 2] = ((value >>> 16) & 0x7f) | ((value >>> 24) & 0x80);
    const exponent = (value >>> 23) & 0xff;
    const distance = largest - exponent;
    if (distance < DISTANCES) {
      buffer |= (CODES[distance] as number) << filled;
      filled += LENGTHS[distance] as number;
    } else {
      buffer |= ((CODES[ESCAPE] as number) | (exponent << LONGEST)) << filled;
      filled += LONGEST + 8;
    }
    while (filled >= 8) {
      out[position++] = buffer & 0xff;
      buffer >>>= 8;
      filled -= 8;
    }
  }
  if (filled > 0) out[position++] = buffer & 0xff;
  if (position < size) out[position] = 0;
  return out;
}

/**
 * True when `bytes` are a packed vector (see `packVector`), false when they are raw float32 bytes.
 *
 * @example
 * ```ts
 * isPackedVector(new Uint8Array(400)); // false: 100 raw floats
 * ```
 */
export function isPackedVector(bytes: Uint8Array): boolean {
  return bytes.byteLength % 4 !== 0;
}

/** The decoder in WebAssembly (unpack-vector.wat), made at the first unpack; null where the runtime has none. */
let kernel: UnpackKernel | null | undefined;

/** The count of floats of a packed vector, after checking its tag and length; throws STORE_FAILURE otherwise. */
function packedCount(bytes: Uint8Array): number {
  const length = bytes.byteLength;
  const count = length < HEADER ? 0 : (bytes[1] as number) | ((bytes[2] as number) << 8);
  if (!isPackedVector(bytes) || length < HEADER + count * 3 || bytes[0] !== PACKED) {
    throw corrupt(`expected a packed vector (tag ${PACKED}, a length that is not a multiple of 4, at least ${HEADER + count * 3} bytes), got ${length} bytes starting with ${bytes[0] ?? 'nothing'}`);
  }
  return count;
}

/** Throws when the code stream used more bits than `bytes` hold: bits read past the end were zeros the writer never wrote. */
function checkUsed(bytes: Uint8Array, count: number, used: number): void {
  const length = bytes.byteLength;
  if (used > (length - HEADER - count * 3) * 8) throw corrupt(`expected a packed vector of ${count} floats, got ${length} bytes: too short`);
}

/**
 * The vector `packVector` packed into `bytes`, bit for bit; throws when the bytes are not a packed vector.
 * Decoded by a WebAssembly kernel (unpack-vector.wat) where the runtime has WebAssembly, else by
 * `jsUnpackVector`, which gives the same bits (and is the kernel's test reference).
 *
 * @example
 * ```ts
 * const vector = unpackVector(packVector(new Float32Array([0.12, -0.5]))!); // Float32Array [0.12, -0.5]
 * ```
 */
export function unpackVector(bytes: Uint8Array): Float32Array {
  if (kernel === undefined) kernel = createUnpackKernel(DECODE);
  if (kernel === null) return jsUnpackVector(bytes);
  const count = packedCount(bytes);
  const vector = kernel.unpack(bytes, count, bytes[3] as number);
  checkUsed(bytes, count, kernel.used);
  return vector;
}

/**
 * `unpackVector` in JS: the fallback where the runtime has no WebAssembly, and the rule the kernel is tested against.
 *
 * @example
 * ```ts
 * const vector = jsUnpackVector(packVector(new Float32Array([0.12, -0.5]))!); // Float32Array [0.12, -0.5]
 * ```
 */
export function jsUnpackVector(bytes: Uint8Array): Float32Array {
  const length = bytes.byteLength;
  const count = packedCount(bytes);
  const largest = bytes[3] as number;
  const result = new Float32Array(count);
  const bits = new Uint32Array(result.buffer);
  let position = HEADER + count * 3;
  let buffer = 0;
  let filled = 0;
  for (let index = 0, at = HEADER; index < count; index++, at += 3) {
    // A code and an escaped exponent take at most 19 bits.
    while (filled < 19) {
      buffer |= (position < length ? (bytes[position] as number) : 0) << filled;
      position++;
      filled += 8;
    }
    const entry = DECODE[buffer & ((1 << LONGEST) - 1)] as number;
    const symbol = entry >>> 4;
    let exponent = largest - symbol;
    let used = entry & 15;
    if (symbol === ESCAPE) {
      // ESCAPE's code is LONGEST bits long, so the exponent after it is already in the buffer.
      exponent = (buffer >>> LONGEST) & 0xff;
      used += 8;
    }
    buffer >>>= used;
    filled -= used;
    const high = bytes[at + 2] as number;
    bits[index] = (((high & 0x80) << 24) | (exponent << 23) | ((high & 0x7f) << 16) | ((bytes[at + 1] as number) << 8) | (bytes[at] as number)) >>> 0;
  }
  checkUsed(bytes, count, (position - HEADER - count * 3) * 8 - filled);
  return result;
}
