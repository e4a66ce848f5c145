// The scratch file of a bulk load's vectors: rows back bit for bit, and an index built with it persists the bytes one without it does, reading no row from the store.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import type { IndexDocument } from '../src/retrieval/corpus-index.js';
import { IndexCache } from '../src/retrieval/index-cache.js';
import type { IndexCacheOptions } from '../src/retrieval/index-cache.js';
import { MAX_OPEN_SPILLS, RowSpill, removeStaleSpills } from '../src/retrieval/row-spill.js';
import { snapshotDirectory } from '../src/retrieval/snapshot-directory.js';
import { VectorIndex } from '../src/retrieval/vector-index.js';
import { tempDir } from './helpers.js';

const WORDS = ['lantern', 'river', 'gate', 'smith', 'oath', 'iron', 'key', 'well', 'tower', 'crow', 'silver', 'debt', 'storm', 'Kaël', 'Mira', 'ash'];

/** A deterministic document from `seed` (every eleventh without a vector). */
function documentOf(seed: number): IndexDocument {
  let state = (seed + 1) * 2654435761;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const words = Array.from({ length: 6 + (seed % 7) }, () => WORDS[next() % WORDS.length] as string);
  const embedding = seed % 11 === 5 ? null : Float32Array.from({ length: 12 }, () => (next() % 2001) / 1000 - 1);
  return { id: `chunk-${seed}`, text: words.join(' '), embedding, position: Math.floor(seed / 3), kind: 'narrative', fields: { part: seed % 4 }, speaker: seed % 3 === 0 ? 'Mira' : 'Kaël', scene: `scene-${Math.floor(seed / 10)}` };
}

const vectorOf = (seed: number) => Float32Array.from({ length: 5 }, (_, index) => Math.fround(Math.sin(seed * 7 + index) * 1e-3 * (seed + 1)));

/**
 * The index file a cache fed `documents` in three batches (a bulk load, from version 0) persists at its end, after
 * a persist midway, and how many rows it read from the store.
 */
async function bulkLoad(documents: readonly IndexDocument[], options: IndexCacheOptions): Promise<{ hash: string; rowsRead: number; scratch: string[] }> {
  const directory = join(tempDir(), 'index');
  let rowsRead = 0;
  const byId = new Map(documents.map((document) => [document.id, document.embedding]));
  const vectorRows = (ids: readonly string[]) => ((rowsRead += ids.length), ids.map((id) => byId.get(id) ?? null));
  const version = { value: 0 };
  const source = { scan: async () => version.value, version: async () => version.value };
  const persistence = { snapshots: snapshotDirectory(directory), identity: async () => 'fixed-identity', verify: async () => true, delayMs: 60_000 };
  const scratch = options.scratchDirectory === undefined ? null : directory;
  const cache = new IndexCache(source, { ...options, vectorRows, scratchDirectory: scratch, persistence });
  const third = Math.ceil(documents.length / 3);
  for (let batch = 0; batch < 3; batch++) {
    await cache.afterWrite('save', { previousVersion: batch, version: batch + 1, count: third }, (held) => held.addSliced(documents.slice(batch * third, (batch + 1) * third)));
    version.value = batch + 1;
    // Persisted midway too (a long load past `maxDelayMs`): its int8 copy is made for the file only, then let go.
    if (batch === 1) await cache.flush();
  }
  await cache.flush();
  const files = readdirSync(directory);
  // Let go of the index (and of its spill: one file descriptor of MAX_OPEN_SPILLS).
  cache.clear();
  const [name] = files.filter((file) => file.endsWith('.index'));
  return { hash: createHash('sha256').update(readFileSync(join(directory, name as string))).digest('hex'), rowsRead, scratch: files.filter((file) => file.endsWith('.scratch')) };
}

