// Persisting an index: the same bytes as written in one piece (a fixed corpus hashes to known bytes), writes held back meanwhile.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { CorpusIndex, IndexDocument } from '../src/retrieval/corpus-index.js';
import { IndexCache } from '../src/retrieval/index-cache.js';
import type { IndexCacheOptions } from '../src/retrieval/index-cache.js';
import { snapshotDirectory } from '../src/retrieval/snapshot-directory.js';
import { SnapshotWriter } from '../src/retrieval/snapshot-format.js';
import { tempDir } from './helpers.js';

const WORDS = ['lantern', 'river', 'gate', 'smith', 'oath', 'iron', 'key', 'well', 'tower', 'crow', 'silver', 'debt', 'storm', 'Kaël', 'Mira', 'ash'];

/** A deterministic document: words, a vector, a position, a kind, labels, fields and context from `seed`. */
function documentOf(seed: number): IndexDocument {
  let state = (seed + 1) * 2654435761;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const words = Array.from({ length: 8 + (seed % 9) }, () => WORDS[next() % WORDS.length] as string);
  const embedding = seed % 11 === 5 ? null : Float32Array.from({ length: 16 }, () => (next() % 2001) / 1000 - 1);
  return {
    id: `chunk-${seed}`,
    text: words.join(' '),
    embedding,
    position: Math.floor(seed / 3),
    kind: seed % 7 === 0 ? 'lore' : 'narrative',
    labels: seed % 5 === 0 ? ['north', `tag-${seed % 3}`] : [],
    fields: { part: seed % 4, ...(seed % 6 === 0 ? { speaker: 'Mira', flags: ['a', seed % 2 === 0] } : {}) },
    speaker: seed % 3 === 0 ? 'Mira' : 'Kaël',
    scene: `scene-${Math.floor(seed / 10)}`,
    day: 19_500 + Math.floor(seed / 20),
  };
}

/** A cache over `count` documents persisted in `directory` with a fixed identity (so the bytes are reproducible). */
function cacheOver(directory: string, count: number, options: IndexCacheOptions): { cache: IndexCache; directory: string; documents: IndexDocument[]; version: { value: number } } {
  const documents = Array.from({ length: count }, (_, seed) => documentOf(seed));
  const version = { value: 1 };
  const source = {
    scan: async (_key: string, visit: (document: IndexDocument) => void) => {
      documents.forEach(visit);
      return version.value;
    },
    version: async () => version.value,
  };
  const persistence = { snapshots: snapshotDirectory(directory), identity: async () => 'fixed-identity', verify: async () => true, delayMs: 60_000 };
  return { cache: new IndexCache(source, { ...options, persistence }), directory, documents, version };
}

/** The store's vectors of `documentOf`'s documents, by id (`CorpusIndexOptions.vectorRows`). */
const storeRows = (ids: readonly string[]): (Float32Array | null)[] => ids.map((id) => documentOf(Number(id.slice('chunk-'.length))).embedding);

function fileHash(directory: string): string {
  const [name] = readdirSync(directory).filter((file) => file.endsWith('.index'));
  return createHash('sha256').update(readFileSync(join(directory, name as string))).digest('hex');
}

