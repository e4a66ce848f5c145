// A vector index persisted without its float32 vectors reads the rows it rescores from the store: same results, one read per search, refused without the store or when a row is gone.
import { describe, expect, it } from 'vitest';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotRejected, SnapshotWriter } from '../src/retrieval/snapshot-format.js';
import { VectorIndex } from '../src/retrieval/vector-index.js';

function unit(seed: number, dims: number): Float32Array {
  const vector = new Float32Array(dims);
  let state = seed * 2654435761;
  let norm = 0;
  for (let index = 0; index < dims; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    vector[index] = state / 2 ** 32 - 0.5;
    norm += (vector[index] as number) ** 2;
  }
  return vector.map((value) => value / Math.sqrt(norm));
}

describe('vectors kept in the store', () => {
  const dims = 24;
  const rows = Array.from({ length: 3000 }, (_, slot) => (slot % 17 === 5 ? null : unit(slot + 1, dims)));
  const built = new VectorIndex();
  rows.forEach((vector, slot) => built.set(slot, vector));
  built.prepare();
  const writer = new SnapshotWriter();
  built.writeState(writer, 'vectors', true);
  const bytes = writer.finish({ version: 5 });
  const withData = new SnapshotWriter();
  built.writeState(withData, 'vectors');
  const fullBytes = withData.finish({ version: 5 });

  it('leaves the float32 rows out of the file and gives the results of the index it was written from, reading the few it rescores at once', () => {
    expect(fullBytes.byteLength - bytes.byteLength).toBeGreaterThanOrEqual(rows.length * dims * 4);
    const reads: number[][] = [];
    const everRead = new Set<number>();
    const read = VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors', (slots) => {
      reads.push([...slots]);
      for (const slot of slots) everRead.add(slot);
      return slots.map((slot) => rows[slot] ?? null);
    });
    expect(read.readsRows).toBe(true);
    for (let query = 0; query < 5; query++) {
      const vector = unit(10_000 + query, dims);
      reads.length = 0;
      expect(read.search(vector, 10)).toEqual(built.search(vector, 10));
      // Every row rescored came in one read (none twice across reads).
      expect(reads.length).toBeLessThanOrEqual(1);
    }
    expect(read.search(unit(10_000, dims), 10, (slot) => slot % 2 === 0)).toEqual(built.search(unit(10_000, dims), 10, (slot) => slot % 2 === 0));
    // A write leaves the rows not read yet in the store; reading them all (before a copy) takes them in.
    read.set(rows.length, unit(99, dims));
    read.set(3, unit(98, dims));
    expect(read.readsRows).toBe(true);
    expect([...(read.vectorOf(7) as Float32Array)]).toEqual([...(rows[7] as Float32Array)]);
    expect([...(read.vectorOf(3) as Float32Array)]).toEqual([...unit(98, dims)]);
    expect([...(read.vectorOf(rows.length) as Float32Array)]).toEqual([...unit(99, dims)]);
    // The rows read before the write (held apart until then) are still the store's, and are not read again.
    expect(everRead.size).toBeGreaterThan(10);
    reads.length = 0;
    for (const slot of everRead) if (slot !== 3) expect([...(read.vectorOf(slot) as Float32Array)]).toEqual([...(rows[slot] as Float32Array)]);
    expect(reads).toEqual([]);
    read.readAll();
    expect(read.readsRows).toBe(false);
    expect([...(read.vectorOf(2999) as Float32Array)]).toEqual([...(rows[2999] as Float32Array)]);
    expect(read.vectorOf(5)).toBeNull();
  });

  it('is refused without the store to read from, or when the store no longer holds a row it needs', () => {
    expect(() => VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors')).toThrow(SnapshotRejected);
    const gone = VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors', (slots) => slots.map(() => null));
    expect(() => gone.search(unit(10_000, dims), 10)).toThrow(/no longer in the store/);
    const shorter = VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors', (slots) => slots.map(() => new Float32Array(dims - 1)));
    expect(() => shorter.search(unit(10_000, dims), 10)).toThrow(SnapshotRejected);
  });
});
