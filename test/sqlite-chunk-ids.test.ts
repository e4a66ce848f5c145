// SQLite chunk rows keep a UUID id as its 16 bytes and any other id as text; every read gives the id back as it was written, and a file written before migrates.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { chunkIdText, storedChunkId, storedChunkIdSql } from '../src/stores/sqlite/chunk-ids.js';
import type { NewChunk } from '../src/seams/store.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

/** Ids of every kind: UUIDs as Mnemo makes them, and ids it keeps as text (an uppercase UUID, one cut short, a name). */
const UUIDS = ['3b241101-e2bb-4255-8caf-4136c566a962', '00000000-0000-4000-8000-000000000000', randomUUID()];
const TEXTS = ['3B241101-E2BB-4255-8CAF-4136C566A962', '3b241101-e2bb-4255-8caf-4136c566a96', '3b241101e2bb42558caf4136c566a962aaaa', 'npc:rowan-note', ''];

function chunk(id: string, turnId: number): NewChunk {
  return { id, saveId: 'ids', turnId, chunkType: 'narrative', text: `Line ${turnId}.`, entryId: null, metadata: { saveId: 'ids', turnId, chunkType: 'narrative' }, createdAt: 0, embedding: new Float32Array([turnId, 1, 2, 3]) };
}

describe('SQLite chunk ids', () => {
  it('keeps canonical UUIDs as 16 bytes, every other id as text, and the SQL forms agree with storedChunkId', () => {
    const db = new Database(':memory:');
    for (const id of UUIDS) {
      const stored = storedChunkId(id) as Buffer;
      expect(Buffer.isBuffer(stored) && stored.byteLength).toBe(16);
      expect(db.prepare(`SELECT ${storedChunkIdSql('@id')} AS stored, ${chunkIdText(storedChunkIdSql('@id'))} AS text`).get({ id })).toEqual({ stored, text: id });
    }
    for (const id of TEXTS) {
      expect(storedChunkId(id)).toBe(id);
      expect(db.prepare(`SELECT ${storedChunkIdSql('@id')} AS stored, ${chunkIdText(storedChunkIdSql('@id'))} AS text`).get({ id })).toEqual({ stored: id, text: id });
    }
    db.close();
  });

  it('gives every id back as written, through every read, delete and fork', async () => {
    const path = join(dir, 'ids.db');
    const ids = [...UUIDS, ...TEXTS.filter((id) => id !== '')];
    const store = openSqliteStore({ path });
    await store.insertChunks(ids.map((id, index) => chunk(id, index)));
    expect((await store.listChunks('ids')).map((row) => row.id)).toEqual(ids);
    expect((await store.pageChunks('ids', { limit: 100 })).chunks.map((row) => row.id)).toEqual(ids);
    expect((await store.getChunks([...ids].reverse())).map((row) => row.id)).toEqual([...ids].reverse());
    const scanned: string[] = [];
    await store.scanChunks('ids', (row) => scanned.push(row.id));
    expect(scanned).toEqual(ids);
    // Vectors by id, one and many, and a miss of each form.
    expect((await store.chunkVectors.vectorsOf([ids[3] as string]))[0]?.[0]).toBe(3);
    expect((await store.chunkVectors.vectorsOf([...ids, randomUUID(), 'missing'])).map((vector) => vector?.[0] ?? null)).toEqual([...ids.map((_, index) => index), null, null]);
    const removed = await store.deleteChunks('ids', { ids: [ids[0] as string, ids[4] as string] });
    expect(removed.removed.sort()).toEqual([ids[0], ids[4]].sort());
    await store.fork('ids', 'ids-copy', 100);
    const copies = (await store.listChunks('ids-copy')).map((row) => row.id);
    expect(copies).toHaveLength(ids.length - 2);
    expect(copies.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(true);
    await store.close();
    const raw = new Database(path, { readonly: true });
    const kinds = (raw.prepare("SELECT typeof(id) AS kind FROM chunks WHERE save_id = 'ids' ORDER BY seq").all() as { kind: string }[]).map((row) => row.kind);
    raw.close();
    expect(kinds).toEqual(['blob', 'blob', 'text', 'text', 'text']);
  });

  it('migrates a file whose UUID ids are text (before chunks-005), reading the same ids before and after', async () => {
    const path = join(dir, 'text-ids.db');
    const ids = [...UUIDS, 'npc:rowan-note'];
    const store = openSqliteStore({ path });
    await store.insertChunks(ids.map((id, index) => chunk(id, index)));
    await store.close();
    // The old layout: every id as its text, and chunks-005 not applied.
    const raw = new Database(path);
    raw.exec(`UPDATE chunks SET id = ${chunkIdText('id')}`);
    raw.exec("DELETE FROM schema_migrations WHERE id = 'chunks-005'");
    raw.pragma(`user_version = ${(raw.pragma('user_version', { simple: true }) as number) - 1}`);
    raw.close();
    const kinds = () => {
      const file = new Database(path, { readonly: true });
      const found = (file.prepare('SELECT typeof(id) AS kind FROM chunks ORDER BY seq').all() as { kind: string }[]).map((row) => row.kind);
      file.close();
      return found;
    };
    expect(kinds()).toEqual(['text', 'text', 'text', 'text']);
    // Read as it is before the migration (a read-only open migrates nothing): the ids, their vectors.
    const readonly = openSqliteStore({ path, readonly: true });
    expect((await readonly.listChunks('ids')).map((row) => row.id)).toEqual(ids);
    expect((await readonly.getChunks([ids[1] as string, ids[3] as string])).map((row) => row.id)).toEqual([ids[1], ids[3]]);
    expect((await readonly.chunkVectors.vectorsOf(ids)).map((vector) => vector?.[0])).toEqual([0, 1, 2, 3]);
    expect((await readonly.chunkVectors.vectorsOf([ids[2] as string])).map((vector) => vector?.[0])).toEqual([2]);
    await readonly.close();
    const migrated = openSqliteStore({ path });
    expect((await migrated.listChunks('ids')).map((row) => row.id)).toEqual(ids);
    expect((await migrated.chunkVectors.vectorsOf(ids)).map((vector) => vector?.[0])).toEqual([0, 1, 2, 3]);
    await migrated.close();
    expect(kinds()).toEqual(['blob', 'blob', 'blob', 'text']);
  });
});
