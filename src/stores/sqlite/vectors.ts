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
