// Packed vectors (src/stores/sqlite/packed-vector.ts) give back every bit, are smaller than float32 for embeddings, and are told apart from raw bytes; a SQLite file written before the code migrates and reads the same.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { normalEmbedding, seededRandom } from '../bench/synthetic-corpus.js';
import { isMnemoError } from '../src/core/errors.js';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { isPackedVector, packVector, unpackVector } from '../src/stores/sqlite/packed-vector.js';
import { blobAsVector, blobToVector, vectorToBlob } from '../src/stores/sqlite/vectors.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

const embedding = normalEmbedding;

const bitsOf = (vector: Float32Array) => [...new Uint32Array(vector.buffer, vector.byteOffset, vector.length)];

describe('packed vectors', () => {
  it('give back every bit of embeddings, 11-15% smaller, at any length', () => {
    const random = seededRandom(31);
    for (const dimensions of [1, 2, 3, 7, 100, 384, 1536]) {
      let packedBytes = 0;
      for (let round = 0; round < 50; round++) {
        const vector = embedding(random, dimensions);
        const packed = packVector(vector);
        if (dimensions >= 100) expect(packed).not.toBeNull();
        if (packed === null) continue;
        packedBytes += packed.byteLength;
        expect(isPackedVector(packed)).toBe(true);
        expect(packed.byteLength % 4).not.toBe(0);
        expect(bitsOf(unpackVector(packed))).toEqual(bitsOf(vector));
      }
      // Normal components: 0.88 of the float32 bytes at 100 dimensions, 0.86 at 384 and 1536 (the static embedder's: 0.85).
      if (dimensions >= 100) expect(packedBytes / (50 * dimensions * 4)).toBeLessThan(0.89);
    }
  });

  it('keeps zeros, signs, subnormals and NaN payloads exactly, and leaves a vector raw when packing would not shrink it', () => {
    const random = seededRandom(5);
    const vector = embedding(random, 128);
    const bits = new Uint32Array(vector.buffer);
    bits[0] = 0x00000000; // +0
    bits[1] = 0x80000000; // -0
    bits[2] = 0x00000001; // the smallest subnormal
    bits[3] = 0x807fffff; // the largest negative subnormal
    bits[4] = 0x3f800000; // 1, the largest exponent here
    const packed = packVector(vector) as Uint8Array;
    expect(packed).not.toBeNull();
    expect(bitsOf(unpackVector(packed))).toEqual(bitsOf(vector));
    // An infinity or a NaN sets the largest exponent at 255: every other float would be escaped.
    bits[5] = 0x7fc00123;
    expect(packVector(vector)).toBeNull();
    const blob = vectorToBlob(vector) as Buffer;
    expect(blob.byteLength).toBe(128 * 4);
    expect(bitsOf(blobToVector(blob) as Float32Array)).toEqual(bitsOf(vector));
    expect(packVector(new Float32Array(0))).toBeNull();
    expect(packVector(new Float32Array(0x10000))).toBeNull();
  });

  it('reads a packed blob through both readers and refuses cut or foreign bytes with STORE_FAILURE', () => {
    const vector = embedding(seededRandom(9), 100);
    const blob = vectorToBlob(vector) as Buffer;
    expect(blob.byteLength).toBeLessThan(400);
    expect(bitsOf(blobToVector(blob) as Float32Array)).toEqual(bitsOf(vector));
    expect(bitsOf(blobAsVector(blob) as Float32Array)).toEqual(bitsOf(vector));
    const cut = blob.subarray(0, blob.byteLength % 4 === 1 ? blob.byteLength - 2 : blob.byteLength - 1);
    const foreign = Buffer.from(blob);
    foreign[0] = 7;
    for (const bad of [cut, foreign, blob.subarray(0, 3)]) {
      let caught: unknown;
      try {
        unpackVector(bad);
      } catch (error) {
        caught = error;
      }
      expect(isMnemoError(caught, 'STORE_FAILURE')).toBe(true);
    }
  });

  it('migrates a file whose chunk rows hold raw float32 vectors (before chunks-004), reading the same vectors', async () => {
    const path = join(dir, 'raw-vectors.db');
    const random = seededRandom(13);
    const vectors = Array.from({ length: 30 }, () => embedding(random, 100));
    let next = 0;
    const embedder = {
      provider: 'test',
      modelId: 'fixed',
      dimensions: 100,
      maxBatchSize: 100,
      embed: async (texts: readonly string[]) => texts.map(() => vectors[next++] as Float32Array),
    };
    const memory = await openMemory({ path, logger: silentLogger, embedder, embeddingCache: false, indexDirectory: false });
    await memory.addMany(vectors.map((_, index) => ({ saveId: 'run-1', turnId: index, text: `Line ${index} of the ferry log.` })));
    await memory.close();
    // The old layout: every chunk's vector as raw little-endian float32 bytes, and chunks-004 not applied.
    const raw = new Database(path);
    const rows = raw.prepare('SELECT seq, embedding FROM chunks ORDER BY seq').all() as { seq: number; embedding: Buffer }[];
    expect(rows.every((row) => row.embedding.byteLength < 400 && isPackedVector(row.embedding))).toBe(true);
    const update = raw.prepare('UPDATE chunks SET embedding = ? WHERE seq = ?');
    rows.forEach((row, index) => update.run(Buffer.from((vectors[index] as Float32Array).buffer), row.seq));
    raw.exec("DELETE FROM schema_migrations WHERE id = 'chunks-004'");
    raw.pragma(`user_version = ${(raw.pragma('user_version', { simple: true }) as number) - 1}`);
    raw.close();
    const readBack = async (readonly: boolean) => {
      const store = openSqliteStore({ path, readonly });
      const found: number[][] = [];
      await store.scanChunks('run-1', (row) => found.push(bitsOf(row.embedding as Float32Array)));
      const paged = (await store.pageChunks('run-1', { limit: 100 })).chunks.map((chunk) => bitsOf(chunk.embedding as Float32Array));
      await store.close();
      expect(paged).toEqual(found);
      return found;
    };
    const expected = vectors.map(bitsOf);
    // Read as it is before the migration (a read-only open migrates nothing), then migrated.
    expect(await readBack(true)).toEqual(expected);
    expect(await readBack(false)).toEqual(expected);
    const migrated = new Database(path, { readonly: true });
    const lengths = (migrated.prepare('SELECT length(embedding) AS bytes FROM chunks ORDER BY seq').all() as { bytes: number }[]).map((row) => row.bytes);
    migrated.close();
    expect(lengths.every((bytes) => bytes < 400 && bytes % 4 !== 0)).toBe(true);
  });
});
