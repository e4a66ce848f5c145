// SQLite rewind: the rewound chunks are hidden in the rewind's transaction and deleted by a background purge.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import type { NewChunk } from '../src/seams/chunk-store.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { PURGE_BATCH } from '../src/stores/sqlite/rewound-rows.js';
import { rewoundInFile, tempDir } from './helpers.js';

const dir = tempDir();
const PER_TURN = 400;

function turn(saveId: string, turnId: number, count = PER_TURN): NewChunk[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `${saveId}-${turnId}-${index}`, saveId, turnId, chunkType: 'narrative', text: `turn ${turnId} line ${index}`, entryId: null,
    metadata: { saveId, turnId, chunkType: 'narrative' }, createdAt: 0, embedding: new Float32Array([turnId, index, 1]),
  }));
}

async function filled(path: string, turns: number): Promise<SqliteStore> {
  const store = openSqliteStore({ path, durability: 'normal' });
  for (let turnId = 1; turnId <= turns; turnId++) {
    await store.insertChunks(turn('a', turnId));
    await store.insertChunks(turn('b', turnId, 3));
  }
  return store;
}

/** Chunks of save `a` after `turnId` still in the file, and pending chunk rewinds. */
const inFile = (path: string, turnId: number) => rewoundInFile(path, 'chunks', 'chunk_rewinds', turnId);
/** The same for facts. */
const factsInFile = (path: string, turnId: number) => rewoundInFile(path, 'living_facts', 'fact_rewinds', turnId);

/** Every read of the store, as one value: what a caller can see of save `a`. */
async function seen(store: SqliteStore) {
  const scanned: number[] = [];
  await store.scanChunks('a', (row) => scanned.push(row.turnId));
  const page = await store.pageChunks('a', { limit: 100_000 });
  const saves = await store.listSaves();
  return {
    count: await store.countChunks('a'),
    scannedTurns: [...new Set(scanned)],
    pagedTurns: [...new Set(page.chunks.map((chunk) => chunk.turnId))],
    turns: (await store.listTurns('a')).map((summary) => summary.turnId),
    listed: (await store.listChunks('a', { fromTurnId: 2 })).length,
    byId: (await store.getChunks(['a-1-0', 'a-4-0', 'a-5-7'])).map((chunk) => chunk.id),
    saves: saves.map((save) => [save.saveId, save.chunks, save.maxTurnId]),
  };
}

const afterRewindTo3 = {
  count: 3 * PER_TURN,
  scannedTurns: [1, 2, 3],
  pagedTurns: [1, 2, 3],
  turns: [1, 2, 3],
  listed: 2 * PER_TURN,
  byId: ['a-1-0'],
  saves: [['a', 3 * PER_TURN, 3], ['b', 18, 6]],
};

