// Float32 vectors to and from SQLite BLOBs (little-endian, as the machine stores them).

/** The bytes of a vector, for a BLOB column. */
export function vectorToBlob(vector: Float32Array | null): Buffer | null {
  return vector === null ? null : Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A vector read back from a BLOB column (copied, so it is aligned and owned). */
export function blobToVector(blob: Buffer | Uint8Array | null | undefined): Float32Array | null {
  if (blob == null || blob.byteLength === 0) return null;
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer, 0, blob.byteLength / 4);
}

/**
 * A vector over a BLOB that SQLite just returned: a view of the blob's own memory when the blob is the whole of
 * its (4-byte aligned) buffer, as better-sqlite3 returns it, so a bulk read makes no second copy; a copy
 * otherwise (a slice of a shared buffer, or unaligned). Use it only for a blob no one else holds.
 *
 * @example
 * ```ts
 * const vector = blobAsVector(row.embedding); // shares row.embedding's memory
 * ```
 */
export function blobAsVector(blob: Buffer | Uint8Array | null | undefined): Float32Array | null {
  if (blob == null || blob.byteLength === 0) return null;
  if (blob.byteOffset !== 0 || blob.buffer.byteLength !== blob.byteLength || blob.byteLength % 4 !== 0) return blobToVector(blob);
  return new Float32Array(blob.buffer, 0, blob.byteLength / 4);
}