describe('RowSpill', () => {
  it('gives back the rows appended, bit for bit, zeros for a row without a vector, by runs, and nothing past its rows or once closed', () => {
    const directory = tempDir();
    const spill = RowSpill.open(directory, 5) as RowSpill;
    expect(spill).not.toBeNull();
    // Past a buffer's worth of rows (1,024), so some are read from the file and some from memory.
    for (let row = 0; row < 1500; row++) expect(spill.append(row === 7 ? null : vectorOf(row))).toBe(true);
    expect(spill.rows).toBe(1500);
    const target = new Float32Array(5 * 1000 + 3);
    expect(spill.read(1000, 40, target, 3)).toBe(true);
    expect(spill.read(5, 3, target, 5 * 40 + 3)).toBe(true);
    for (let row = 0; row < 40; row++) expect([...target.subarray(3 + row * 5, 3 + (row + 1) * 5)]).toEqual([...vectorOf(1000 + row)]);
    expect([...target.subarray(3 + 41 * 5, 3 + 42 * 5)]).toEqual([...vectorOf(6)]);
    expect([...target.subarray(3 + 42 * 5, 3 + 43 * 5)]).toEqual([0, 0, 0, 0, 0]);
    expect(spill.read(1499, 2, target, 0)).toBe(false);
    // A row of another length is refused, and the spill closes.
    expect(spill.append(new Float32Array(4))).toBe(false);
    expect(spill.open).toBe(false);
    expect(spill.rows).toBe(0);
    expect(spill.read(0, 1, target, 0)).toBe(false);
    // Where the system allows it the file is gone from the folder as soon as it is open.
    if (process.platform !== 'win32') expect(readdirSync(directory).filter((file) => file.endsWith('.scratch'))).toEqual([]);
  });

  it(`is not made past ${MAX_OPEN_SPILLS} open at once (a file descriptor each)`, () => {
    const directory = tempDir();
    const spills = Array.from({ length: MAX_OPEN_SPILLS }, () => RowSpill.open(directory, 2));
    expect(spills.every((spill) => spill !== null)).toBe(true);
    expect(RowSpill.open(directory, 2)).toBeNull();
    spills[0]?.close();
    const another = RowSpill.open(directory, 2);
    expect(another).not.toBeNull();
    for (const spill of [...spills, another]) spill?.close();
  });

  it('removes the scratch files of processes that are gone when a spill is made, and leaves a live process\'s and other files alone', () => {
    const directory = tempDir();
    // No process has pid 2^22 + 1 (above Linux's pid_max ceiling): its file stands for a crash's leftover on Windows.
    const stale = `rows-${2 ** 22 + 1}-0b7e3c1a-7c1d-4f5e-9a2b-1c2d3e4f5a6b.scratch`;
    const live = `rows-${process.pid}-1b7e3c1a-7c1d-4f5e-9a2b-1c2d3e4f5a6b.scratch`;
    for (const name of [stale, live, 'rows-notes.txt', 'bm25.bin']) writeFileSync(join(directory, name), 'x');
    const spill = RowSpill.open(directory, 2);
    expect(spill).not.toBeNull();
    spill?.close();
    expect(readdirSync(directory).sort()).toEqual(['bm25.bin', live, 'rows-notes.txt'].sort());
    expect(removeStaleSpills(directory)).toBe(0);
    expect(removeStaleSpills(join(directory, 'missing'))).toBe(0);
  });

  it('is not made where no file can be (the folder would be below a file)', () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    expect(RowSpill.open(join(file, 'below'), 3)).toBeNull();
  });
});