describe('SQLite rewind with a background purge', () => {
  it('hides the rewound chunks from every read at once, then deletes them in batches', async () => {
    const path = join(dir, 'purge.db');
    const store = await filled(path, 6);
    const { removed } = await store.rewind('a', 3);
    expect(removed.chunks).toBe(3 * PER_TURN);
    expect(3 * PER_TURN).toBeGreaterThan(PURGE_BATCH);
    expect(await seen(store)).toEqual(afterRewindTo3);
    await vi.waitFor(() => expect(inFile(path, 3)).toEqual({ rows: 0, rewinds: 0 }), { timeout: 30_000, interval: 20 });
    expect(await seen(store)).toEqual(afterRewindTo3);
    expect(await store.countChunks('b')).toBe(18);
    await store.close();
  });

  it('goes on purging when the file is opened again, and lets a write use a hidden id again', async () => {
    const path = join(dir, 'resume.db');
    const first = await filled(path, 6);
    await first.rewind('a', 3);
    // Closed before the purge's first step (a timer): the file still holds the rows, hidden by the rewind's record.
    await first.close();
    expect(inFile(path, 3)).toEqual({ rows: 3 * PER_TURN, rewinds: 1 });

    const second = openSqliteStore({ path, durability: 'normal' });
    expect(await seen(second)).toEqual(afterRewindTo3);
    const again = turn('a', 4, 2);
    await second.insertChunks(again);
    expect((await second.getChunks(['a-4-0', 'a-4-1', 'a-4-2'])).map((chunk) => chunk.id)).toEqual(['a-4-0', 'a-4-1']);
    await vi.waitFor(() => expect(inFile(path, 3)).toEqual({ rows: 2, rewinds: 0 }), { timeout: 30_000, interval: 20 });
    expect(await second.countChunks('a')).toBe(3 * PER_TURN + 2);
    await second.close();
  });

  it('survives SIGKILL between purge steps: the file checks clean, reads still hide the rest, the purge finishes', async () => {
    const path = join(dir, 'killed.db');
    const store = await filled(path, 10);
    // Facts too: the purge empties the chunks first, so the kill leaves every hidden fact in the file.
    for (let turnId = 1; turnId <= 10; turnId++) await store.living.insertFacts('a', turnId, [{ statement: `A fact of turn ${turnId}.` }, { statement: `Another fact of turn ${turnId}.` }]);
    await store.close();
    const left = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'rewind-purge-child.ts'), path, '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let stderr = '';
      child.stdout.on('data', (data: Buffer) => { output += data.toString(); });
      child.stderr.on('data', (data: Buffer) => { stderr += data.toString(); });
      child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(Number(output.trim())) : reject(new Error(`child ended without being killed: ${stderr}`))));
    });
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(8 * PER_TURN);
    expect(inFile(path, 2)).toEqual({ rows: left, rewinds: 1 });
    expect(factsInFile(path, 2)).toEqual({ rows: 16, rewinds: 1 });
    const reopened = openSqliteStore({ path, durability: 'normal' });
    expect(reopened.integrityCheck()).toBe('ok');
    expect(await reopened.countChunks('a')).toBe(2 * PER_TURN);
    expect((await reopened.listTurns('a')).map((summary) => summary.turnId)).toEqual([1, 2]);
    expect(await reopened.living.countFacts('a')).toBe(4);
    await vi.waitFor(() => expect(inFile(path, 2)).toEqual({ rows: 0, rewinds: 0 }), { timeout: 30_000, interval: 20 });
    await vi.waitFor(() => expect(factsInFile(path, 2)).toEqual({ rows: 0, rewinds: 0 }), { timeout: 30_000, interval: 20 });
    expect(await reopened.countChunks('a')).toBe(2 * PER_TURN);
    expect(await reopened.living.countFacts('a')).toBe(4);
    await reopened.close();
  });

  it('keeps turns written after a rewind through later rewinds, each hiding only what it removed', async () => {
    const store = await filled(join(dir, 'layers.db'), 6);
    await store.rewind('a', 3);
    await store.insertChunks(turn('a', 5, 4).map((chunk) => ({ ...chunk, id: `new-${chunk.id}` })));
    expect((await store.rewind('a', 4)).removed.chunks).toBe(4);
    expect(await store.countChunks('a')).toBe(3 * PER_TURN);
    await store.insertChunks(turn('a', 6, 5).map((chunk) => ({ ...chunk, id: `newer-${chunk.id}` })));
    expect((await store.rewind('a', 2)).removed.chunks).toBe(PER_TURN + 5);
    expect((await store.listTurns('a')).map((summary) => [summary.turnId, summary.chunks])).toEqual([[1, PER_TURN], [2, PER_TURN]]);
    const fork = await store.fork('a', 'a-copy', 9);
    expect(fork.chunks).toBe(2 * PER_TURN);
    await store.close();
  });

  it('opens read-only a file whose schema predates rewind records', async () => {
    const path = join(dir, 'old-schema.db');
    const store = await filled(path, 2);
    await store.close();
    const raw = new Database(path);
    raw.exec("DROP TABLE chunk_rewinds; DELETE FROM schema_migrations WHERE id = 'chunks-002'");
    raw.close();
    const reader = openSqliteStore({ path, readonly: true });
    expect(await reader.countChunks('a')).toBe(2 * PER_TURN);
    await reader.close();
  });
});
