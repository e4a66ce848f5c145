// CRC-32 (zlib's): of bytes, natively, and of a run of blocks from the blocks' own CRCs, so a run is checked with one native pass.
import * as zlib from 'node:zlib';

/** The reflected CRC-32 polynomial (zlib's). */
const POLY = 0xedb88320;

let crcTable: Int32Array | null = null;

/** CRC-32 of `data`, continuing from `value` (the CRC-32 of the bytes before it). */
function jsCrc32(data: Uint8Array, value = 0): number {
  if (crcTable === null) {
    crcTable = new Int32Array(256);
    for (let byte = 0; byte < 256; byte++) {
      let value = byte;
      for (let bit = 0; bit < 8; bit++) value = value & 1 ? POLY ^ (value >>> 1) : value >>> 1;
      crcTable[byte] = value;
    }
  }
  let crc = value ^ -1;
  for (let index = 0; index < data.length; index++) crc = (crcTable[(crc ^ (data[index] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * CRC-32 of `data`, continuing from `value` (zlib's, native from Node 20.15; a table-driven JS one before that
 * gives the same number).
 *
 * @example
 * ```ts
 * crc32(Buffer.from('123456789')); // 0xcbf43926
 * ```
 */
export const crc32: (data: Uint8Array, value?: number) => number = typeof zlib.crc32 === 'function' ? (data, value = 0) => zlib.crc32(data, value) : jsCrc32;

/** a(x)·b(x) modulo the polynomial, both reflected (zlib's multmodp). */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  for (let bit = 1 << 31; bit !== 0; bit >>>= 1) {
    if ((a & bit) !== 0) product ^= b;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(8·bytes) modulo the polynomial: what appending `bytes` bytes does to a CRC (zlib's x2nmodp). */
function shiftOf(bytes: number): number {
  let power = 1 << 30; // x^1, reflected
  let result = 1 << 31; // x^0
  for (let bits = bytes * 8; bits > 0; bits = Math.floor(bits / 2)) {
    if (bits % 2 === 1) result = multiplyModP(power, result);
    power = multiplyModP(power, power);
  }
  return result >>> 0;
}

/** Multiplication by one shift, as four tables of 256 (the operation is linear in the CRC's bits). */
function shiftTables(shift: number): Int32Array {
  const tables = new Int32Array(1024);
  for (let bit = 0; bit < 32; bit++) tables[(bit >> 3) * 256 + (1 << (bit & 7))] = multiplyModP(shift, (1 << bit) >>> 0);
  for (let table = 0; table < 4; table++) {
    const base = table * 256;
    for (let value = 3; value < 256; value++) {
      const low = value & -value;
      if (value !== low) tables[base + value] = (tables[base + low] as number) ^ (tables[base + (value ^ low)] as number);
    }
  }
  return tables;
}

const shiftTablesBySize = new Map<number, Int32Array>();

/**
 * The CRC-32 of blocks laid end to end, from their CRCs alone: `crcs[first..end)` each the CRC of `blockBytes`
 * bytes but the last, of `lastBytes` (zlib's crc32_combine, block after block). Equal to `crc32` of the
 * concatenation, so a run of blocks read at once is checked by one native pass over it; a mismatch means some
 * block's bytes are not those its CRC was made from.
 *
 * @example
 * ```ts
 * const a = Buffer.from('1234'), b = Buffer.from('56789');
 * crcOfBlocks(new Uint32Array([crc32(a), crc32(b)]), 0, 2, 4, 5) === crc32(Buffer.concat([a, b])); // true
 * ```
 */
export function crcOfBlocks(crcs: Uint32Array, first: number, end: number, blockBytes: number, lastBytes: number): number {
  let tables = shiftTablesBySize.get(blockBytes);
  if (tables === undefined) {
    tables = shiftTables(shiftOf(blockBytes));
    shiftTablesBySize.set(blockBytes, tables);
  }
  const shift = (crc: number): number =>
    (tables[crc & 0xff] as number) ^ (tables[256 + ((crc >>> 8) & 0xff)] as number) ^ (tables[512 + ((crc >>> 16) & 0xff)] as number) ^ (tables[768 + (crc >>> 24)] as number);
  let crc = 0;
  for (let block = first; block < end; block++) {
    const shifted = block < end - 1 || lastBytes === blockBytes ? shift(crc) : multiplyModP(shiftOf(lastBytes), crc);
    crc = (shifted ^ (crcs[block] as number)) >>> 0;
  }
  return crc;
}
