// Persisted indexes: a save reopens from its snapshot with the rankings of a fresh build; a stale, foreign, corrupt or half-written one is never used.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../src/core/logger.js';
import type { MetadataWhere } from '../src/core/types.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo, OpenMemoryOptions } from '../src/open-memory.js';
import type { Store } from '../src/seams/store.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';
import { postgresTargets } from './postgres-targets.js';

const dir = tempDir();
const WORDS = ['lantern', 'river', 'gate', 'smith', 'oath', 'iron', 'key', 'well', 'tower', 'crow', 'silver', 'debt', 'storm', 'harbour', 'bell', 'ferry', 'Kaël', 'Mira', 'ash', 'moon'];
const QUERIES = ['who owes silver to the smith', 'the iron key under the well', 'Kaël rings the harbour bell', 'storm over the ferry', 'crow on the tower at moonrise'];

function text(seed: number): string {
  const words: string[] = [];
  let state = seed * 2654435761;
  for (let index = 0; index < 12; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    words.push(WORDS[state % WORDS.length] as string);
  }
  return `${words.join(' ')}.`;
}

/** A store whose chunk scans are counted: a save opened from its snapshot scans nothing. */
function countingStore(path: string): { store: Store; scans: () => number } {
  const store = openSqliteStore({ path });
  let scans = 0;
  const scanChunks = store.scanChunks.bind(store);
  store.scanChunks = (saveId, visit, options) => {
    scans++;
    return scanChunks(saveId, visit, options);
  };
  return { store, scans: () => scans };
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line) => lines.push(line), warn: (line) => lines.push(`warn: ${line}`) };
}

async function fill(memory: Mnemo, saveId: string, turns: number, from = 0): Promise<void> {
  for (let turn = from; turn < from + turns; turn++) {
    await memory.addMany(Array.from({ length: 4 }, (_, part) => ({ saveId, turnId: turn, text: text(turn * 4 + part), metadata: { part, ...(turn % 3 === 0 ? { speaker: ['Mira', 'Kaël'][turn % 2] as string } : {}) } })));
  }
}

/** Every query's hits as ids and exact scores, in every mode. */
async function rankings(memory: Mnemo, saveId: string): Promise<string> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    for (const weights of [undefined, { lexical: 0 }, { semantic: 0 }]) {
      const hits = await memory.query(saveId, query, { k: 8, weights });
      out.push(hits.map((hit) => [hit.id, hit.score]));
    }
    const windowed = await memory.query(saveId, query, { k: 5, maxTurnId: 20, excludeChunkType: 'lore' });
    out.push(windowed.map((hit) => [hit.id, hit.score]));
    for (const where of [{ speaker: 'Mira' }, { part: { in: [1, 3] }, speaker: { exists: false } }] as MetadataWhere[]) {
      const filtered = await memory.query(saveId, query, { k: 5, where });
      out.push(filtered.map((hit) => [hit.id, hit.score]));
    }
  }
  return JSON.stringify(out);
}

async function open(path: string, options: OpenMemoryOptions = {}): Promise<{ memory: Mnemo; scans: () => number; store: Store }> {
  const { store, scans } = countingStore(path);
  const memory = await openMemory({ store, embedder: hashingEmbedder(), embeddingCache: false, ...options });
  return { memory, scans, store };
}

/** Rankings from an index built from the store alone (persistence off). */
async function freshRankings(path: string, saveId: string): Promise<string> {
  const { memory } = await open(path, { indexDirectory: false });
  const result = await rankings(memory, saveId);
  await memory.close();
  return result;
}

/** How many files under `directory` this process holds open (Linux's /proc; null where there is none). */
const openFiles: ((directory: string) => number) | null = existsSync('/proc/self/fd')
  ? (directory) =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(join('/proc/self/fd', fd)).startsWith(`${directory}/`);
        } catch {
          return false; // closed between the listing and the read
        }
      }).length
  : null;

function indexFiles(path: string): string[] {
  return readdirSync(`${path}.index`).filter((name) => name.endsWith('.index')).map((name) => join(`${path}.index`, name));
}

/** A save of 30 turns at `path` with its index persisted: the index file and its bytes. */
async function persistedSave(path: string): Promise<{ file: string; good: Buffer }> {
  const seed = await open(path);
  await fill(seed.memory, 'run', 30);
  await seed.memory.warm('run');
  await seed.memory.close();
  const [file] = indexFiles(path);
  return { file: file as string, good: readFileSync(file as string) };
}

