// Float32 vectors to and from SQLite BLOBs: packed (packed-vector.ts, exact, about 15% smaller) or, when that is not smaller or for rows written before it, raw little-endian float32.
import { isPackedVector, packVector, unpackVector } from './packed-vector.js';

/**
 * The bytes of a vector, for a BLOB column: its packed form (`packVector`), or its raw float32 bytes when packing
 * would not make it smaller. `blobToVector` and `blobAsVector` read both.
 *
 * @example
 * ```ts
 * vectorToBlob(new Float32Array(100)); // a Buffer of the packed vector
 * ```
 */
export function vectorToBlob(vector: Float32Array | null): Buffer | null {
  if (vector === null) return null;
  return packVector(vector) ?? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A vector read back from a BLOB column, packed or raw (a new array, so it is aligned and owned). */
export function blobToVector(blob: Buffer | Uint8Array | null | undefined): Float32Array | null {
  if (blob == null || blob.byteLength === 0) return null;
  if (isPackedVector(blob)) return unpackVector(blob);
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer, 0, blob.byteLength / 4);
}

/**
 * A vector over a BLOB that SQLite just returned: unpacked when packed; for raw bytes, a view of the blob's own
 * memory when the blob is the whole of its (4-byte aligned) buffer, as better-sqlite3 returns it, so a bulk read
 * makes no second copy; a copy otherwise (a slice of a shared buffer, or unaligned). Use it only for a blob no
 * one else holds.
 *
 * @example
 * ```ts
 * const vector = blobAsVector(row.embedding); // unpacked, or sharing row.embedding's memory
 * ```
 */
export function blobAsVector(blob: Buffer | Uint8Array | null | undefined): Float32Array | null {
  if (blob == null || blob.byteLength === 0) return null;
  if (isPackedVector(blob)) return unpackVector(blob);
  if (blob.byteOffset !== 0 || blob.buffer.byteLength !== blob.byteLength) return blobToVector(blob);
  return new Float32Array(blob.buffer, 0, blob.byteLength / 4);
}
