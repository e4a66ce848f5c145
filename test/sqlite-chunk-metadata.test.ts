// SQLite chunk rows keep only the metadata their columns do not hold; reads, forks and a migrated old file give the metadata back unchanged.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../src/open-memory.js';
import { silentLogger } from '../src/core/logger.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { decodeChunkMetadata, encodeChunkMetadata } from '../src/stores/sqlite/chunk-metadata.js';
import type { Metadata } from '../src/core/types.js';
import type { NewChunk } from '../src/seams/store.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
const columns = { saveId: 'run-1', turnId: 7, chunkType: 'narrative', entryId: null };

/** The chunks of a save as JSON text, read every way the store reads them. */
async function readBack(path: string, saveId: string): Promise<string[]> {
  const store = openSqliteStore({ path });
  const listed = await store.listChunks(saveId);
  const byId = await store.getChunks(listed.map((chunk) => chunk.id));
  const paged = (await store.pageChunks(saveId, { limit: 1000 })).chunks;
  const scanned: Metadata[] = [];
  await store.scanChunks(saveId, (row) => scanned.push(row.metadata as Metadata), { metadataKeys: 'all' });
  await store.close();
  const texts = listed.map((chunk) => JSON.stringify(chunk.metadata));
  expect(byId.map((chunk) => JSON.stringify(chunk.metadata))).toEqual(texts);
  expect(paged.map((chunk) => JSON.stringify(chunk.metadata))).toEqual(texts);
  expect(scanned.map((metadata) => JSON.stringify(metadata))).toEqual(texts);
  return texts;
}

function rawMetadata(path: string): string[] {
  const raw = new Database(path, { readonly: true });
  const rows = (raw.prepare('SELECT metadata FROM chunks ORDER BY seq').all() as { metadata: string }[]).map((row) => row.metadata);
  raw.close();
  return rows;
}