describe('persisted index', () => {
  it('reopens a save from its snapshot, without a scan, with the rankings of a fresh build', async () => {
    const path = join(dir, 'reopen.db');
    const first = await open(path);
    await fill(first.memory, 'run', 60);
    const before = await rankings(first.memory, 'run');
    await first.memory.close();
    expect(indexFiles(path)).toHaveLength(1);

    const second = await open(path);
    expect(await rankings(second.memory, 'run')).toBe(before);
    expect(second.scans()).toBe(0);
    await second.memory.close();
    expect(await freshRankings(path, 'run')).toBe(before);
  });

  it('a reopened index takes writes before its first filtered query, with the hits of a fresh build', async () => {
    const path = join(dir, 'reopen-write.db');
    const first = await open(path);
    await fill(first.memory, 'run', 30);
    await first.memory.warm('run');
    await first.memory.close();

    const logger = recordingLogger();
    const second = await open(path, { logger });
    // After one unfiltered query (which opens the index), a write with fields it holds and fields it does not.
    await second.memory.query('run', 'the iron key', { k: 3 });
    await fill(second.memory, 'run', 6, 30);
    await second.memory.addMany([{ saveId: 'run', turnId: 36, text: 'Mira hides the silver key', metadata: { speaker: 'Mira', mood: 'wary' } }]);
    const reopened = await rankings(second.memory, 'run');
    const wary = await second.memory.query('run', 'silver key', { k: 3, where: { mood: 'wary' } });
    expect(logger.lines).toEqual([]);
    expect(second.scans()).toBe(0);
    await second.memory.close();
    expect(wary.map((hit) => hit.text)).toEqual(['Mira hides the silver key']);
    // The same hits in the same order (the int8 copy written to stays centred where it was: scores differ in the last digits).
    const idsOf = (ranked: string): string[][] => (JSON.parse(ranked) as [string, number][][]).map((hits) => hits.map(([id]) => id));
    expect(idsOf(reopened)).toEqual(idsOf(await freshRankings(path, 'run')));
  });

  it('keeps the snapshot in step with writes, rewinds, turn updates and deletes of chunks made through the process', async () => {
    const path = join(dir, 'writes.db');
    const first = await open(path);
    await fill(first.memory, 'run', 40);
    await first.memory.warm('run');
    await fill(first.memory, 'run', 10, 40);
    await first.memory.rewind('run', 44);
    await first.memory.updateTurn({ saveId: 'run', turnId: 3, text: ['the smith forgives the silver debt', 'Mira keeps the iron key'] });
    await first.memory.addMany([{ saveId: 'run', turnId: 44, text: 'the crow keeps the silver key', entryId: 'crow' }, { saveId: 'run', turnId: 44, text: 'the crow rings the bell', entryId: 'crow' }]);
    const doomed = (await first.memory.listChunks('run', { fromTurnId: 10, toTurnId: 12 })).map((chunk) => chunk.id);
    expect(await first.memory.deleteChunks({ saveId: 'run', ids: doomed })).toEqual({ chunks: 12 });
    expect(await first.memory.deleteChunks({ saveId: 'run', entryId: 'crow' })).toEqual({ chunks: 2 });
    await first.memory.close();

    const second = await open(path);
    const reopened = await rankings(second.memory, 'run');
    expect(second.scans()).toBe(0);
    await second.memory.close();
    expect(reopened).toBe(await freshRankings(path, 'run'));
  });

  it('rebuilds from the store, saying so once, when the snapshot is stale, corrupt, truncated or foreign', async () => {
    const path = join(dir, 'reject.db');
    const { file, good } = await persistedSave(path);

    const cases: [string, (bytes: Buffer) => Buffer, RegExp][] = [
      ['corrupt header', (bytes) => { const copy = Buffer.from(bytes); copy[40] = (copy[40] as number) ^ 0xff; return copy; }, /checksum/],
      ['older layout', (bytes) => { const copy = Buffer.from(bytes); copy.write('MNEMOIX2', 0, 'latin1'); return copy; }, /stale/],
      ['the layout before the vectors stayed in the store', (bytes) => { const copy = Buffer.from(bytes); copy.write('MNEMOIX4', 0, 'latin1'); return copy; }, /stale \(an older layout, MNEMOIX4\)/],
      ['the layout before the term ids were narrowed', (bytes) => { const copy = Buffer.from(bytes); copy.write('MNEMOIX5', 0, 'latin1'); return copy; }, /stale \(an older layout, MNEMOIX5\)/],
      ['the layout before the posting slots were gaps', (bytes) => { const copy = Buffer.from(bytes); copy.write('MNEMOIX6', 0, 'latin1'); return copy; }, /stale \(an older layout, MNEMOIX6\)/],
      ['truncated', (bytes) => bytes.subarray(0, Math.floor(bytes.length / 2)), /truncated/],
      ['not a snapshot', () => Buffer.from('hello'), /not an index snapshot/],
    ];
    for (const [name, damage, reason] of cases) {
      writeFileSync(file, damage(good));
      const logger = recordingLogger();
      const opened = await open(path, { logger });
      const ranked = await rankings(opened.memory, 'run');
      await rankings(opened.memory, 'run');
      expect(opened.scans(), name).toBe(1);
      expect(logger.lines.filter((line) => line.includes('persisted index')), name).toHaveLength(1);
      expect(logger.lines[0], name).toMatch(reason);
      await opened.memory.close();
      expect(ranked, name).toBe(await freshRankings(path, 'run'));
    }

    // Stale: another writer (persistence off) moved the save on.
    writeFileSync(file, good);
    const other = await open(path, { indexDirectory: false });
    await fill(other.memory, 'run', 2, 30);
    await other.memory.close();
    const logger = recordingLogger();
    const stale = await open(path, { logger });
    const ranked = await rankings(stale.memory, 'run');
    expect(stale.scans()).toBe(1);
    expect(logger.lines.join('\n')).toMatch(/stale/);
    await stale.memory.close();
    expect(ranked).toBe(await freshRankings(path, 'run'));

    // Foreign: another embedder made the vectors' identity differ.
    const foreignLogger = recordingLogger();
    const foreign = await open(path, { logger: foreignLogger, embedder: null });
    await foreign.memory.query('run', 'silver');
    expect(foreign.scans()).toBe(1);
    expect(foreignLogger.lines.join('\n')).toMatch(/another store, embedder, analyzer or save/);
    await foreign.memory.close();
  });

  it('keeps the float32 vectors in SQLite alone: the file holds none, a query reads the rows it rescores; a store that lost them is rebuilt from, said once', async () => {
    const path = join(dir, 'vectors-in-store.db');
    const { file, good } = await persistedSave(path);
    const headerLength = good.readUInt32LE(8);
    const sections = Object.keys((JSON.parse(good.toString('utf8', 24, 24 + headerLength)) as { sections: Record<string, unknown> }).sections);
    expect(sections).not.toContain('vectors.data');
    expect(sections).toContain('vectors.present');
    expect(sections).toContain('contexts.bytes');
    const before = await freshRankings(path, 'run');
    const reopened = await open(path);
    expect(await rankings(reopened.memory, 'run')).toBe(before);
    expect(reopened.scans()).toBe(0);
    await reopened.memory.close();
    // Another tool clears the vectors without moving the save's version on: the first query that rescores finds
    // them gone, and the save is answered from an index rebuilt from the store.
    writeFileSync(file, good);
    const raw = new Database(path);
    raw.exec('UPDATE chunks SET embedding = NULL');
    raw.close();
    const logger = recordingLogger();
    const lost = await open(path, { logger });
    const ranked = await rankings(lost.memory, 'run');
    expect(lost.scans()).toBe(1);
    const said = logger.lines.filter((line) => line.includes('persisted index'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/no longer in the store/);
    await lost.memory.close();
    expect(ranked).toBe(await freshRankings(path, 'run'));
  });

  it('never answers from a corrupt section, whichever it is: found at open or at first use, the save is rebuilt and said once', async () => {
    const pristine = join(dir, 'sections.db');
    const { file, good } = await persistedSave(pristine);
    const before = await freshRankings(pristine, 'run');
    // The section table: each section's offset (from the body, after the header) and length in bytes.
    const headerLength = good.readUInt32LE(8);
    const bodyStart = Math.ceil((24 + headerLength) / 8) * 8;
    const sections = (JSON.parse(good.toString('utf8', 24, 24 + headerLength)) as { sections: Record<string, [string, number, number]> }).sections;
    const itemBytes: Record<string, number> = { i32: 4, u8: 1, u16: 2, f32: 4, f64: 8, i8: 1 };
    const damaged = Object.entries(sections).filter(([, [kind, , length]]) => length * (itemBytes[kind] as number) > 0);
    expect(damaged.length).toBeGreaterThan(30);
    for (const [name, [kind, offset, length]] of damaged) {
      const path = join(dir, `sections-${name}.db`);
      copyFileSync(pristine, path);
      mkdirSync(`${path}.index`, { recursive: true });
      const copy = Buffer.from(good);
      const at = bodyStart + offset + Math.floor((length * (itemBytes[kind] as number)) / 2);
      copy[at] = (copy[at] as number) ^ 0x55;
      writeFileSync(join(`${path}.index`, basename(file)), copy);
      const logger = recordingLogger();
      const opened = await open(path, { logger });
      expect(await rankings(opened.memory, 'run'), name).toBe(before);
      // A write reads what is left of the snapshot (the index changes in place), and persisting reads every section.
      await fill(opened.memory, 'run', 1, 30);
      await opened.memory.narrative.flush();
      const after = await rankings(opened.memory, 'run');
      await opened.memory.close();
      const said = logger.lines.filter((line) => line.includes('persisted index'));
      expect(said, name).toHaveLength(1);
      expect(said[0], name).toMatch(/checksum mismatch/);
      expect(after, name).toBe(await freshRankings(path, 'run'));
    }
  }, 240_000);

  it('never uses the snapshot of a save deleted and written again to the same version', async () => {
    const path = join(dir, 'recreated.db');
    const first = await open(path);
    await fill(first.memory, 'run', 10);
    await first.memory.warm('run');
    await first.memory.close();
    const db = new Database(path);
    db.exec("DELETE FROM chunks WHERE save_id = 'run'; DELETE FROM saves WHERE save_id = 'run';");
    db.close();
    const again = await open(path, { indexDirectory: false });
    for (let turn = 0; turn < 10; turn++) await again.memory.addMany(Array.from({ length: 4 }, (_, part) => ({ saveId: 'run', turnId: turn, text: text(1000 + turn * 4 + part) })));
    await again.memory.close();
    const logger = recordingLogger();
    const reopened = await open(path, { logger });
    const ranked = await rankings(reopened.memory, 'run');
    expect(reopened.scans()).toBe(1);
    expect(logger.lines.join('\n')).toMatch(/no longer in the store/);
    await reopened.memory.close();
    expect(ranked).toBe(await freshRankings(path, 'run'));
  });

  it('forgets the persisted index with the save', async () => {
    const path = join(dir, 'forget.db');
    const first = await open(path);
    await fill(first.memory, 'run', 5);
    await first.memory.warm('run');
    expect(indexFiles(path)).toHaveLength(1);
    first.memory.narrative.forget('run');
    await first.memory.narrative.flush();
    expect(indexFiles(path)).toHaveLength(0);
    await first.memory.close();
  });

  it('holds the indexes of many saves within a memory budget, evicted saves reopening from their snapshots', async () => {
    const path = join(dir, 'budget.db');
    const saves = Array.from({ length: 8 }, (_, index) => `save-${index}`);
    const first = await open(path);
    for (const saveId of saves) await fill(first.memory, saveId, 12);
    const expected = new Map<string, string>();
    for (const saveId of saves) expected.set(saveId, await rankings(first.memory, saveId));
    const oneIndex = first.memory.narrative.heldIndexes.bytes / saves.length;
    await first.memory.close();

    const budget = Math.ceil(oneIndex * 2.5);
    const second = await open(path, { indexMemoryBudget: budget });
    for (const round of [0, 1]) {
      for (const saveId of round === 0 ? saves : [...saves].reverse()) {
        expect(await rankings(second.memory, saveId)).toBe(expected.get(saveId));
        expect(second.memory.narrative.holdsIndex(saveId)).toBe(true);
        const held = second.memory.narrative.heldIndexes;
        expect(saves.filter((other) => second.memory.narrative.holdsIndex(other))).toHaveLength(held.indexes);
        expect(held.indexes).toBeLessThanOrEqual(2);
        expect(held.bytes).toBeLessThanOrEqual(budget);
      }
    }
    expect(second.scans()).toBe(0);
    await second.memory.close();
  });

  it.skipIf(openFiles === null)('releases the file of an evicted index at once, not when it is garbage-collected', async () => {
    const path = join(dir, 'descriptors.db');
    const saves = Array.from({ length: 8 }, (_, index) => `save-${index}`);
    const first = await open(path);
    for (const saveId of saves) await fill(first.memory, saveId, 12);
    for (const saveId of saves) await first.memory.warm(saveId);
    const oneIndex = first.memory.narrative.heldIndexes.bytes / saves.length;
    await first.memory.close();

    const second = await open(path, { indexMemoryBudget: Math.ceil(oneIndex * 2.5) });
    const count = openFiles as (directory: string) => number;
    for (const saveId of [...saves, ...saves]) {
      // A lexical query reads little of the file: the rest (the vectors among it) stays there, the file open.
      const hits = await second.memory.query(saveId, 'lantern', { k: 1, weights: { semantic: 0 } });
      expect(hits).toHaveLength(1);
      const held = second.memory.narrative.heldIndexes.indexes;
      expect(held).toBeLessThanOrEqual(2);
      expect(count(`${path}.index`)).toBeGreaterThan(0);
      expect(count(`${path}.index`)).toBeLessThanOrEqual(held);
    }
    expect(second.scans()).toBe(0);
    await second.memory.close();
    expect(count(`${path}.index`)).toBe(0);
  });
});

describe('persisted index crash safety', () => {
  it('after SIGKILL while the snapshot is written, a save opens with the rankings of a fresh build', async () => {
    const path = join(dir, 'killed.db');
    const seed = await open(path, { indexDirectory: false });
    await fill(seed.memory, 'run', 80);
    await seed.memory.close();
    for (const afterWrites of [1, 3, 6]) {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'snapshot-writer-child.ts'), path], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        let written = 0;
        let killing = false;
        child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
        child.stdout.on('data', (data: Buffer) => {
          written += data.toString().split('\n').length - 1;
          // Killed while a later snapshot is being written (the child writes them back to back).
          if (written >= afterWrites && !killing) {
            killing = true;
            setTimeout(() => child.kill('SIGKILL'), afterWrites * 7);
          }
        });
        child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child ended without being killed: ${stderr}`))));
      });
      const reopened = await open(path);
      const ranked = await rankings(reopened.memory, 'run');
      await reopened.memory.close();
      expect(ranked).toBe(await freshRankings(path, 'run'));
    }
  }, 180_000);
});

describe.each(postgresTargets())('persisted index on PostgreSQL ($name), in a cache directory', (target) => {
  it.skipIf(target.skip !== null)('reopens a save from the directory without a scan, with the rankings of a fresh build; another schema never uses it', async () => {
    const schema = target.newSchema();
    const cache = join(dir, `pg-${schema}`);
    const openPg = async (options: OpenMemoryOptions & { schema?: string }) => {
      const store = await target.open({ schema: options.schema ?? schema });
      const vectorSearch = store.vectorSearch;
      let scans = 0;
      if (vectorSearch !== undefined) {
        const scanChunks = vectorSearch.scanChunks.bind(vectorSearch);
        vectorSearch.scanChunks = (...args) => {
          scans++;
          return scanChunks(...args);
        };
      }
      const memory = await openMemory({ store, embedder: hashingEmbedder(), embeddingCache: false, indexDirectory: cache, ...options });
      return { memory, scans: () => scans, close: () => memory.close() };
    };
    const first = await openPg({});
    await fill(first.memory, 'run', 20);
    const before = await rankings(first.memory, 'run');
    await first.close();

    const second = await openPg({});
    expect(await rankings(second.memory, 'run')).toBe(before);
    expect(second.scans()).toBe(0);
    await second.close();

    const fresh = await openPg({ indexDirectory: false });
    expect(await rankings(fresh.memory, 'run')).toBe(before);
    await fresh.close();

    // Another database (schema) with a save of the same name and version: its instance id differs.
    const otherSchema = target.newSchema();
    const other = await openPg({ schema: otherSchema, indexDirectory: false });
    await fill(other.memory, 'run', 20, 100);
    await other.close();
    const logger = recordingLogger();
    const foreign = await openPg({ schema: otherSchema, logger });
    await foreign.memory.query('run', 'silver');
    expect(foreign.scans()).toBe(1);
    expect(logger.lines.join('\n')).toMatch(/another store, embedder, analyzer or save/);
    await foreign.close();
  }, 120_000);
});