describe('a bulk load with its vectors spilled', () => {
  // Three batches of 1,100: a first write large enough to be a bulk load's (BULK_LOAD_ROWS, 1,024).
  const documents = Array.from({ length: 3300 }, (_, seed) => documentOf(seed));

  it.each([
    ['neighbour context', { neighbourWeight: 0.5, contextSource: 'roles:speaker,scene,day' }],
    ['own vectors', { neighbourWeight: 0 }],
  ] as const)('persists the bytes the same load without a spill persists (%s), midway and at its end, reading no row back from the store', async (_name, options) => {
    const without = await bulkLoad(documents, options);
    const spilled = await bulkLoad(documents, { ...options, scratchDirectory: 'given' });
    expect(spilled.hash).toBe(without.hash);
    // Without: every row twice (2,200 midway, then 3,300, less those without a vector).
    expect(without.rowsRead).toBeGreaterThan(4000);
    expect(spilled.rowsRead).toBe(0);
    expect(spilled.scratch).toEqual([]);
  });

  it('is opened by a first write of 1,024 documents or more only (a save written turn by turn never opens one)', async () => {
    const rows = (ids: readonly string[]) => ids.map((id) => documents[Number(id.slice('chunk-'.length))]?.embedding ?? null);
    const small = new CorpusIndex(0, { vectorRows: rows, scratchDirectory: tempDir() });
    await small.addSliced(documents.slice(0, 1023));
    await small.addSliced(documents.slice(1023, 2100));
    expect(small.vectors.spilled).toBe(false);
    const bulk = new CorpusIndex(0, { vectorRows: rows, scratchDirectory: tempDir() });
    await bulk.addSliced(documents.slice(0, 1024));
    expect(bulk.vectors.spilled).toBe(true);
    bulk.closeSnapshot();
    expect(bulk.vectors.spilled).toBe(false);
  });

  it('is let go of by the index at its first search, of either arm', () => {
    const rows = (ids: readonly string[]) => ids.map((id) => documents[Number(id.slice('chunk-'.length))]?.embedding ?? null);
    for (const search of ['lexical', 'semantic'] as const) {
      const index = new CorpusIndex(0, { neighbourWeight: 0.5, vectorRows: rows, scratchDirectory: tempDir() });
      index.add(documents.slice(0, 1100));
      expect(index.vectors.spilled).toBe(true);
      if (search === 'lexical') index.lexical(['gate'], 5);
      else index.semantic(documents[0]?.embedding as Float32Array, 5);
      expect(index.vectors.spilled).toBe(false);
    }
  });

  it('closes at the first write that is not an append, or at the first search, and the rows are then read from the store', () => {
    let rowsRead = 0;
    const rows = (slots: readonly number[]) => ((rowsRead += slots.length), slots.map((slot) => vectorOf(slot)));
    const vectors = new VectorIndex(rows, tempDir());
    vectors.expectBulkLoad();
    for (let slot = 0; slot < 100; slot++) vectors.set(slot, vectorOf(slot));
    expect(vectors.spilled).toBe(true);
    vectors.readRowsOf([10, 11, 12, 50]);
    expect(rowsRead).toBe(0);
    expect([...(vectors.vectorOf(11) as Float32Array)]).toEqual([...vectorOf(11)]);
    // A gap is spilled as zeros (the slots between hold no vector); a slot written again closes it.
    vectors.set(103, vectorOf(103));
    expect(vectors.spilled).toBe(true);
    vectors.set(20, vectorOf(20));
    expect(vectors.spilled).toBe(false);
    vectors.readRowsOf([30, 31]);
    expect(rowsRead).toBe(2);
    // The int8 copy made: the same whether the rows came from the spill or from the store.
    const fromSpill = new VectorIndex(rows, tempDir());
    fromSpill.expectBulkLoad();
    for (let slot = 0; slot < 100; slot++) fromSpill.set(slot, vectorOf(slot));
    const fromStore = new VectorIndex(rows);
    for (let slot = 0; slot < 100; slot++) fromStore.set(slot, vectorOf(slot));
    rowsRead = 0;
    fromSpill.prepare();
    expect(rowsRead).toBe(0);
    expect(fromSpill.spilled).toBe(true);
    fromStore.prepare();
    expect(rowsRead).toBe(100);
    const query = vectorOf(42);
    expect(fromSpill.search(query, 5)).toEqual(fromStore.search(query, 5));
    expect(fromSpill.spilled).toBe(false);
    // A removal closes it too.
    const removing = new VectorIndex(rows, tempDir());
    removing.expectBulkLoad();
    for (let slot = 0; slot < 10; slot++) removing.set(slot, vectorOf(slot));
    removing.remove(4);
    expect(removing.spilled).toBe(false);
  });
});