describe('SQLite chunk metadata', () => {
  it('keeps only the keys the columns do not hold, and gives the same JSON back', () => {
    const cases: [Metadata, typeof columns | (Omit<typeof columns, 'entryId'> & { entryId: string })][] = [
      [{ saveId: 'run-1', turnId: 7, chunkType: 'narrative' }, columns],
      [{ speaker: 'Rowan', mood: { calm: true }, saveId: 'run-1', turnId: 7, chunkType: 'narrative' }, columns],
      [{ '12': 'numeric key', __proto__: 'kept', saveId: 'run-1', turnId: 7, chunkType: 'narrative', entryId: 'npc:1' }, { ...columns, entryId: 'npc:1' }],
    ];
    const stored = cases.map(([metadata, row]) => encodeChunkMetadata(metadata, row));
    expect(stored.slice(0, 2)).toEqual(['', '"speaker":"Rowan","mood":{"calm":true}']);
    cases.forEach(([metadata, row], index) => expect(JSON.stringify(decodeChunkMetadata(stored[index] as string, row))).toBe(JSON.stringify(metadata)));
  });

  it('keeps metadata whole when the columns could not rebuild it (order, values or keys differ)', () => {
    const odd: Metadata[] = [
      { saveId: 'run-1', speaker: 'Rowan', turnId: 7, chunkType: 'narrative' },
      { speaker: 'Rowan', saveId: 'other', turnId: 7, chunkType: 'narrative' },
      { speaker: 'Rowan', turnId: 7, chunkType: 'narrative' },
      { saveId: 'run-1', turnId: 7, chunkType: 'narrative', entryId: 'npc:1' },
    ];
    for (const metadata of odd) {
      const stored = encodeChunkMetadata(metadata, columns);
      expect(stored.startsWith('=')).toBe(true);
      expect(JSON.stringify(decodeChunkMetadata(stored, columns))).toBe(JSON.stringify(metadata));
    }
    // A row written before the encoding: the whole JSON, read as it is.
    expect(decodeChunkMetadata('{"a":1,"saveId":"old"}', columns)).toEqual({ a: 1, saveId: 'old' });
  });

  it('stores the short form, reads it back every way and forks it under the new save id', async () => {
    const path = join(dir, 'short.db');
    const memory = await openMemory({ path, logger: silentLogger, embedder: null, indexDirectory: false });
    await memory.addMany([
      { saveId: 'run-1', turnId: 1, text: 'The ferry leaves at dawn.' },
      { saveId: 'run-1', turnId: 2, text: 'Rowan pays the ferryman.', metadata: { speaker: 'Rowan' } },
      { saveId: 'run-1', turnId: 3, text: 'Marta remembers the debt.', entryId: 'npc:marta', metadata: { speaker: 'Marta', mood: 'grim' } },
    ]);
    await memory.fork('run-1', 'run-2', 3);
    await memory.close();
    // An import whose metadata the columns cannot rebuild (its saveId first) is kept whole.
    const store = openSqliteStore({ path });
    const odd: NewChunk = { id: 'odd-1', saveId: 'run-3', turnId: 1, chunkType: 'narrative', text: 'Odd.', entryId: null, metadata: { saveId: 'run-3', note: 'first', turnId: 1, chunkType: 'narrative' }, createdAt: 0, embedding: null };
    await store.insertChunks([odd]);
    await store.close();
    const first = await readBack(path, 'run-1');
    expect(first.map((text) => JSON.parse(text) as Metadata)).toEqual([
      { saveId: 'run-1', turnId: 1, chunkType: 'narrative' },
      { speaker: 'Rowan', saveId: 'run-1', turnId: 2, chunkType: 'narrative' },
      { speaker: 'Marta', mood: 'grim', saveId: 'run-1', turnId: 3, chunkType: 'narrative', entryId: 'npc:marta' },
    ]);
    expect(await readBack(path, 'run-2')).toEqual(first.map((text) => text.replaceAll('"saveId":"run-1"', '"saveId":"run-2"')));
    expect(await readBack(path, 'run-3')).toEqual([JSON.stringify(odd.metadata)]);
    expect(rawMetadata(path)).toEqual(['', '"speaker":"Rowan"', '"speaker":"Marta","mood":"grim"', '', '"speaker":"Rowan"', '"speaker":"Marta","mood":"grim"', `=${JSON.stringify(odd.metadata)}`]);
    // A fork of metadata kept whole sets its saveId in place.
    const again = await openMemory({ path, logger: silentLogger, embedder: null, indexDirectory: false });
    await again.fork('run-3', 'run-4', 1);
    await again.close();
    expect(await readBack(path, 'run-4')).toEqual([JSON.stringify({ ...odd.metadata, saveId: 'run-4' })]);
  });

  it('migrates a file written before chunks-003 (whole JSON per row) to the short form, reading the same', async () => {
    const path = join(dir, 'old-format.db');
    const memory = await openMemory({ path, logger: silentLogger, embedder: null, indexDirectory: false });
    await memory.addMany([
      { saveId: 'run-1', turnId: 1, text: 'The ferry leaves at dawn.' },
      { saveId: 'run-1', turnId: 2, text: 'Rowan pays the ferryman.', entryId: 'npc:rowan', metadata: { speaker: 'Rowan' } },
    ]);
    await memory.close();
    const expected = await readBack(path, 'run-1');
    // The old layout: each row's whole metadata as JSON, one with its keys in an order the columns cannot rebuild.
    const raw = new Database(path);
    const update = raw.prepare('UPDATE chunks SET metadata = ? WHERE turn_id = ?');
    update.run(expected[0], 1);
    const reordered = JSON.stringify({ saveId: 'run-1', speaker: 'Rowan', turnId: 2, chunkType: 'narrative', entryId: 'npc:rowan' });
    update.run(reordered, 2);
    raw.exec("DELETE FROM schema_migrations WHERE id = 'chunks-003'");
    raw.pragma(`user_version = ${(raw.pragma('user_version', { simple: true }) as number) - 1}`);
    raw.close();
    // Read as it is before the migration (a read-only open migrates nothing).
    const readonly = openSqliteStore({ path, readonly: true });
    expect((await readonly.listChunks('run-1')).map((chunk) => JSON.stringify(chunk.metadata))).toEqual([expected[0], reordered]);
    await readonly.close();
    expect(await readBack(path, 'run-1')).toEqual([expected[0], reordered]);
    expect(rawMetadata(path)).toEqual(['', `=${reordered}`]);
  });
});