describe('persisting an index', () => {
  // The hashes of these corpora's snapshots (layout MNEMOIX7: u8 frequencies, posting slots as gaps), each also checked against the index written in one
  // synchronous piece: slicing changes no byte.
  it.each([
    ['neighbour context', { neighbourWeight: 0.5, contextSource: 'roles:speaker,scene,day' }, 'b4c3c6737bc670999338cfac35dc0aed0cd8866dedffa233498db5c56af67a82', '19f2dea7ccaea77e8fbeadd9ebd9e1bdc2f81521c7e42a05b20787087ac1cab5'],
    ['own vectors', { neighbourWeight: 0 }, '88f8c9b2b2681ef83ce8ddca91fd08a33aaa1c84710a7363e361fa9e553e30f1', '685fe9b6232faa869c6e4d48c28db44bb3f7b7e4440d9a9eedbcc17d7a7180a0'],
    // The store holds the vectors (read back by id): the file leaves them out, and the index built keeps none.
    ['neighbour context, vectors in the store', { neighbourWeight: 0.5, contextSource: 'roles:speaker,scene,day', vectorRows: storeRows }, 'b9b92e7ccda51caec826191bd627aed615f525b3a12a7667c2f3fe57a5aa8a6f', 'b25791568bcd20853a5b6b5be5b7e5399162375515ea66d2da2a486f5ad9e2e2'],
    ['own vectors, vectors in the store', { neighbourWeight: 0, vectorRows: storeRows }, 'be1940e0753c081d5ebe98cfe1ce48b29ae9ab7593063d2f9a9e038ca46ac7fe', '730158bde74626770b6485611980210f4b33ca1ed60bc7fc9d64e36f9051cffe'],
  ] as const)('writes the bytes it wrote before it was sliced (%s), fresh and after writes in place', async (_name, options, built, drifted) => {
    const directory = join(tempDir(), 'index');
    const { cache, version } = cacheOver(directory, 1500, options);
    const index = await cache.get('save');
    await cache.flush();
    expect(fileHash(directory)).toBe(built);
    const writer = new SnapshotWriter();
    const scalars = index.writeState(writer);
    const onePiece = writer.finish({ key: 'save', identity: 'fixed-identity', configuration: index.configuration, version: 1, ...scalars });
    expect(createHash('sha256').update(onePiece).digest('hex')).toBe(built);
    // Writes in place: documents removed and added, so the persisted copy is the compacted one.
    await cache.afterWrite('save', { version: 2, previousVersion: 1, count: 7 }, (held) => {
      held.remove(['chunk-3', 'chunk-10', 'chunk-11', 'chunk-700', 'chunk-1499']);
      held.add([documentOf(5000), documentOf(5001)]);
    });
    version.value = 2;
    await cache.flush();
    expect(fileHash(directory)).toBe(drifted);
  });

  it('builds the index of a corpus written from version 0 as it is written, without reading it back, and persists the bytes a build from the store writes', async () => {
    const directory = join(tempDir(), 'index');
    const { cache, documents, version } = cacheOver(directory, 1500, { neighbourWeight: 0.5, contextSource: 'roles:speaker,scene,day' });
    let scans = 0;
    const scanning = cache as unknown as { source: { scan: (...args: unknown[]) => Promise<number> } };
    const scan = scanning.source.scan;
    scanning.source.scan = (...args) => (scans++, scan(...args));
    // Three batches, as a bulk load writes them: versions 0 -> 1 -> 2 -> 3.
    for (let batch = 0; batch < 3; batch++) {
      await cache.afterWrite('save', { previousVersion: batch, version: batch + 1, count: 500 }, (held) => held.addSliced(documents.slice(batch * 500, (batch + 1) * 500)));
    }
    version.value = 3;
    expect(cache.holds('save')).toBe(true);
    await cache.flush();
    expect(scans).toBe(0);
    const rebuilt = join(tempDir(), 'index');
    const fromStore = cacheOver(rebuilt, 1500, { neighbourWeight: 0.5, contextSource: 'roles:speaker,scene,day' });
    fromStore.version.value = 3;
    await fromStore.cache.get('save');
    await fromStore.cache.flush();
    expect(fileHash(directory)).toBe(fileHash(rebuilt));
    // A write that finds the corpus written before (version 1 here) and no index held starts none: it is read when asked.
    const other = cacheOver(join(tempDir(), 'index'), 10, {});
    await other.cache.afterWrite('save', { previousVersion: 1, version: 2, count: 1 }, (held) => held.add([documentOf(10)]));
    expect(other.cache.holds('save')).toBe(false);
    // One started by the first write and not yet asked for is dropped by a write that removes a document (its slot
    // would stay, which a build from the store does not keep): it is then built from the store when asked.
    const removing = cacheOver(join(tempDir(), 'index'), 10, {});
    await removing.cache.afterWrite('save', { previousVersion: 0, version: 1, count: 2 }, (held) => held.add([documentOf(1), documentOf(2)]));
    expect(removing.cache.holds('save')).toBe(true);
    await removing.cache.afterWrite('save', { previousVersion: 1, version: 2, count: 1 }, (held) => void held.remove(['chunk-1']));
    expect(removing.cache.holds('save')).toBe(false);
  });

  it.each([
    ['neighbour context', { neighbourWeight: 0.5, contextSource: 'roles:speaker,scene,day' }],
    ['own vectors', { neighbourWeight: 0 }],
    ['neighbour context, vectors in the store', { neighbourWeight: 0.5, contextSource: 'roles:speaker,scene,day', vectorRows: storeRows }],
    ['own vectors, vectors in the store', { neighbourWeight: 0, vectorRows: storeRows }],
  ] as const)('persisted during a bulk load and again at its end (%s), writes the bytes a build from the store writes, holding no int8 copy between, or one made again in place once queried (no second index)', async (_name, options) => {
    const rebuilt = join(tempDir(), 'index');
    const fromStore = cacheOver(rebuilt, 1500, options);
    fromStore.version.value = 3;
    const fresh = await fromStore.cache.get('save');
    await fromStore.cache.flush();
    const query = fromStore.documents[700]?.embedding as Float32Array;
    for (const queried of [false, true]) {
      const directory = join(tempDir(), 'index');
      const { cache, documents, version } = cacheOver(directory, 1500, options);
      let held: CorpusIndex | undefined;
      const load = async (batch: number) => {
        await cache.afterWrite('save', { previousVersion: batch, version: batch + 1, count: 500 }, (index) => ((held = index), index.addSliced(documents.slice(batch * 500, (batch + 1) * 500))));
        version.value = batch + 1;
      };
      await load(0);
      // A persist between batches (as maxDelayMs makes one in a long load) makes the int8 copy of the first batch
      // for the file; nobody asked for the index, so it does not keep it (later batches do not drift from it).
      await cache.flush();
      const first = held as CorpusIndex;
      expect(first.prepared).toBe(false);
      if (queried) {
        expect(await cache.get('save')).toBe(first);
        expect(first.semantic(query, 10).length).toBe(10);
        expect(first.prepared).toBe(true);
      }
      await load(1);
      await load(2);
      expect(first.drifted).toBe(queried);
      await cache.flush();
      expect(await cache.get('save')).toBe(first);
      expect(first.drifted).toBe(false);
      expect(fileHash(directory)).toBe(fileHash(rebuilt));
      expect(first.semantic(query, 10)).toEqual(fresh.semantic(query, 10));
      // Its postings lists, let go after the persist midway, are made again from the documents' terms.
      const terms = first.analyze(documents[700]?.text as string).slice(0, 3);
      expect(first.lexical(terms, 10)).toEqual(fresh.lexical(terms, 10));
    }
  });

  it('persists once after writes that keep coming (each puts the persist off), but no later than maxDelayMs after the first', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const documents = Array.from({ length: 40 }, (_, seed) => documentOf(seed));
      const source = { scan: async () => 0, version: async () => 0 };
      /**
       * Eight writes 50 ms apart (of the fake clock) into a cache persisting with `maxDelayMs`: the persists written
       * when each write applies (a write waits for a persist under way), then 250 ms after the last.
       */
      const persistsAfterEachWrite = async (maxDelayMs: number): Promise<number[]> => {
        let persists = 0;
        const snapshots = { location: 'memory', open: () => null, write: async () => void persists++, remove: async () => {} };
        const cache = new IndexCache(source, { persistence: { snapshots, identity: async () => 'fixed-identity', verify: async () => true, delayMs: 200, maxDelayMs } });
        const seen: number[] = [];
        for (let batch = 0; batch < 8; batch++) {
          if (batch > 0) await vi.advanceTimersByTimeAsync(50);
          await cache.afterWrite('save', { previousVersion: batch, version: batch + 1, count: 5 }, (held) => held.add(documents.slice(batch * 5, (batch + 1) * 5)));
          seen.push(persists);
        }
        await vi.advanceTimersByTimeAsync(250);
        await cache.flush();
        seen.push(persists);
        return seen;
      };
      // Each write puts the 200 ms persist off: one persist, 200 ms after the last write.
      expect(await persistsAfterEachWrite(100_000)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1]);
      // Due no later than 120 ms after the first write not persisted: at 120 ms, at 270 ms (150 + 120), at 420 ms.
      expect(await persistsAfterEachWrite(120)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 3]);
      // A write that takes 150 ms between its start (writeStarting) and being applied puts the persist off from its start.
      let persists = 0;
      const snapshots = { location: 'memory', open: () => null, write: async () => void persists++, remove: async () => {} };
      const cache = new IndexCache(source, { persistence: { snapshots, identity: async () => 'fixed-identity', verify: async () => true, delayMs: 200 } });
      await cache.afterWrite('save', { previousVersion: 0, version: 1, count: 5 }, (held) => held.add(documents.slice(0, 5)));
      await vi.advanceTimersByTimeAsync(150);
      cache.writeStarting('save');
      await vi.advanceTimersByTimeAsync(150);
      await cache.afterWrite('save', { previousVersion: 1, version: 2, count: 5 }, (held) => held.add(documents.slice(5, 10)));
      expect(persists).toBe(0);
      await vi.advanceTimersByTimeAsync(250);
      await cache.flush();
      expect(persists).toBe(1);
      // A persist falling due while a write is applied (in slices) does not wait for it and then hold the next
      // write: the end of that write puts it off.
      let finishApply!: () => void;
      const gate = new Promise<void>((resolve) => (finishApply = resolve));
      await cache.afterWrite('save', { previousVersion: 2, version: 3, count: 5 }, (held) => held.add(documents.slice(10, 15)));
      await vi.advanceTimersByTimeAsync(100);
      const slow = cache.afterWrite('save', { previousVersion: 3, version: 4, count: 5 }, async (held) => {
        await gate;
        held.add(documents.slice(15, 20));
      });
      // 250 ms after the first write: its persist fell due (at 200 ms) while the slow one was applied.
      await vi.advanceTimersByTimeAsync(150);
      finishApply();
      await slow;
      await vi.advanceTimersByTimeAsync(100);
      expect(persists).toBe(1);
      // 200 ms after the slow write was applied.
      await vi.advanceTimersByTimeAsync(150);
      await cache.flush();
      expect(persists).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives the event loop back while it persists, holds the writes of the key until the file is written, and lets queries finish the int8 copy', async () => {
    const count = 20_000;
    const quiet = cacheOver(join(tempDir(), 'index'), count, { neighbourWeight: 0.5 });
    await quiet.cache.get('save');
    await quiet.cache.flush();
    const directory = join(tempDir(), 'index');
    const { cache, version } = cacheOver(directory, count, { neighbourWeight: 0.5 });
    const index = await cache.get('save');
    let turns = 0;
    let persisted = false;
    const countTurns = (): void => {
      if (persisted) return;
      turns++;
      setImmediate(countTurns);
    };
    setImmediate(countTurns);
    const flushed = cache.flush().then(() => (persisted = true));
    await new Promise((resolve) => setImmediate(resolve));
    // A search while the int8 copy is made aside finishes it at once: the same hits as an index made in one piece.
    const query = documentOf(77).embedding as Float32Array;
    expect(persisted).toBe(false);
    expect(index.semantic(query, 5)).toEqual((await quiet.cache.get('save')).semantic(query, 5));
    // A write of the key waits until the file is written; it then applies in place.
    let fileWhenApplied: string | null = null;
    const write = cache.afterWrite('save', { version: 2, previousVersion: 1, count: 1 }, (held) => {
      fileWhenApplied = fileHash(directory);
      held.add([documentOf(9000)]);
    });
    expect(fileWhenApplied).toBeNull();
    await Promise.all([flushed, write]);
    expect(turns).toBeGreaterThan(3);
    expect(fileWhenApplied).toBe(fileHash(quiet.directory));
    expect(fileHash(directory)).toBe(fileHash(quiet.directory));
    version.value = 2;
    expect((await cache.get('save')).size).toBe(count + 1);
  }, 120_000);
});
