// SQLite's chunkVectors.vectorsOf: ids asked in insertion order are read as one run of rows, matched by id, and give what reads by id give, whatever lies between them.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import type { NewChunk } from '../src/seams/store.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

function chunk(id: string, saveId: string, turnId: number, withVector = true): NewChunk {
  return { id, saveId, turnId, chunkType: 'narrative', text: `Line ${turnId}.`, entryId: null, metadata: {}, createdAt: 0, embedding: withVector ? new Float32Array([turnId, 1, 2, 3]) : null };
}

describe('SQLite chunkVectors.vectorsOf', () => {
  it('reads a run of rows in order as reads one by one do, past rows of another save, rows without a vector, deleted rows and ids out of place', async () => {
    const store = openSqliteStore({ path: join(dir, 'run.db') });
    // One save's 300 rows, with another save's rows written in between (interleaved batches) and some without a vector.
    const ids: string[] = [];
    for (let batch = 0; batch < 6; batch++) {
      const rows = Array.from({ length: 50 }, (_, at) => chunk(randomUUID(), 'a', batch * 50 + at, (batch * 50 + at) % 37 !== 5));
      ids.push(...rows.map((row) => row.id));
      await store.insertChunks(rows);
      await store.insertChunks([chunk(randomUUID(), 'b', batch), chunk(`text-id-${batch}`, 'b', batch)]);
    }
    // A text id among them, and a deleted row.
    const named = chunk('npc:rowan-note', 'a', 300);
    await store.insertChunks([named]);
    ids.push(named.id);
    await store.deleteChunks('a', { ids: [ids[120] as string] });
    const oneByOne = async (asked: readonly string[]) => Promise.all(asked.map(async (id) => (await store.chunkVectors.vectorsOf([id]))[0] ?? null));
    const first = (vectors: readonly (Float32Array | null)[]) => vectors.map((vector) => (vector === null ? null : vector[0]));
    const runs = [
      ids,
      ids.slice(10, 200),
      // A neighbour out of place (as a pass asks for the one before its block), a missing id, one of another save's ids.
      [ids[100] as string, ids[99] as string, ...ids.slice(101, 180), randomUUID(), ids[180] as string],
      // Not a run: spread over the save (read by id).
      Array.from({ length: 80 }, (_, at) => ids[(at * 37) % ids.length] as string),
    ];
    for (const asked of runs) {
      const read = await store.chunkVectors.vectorsOf(asked);
      expect(first(read)).toEqual(first(await oneByOne(asked)));
      expect(read.map((vector, at) => vector === null || vector.length === 4 && vector[1] === 1 && asked[at] !== undefined)).toEqual(asked.map(() => true));
    }
    // The vector of each row is its own: turn t's vector starts with t.
    const all = first(await store.chunkVectors.vectorsOf(ids));
    expect(all).toEqual(ids.map((_, turn) => (turn === 120 || turn % 37 === 5 && turn < 300 ? null : turn)));
    await store.close();
  });
});
