// A vector index whose float32 vectors are in the store (persisted without them, or built with the store's rows) reads the rows it rescores from there: same results, one read per search, a pass holding one block, refused without the store or when a row is gone.
import { describe, expect, it } from 'vitest';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotRejected, SnapshotWriter } from '../src/retrieval/snapshot-format.js';
import { VectorIndex } from '../src/retrieval/vector-index.js';
import { runSteps } from '../src/core/time-slice.js';

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
    // The store: a write lands there before the index hears of it.
    const stored = [...rows];
    const read = VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors', (slots) => {
      reads.push([...slots]);
      for (const slot of slots) everRead.add(slot);
      return slots.map((slot) => stored[slot] ?? null);
    });
    expect(read.readsRows).toBe(true);
    for (let query = 0; query < 5; query++) {
      const vector = unit(10_000 + query, dims);
      reads.length = 0;
      expect(read.search(vector, 10)).toEqual(built.search(vector, 10));
      // The rows rescored came in at most two reads (the best bounds, then those still in reach), none twice.
      expect(reads.length).toBeLessThanOrEqual(2);
      expect(new Set(reads.flat()).size).toBe(reads.flat().length);
    }
    expect(read.search(unit(10_000, dims), 10, (slot) => slot % 2 === 0)).toEqual(built.search(unit(10_000, dims), 10, (slot) => slot % 2 === 0));
    // A write keeps no row of its own (the store has it) and leaves the rows not read yet there; reading them all
    // (before a copy) takes them in.
    const readBefore = [...everRead];
    stored[rows.length] = unit(99, dims);
    read.set(rows.length, unit(99, dims));
    stored[3] = unit(98, dims);
    read.set(3, unit(98, dims));
    // A row read before and written since holds the new vector (not the one read).
    const rewritten = readBefore.find((slot) => slot !== 3) as number;
    stored[rewritten] = unit(97, dims);
    read.set(rewritten, unit(97, dims));
    expect([...(read.vectorOf(rewritten) as Float32Array)]).toEqual([...unit(97, dims)]);
    expect(read.readsRows).toBe(true);
    expect([...(read.vectorOf(7) as Float32Array)]).toEqual([...(rows[7] as Float32Array)]);
    expect([...(read.vectorOf(3) as Float32Array)]).toEqual([...unit(98, dims)]);
    expect([...(read.vectorOf(rows.length) as Float32Array)]).toEqual([...unit(99, dims)]);
    // The rows read before the write (held apart until then) are still the store's, and are not read again.
    expect(everRead.size).toBeGreaterThan(10);
    reads.length = 0;
    for (const slot of readBefore) if (slot !== 3) expect([...(read.vectorOf(slot) as Float32Array)]).toEqual([...(stored[slot] as Float32Array)]);
    expect(reads).toEqual([]);
    read.readAll();
    expect(read.readsRows).toBe(false);
    expect([...(read.vectorOf(2999) as Float32Array)]).toEqual([...(rows[2999] as Float32Array)]);
    expect(read.vectorOf(5)).toBeNull();
  });

  it('built with the store\'s rows, keeps none: the int8 copy, its file and every search are those of an index holding them, each row read about once, a block at a time', () => {
    // More rows than a pass reads at once (4096), with gaps, a rewritten row and a removed one.
    const count = 10_000;
    const stored = Array.from({ length: count }, (_, slot) => (slot % 13 === 7 ? null : unit(slot + 5, dims)));
    const held = new VectorIndex();
    let reads = 0;
    let largestRead = 0;
    const kept = new VectorIndex((slots) => {
      reads += slots.length;
      largestRead = Math.max(largestRead, slots.length);
      return slots.map((slot) => stored[slot] ?? null);
    });
    stored.forEach((vector, slot) => {
      held.set(slot, vector);
      kept.set(slot, vector);
    });
    expect(kept.readsRows).toBe(true);
    expect(reads).toBe(0);
    expect(kept.heldRowBytes).toBe(0);
    expect([...(kept.mean() as Float64Array)]).toEqual([...(held.mean() as Float64Array)]);
    kept.prepare();
    held.prepare();
    const present = stored.filter((vector) => vector !== null).length;
    expect(reads).toBe(present);
    expect(largestRead).toBeLessThanOrEqual(500);
    expect(kept.heldRowBytes).toBeLessThanOrEqual(2 * 4096 * dims * 4);
    const write = (index: VectorIndex) => {
      const writer = new SnapshotWriter();
      index.writeState(writer, 'vectors', true);
      return writer.finish({ version: 1 });
    };
    expect(write(kept).equals(write(held))).toBe(true);
    for (let query = 0; query < 5; query++) {
      const vector = unit(20_000 + query, dims);
      expect(kept.search(vector, 10)).toEqual(held.search(vector, 10));
      expect(kept.search(vector, 10, (slot) => slot % 3 === 0)).toEqual(held.search(vector, 10, (slot) => slot % 3 === 0));
    }
    // A write over a row (or a removal) gives up the running sum: the mean is then summed over the rows read back.
    stored[42] = unit(4242, dims);
    for (const index of [held, kept]) {
      index.set(42, stored[42] as Float32Array);
      index.remove(43);
    }
    expect([...(kept.mean() as Float64Array)]).toEqual([...(held.mean() as Float64Array)]);
    // Made again around that mean, and compacted (the copy's rows stay in the store), they stay the same.
    for (const index of [held, kept]) runSteps(index.recentredSteps());
    expect(write(kept).equals(write(held))).toBe(true);
    const live = Array.from({ length: count }, (_, slot) => slot).filter((slot) => slot !== 43);
    reads = 0;
    const copy = kept.compacted(live, (slots) => slots.map((slot) => stored[live[slot] as number] ?? null));
    expect(reads).toBe(0);
    expect(copy.readsRows).toBe(true);
    const heldCopy = held.compacted(live);
    copy.prepare();
    heldCopy.prepare();
    expect(write(copy).equals(write(heldCopy))).toBe(true);
    expect(copy.search(unit(30_000, dims), 10)).toEqual(heldCopy.search(unit(30_000, dims), 10));
  });

  it('is refused without the store to read from, or when the store no longer holds a row it needs', () => {
    expect(() => VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors')).toThrow(SnapshotRejected);
    const gone = VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors', (slots) => slots.map(() => null));
    expect(() => gone.search(unit(10_000, dims), 10)).toThrow(/no longer in the store/);
    const shorter = VectorIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'vectors', (slots) => slots.map(() => new Float32Array(dims - 1)));
    expect(() => shorter.search(unit(10_000, dims), 10)).toThrow(SnapshotRejected);
  });
});
