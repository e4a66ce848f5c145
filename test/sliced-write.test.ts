// A write of many long texts gives the event loop back: embedding calls of bounded size, the index updated in slices, no query seeing half a write.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../src/core/limits.js';
import { EMBED_CALL_CHARS, embedInBatches } from '../src/embedders/embed-in-batches.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { CorpusIndex, IndexDocument } from '../src/retrieval/corpus-index.js';
import { IndexCache } from '../src/retrieval/index-cache.js';
import type { Embedder } from '../src/seams/embedder.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { prose } from './worst-requests.js';

/** An embedder that records how many characters each call was given. */
function recordingEmbedder(inner: Embedder): Embedder & { calls: number[] } {
  const calls: number[] = [];
  return { ...inner, calls, embed: async (texts) => (calls.push(texts.reduce((sum, text) => sum + text.length, 0)), inner.embed(texts)) };
}

const document = (id: string, position: number): IndexDocument => ({ id, position, kind: 'narrative', text: `lantern ${id}`, embedding: null });

describe('embedding a write of long texts', () => {
  it('calls the embedder with about one chunk of text at most (a longer text alone), the vectors those of one call', async () => {
    const embedder = recordingEmbedder(hashingEmbedder({ dimensions: 16 }));
    const texts = [...Array.from({ length: 10 }, (_, index) => prose(LIMITS.textChars - 1000, index)), 'the well', 'the gate', prose(LIMITS.textChars, 99)];
    const vectors = await embedInBatches(embedder, texts);
    expect(embedder.calls.length).toBeGreaterThanOrEqual(10);
    for (const characters of embedder.calls) expect(characters).toBeLessThanOrEqual(EMBED_CALL_CHARS);
    expect(embedder.calls.reduce((sum, characters) => sum + characters, 0)).toBe(texts.reduce((sum, text) => sum + text.length, 0));
    expect(vectors).toEqual(await hashingEmbedder({ dimensions: 16 }).embed(texts));
  });

  it('still batches short texts up to the embedder maximum', async () => {
    const embedder = recordingEmbedder({ ...hashingEmbedder({ dimensions: 16 }), maxBatchSize: 4 });
    await embedInBatches(embedder, Array.from({ length: 10 }, (_, index) => `turn ${index}`));
    expect(embedder.calls).toHaveLength(3);
  });
});

describe('a write applied to an index in slices', () => {
  it('keeps readers out until it is whole, and applies the writes queued behind it in place, in order', async () => {
    let scans = 0;
    let version = 1;
    const cache = new IndexCache({
      scan: async (_key, visit) => {
        scans++;
        visit(document('a', 1));
        return version;
      },
      version: async () => version,
    });
    const index = await cache.get('save');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    version = 3;
    const first = cache.afterWrite('save', { count: 1, previousVersion: 1, version: 2 }, async (target) => {
      target.add([document('b', 2)]);
      await gate;
      target.add([document('c', 2)]);
    });
    const second = cache.afterWrite('save', { count: 1, previousVersion: 2, version: 3 }, (target) => {
      target.add([document('d', 3)]);
    });
    let seen: CorpusIndex | null = null;
    const reading = cache.get('save').then((read) => (seen = read));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toBeNull();
    release();
    await Promise.all([first, second, reading]);
    expect(seen).toBe(index);
    expect(index.version).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((id) => index.slotOf(id))).toEqual([0, 1, 2, 3]);
    expect(scans).toBe(1);
  });

  it('drops an index whose write failed half-way: the next read rebuilds it from the store', async () => {
    let scans = 0;
    let version = 1;
    const cache = new IndexCache({ scan: async (_key, visit) => (scans++, visit(document('a', 1)), version), version: async () => version });
    await cache.get('save');
    version = 2;
    await cache.afterWrite('save', { count: 1, previousVersion: 1, version: 2 }, async (target) => {
      target.add([document('b', 2)]);
      throw new Error('disk gone');
    });
    const rebuilt = await cache.get('save');
    expect(scans).toBe(2);
    expect(rebuilt.slotOf('b')).toBeUndefined();
  });

  it('gives the event loop turns during a write of ten long chunks, and a query made in one sees all of them or none', async () => {
    const memory = await openMemory({ store: openInMemoryStore(), embedder: hashingEmbedder({ dimensions: 16 }) });
    await memory.add({ saveId: 's', turnId: 1, text: 'the harvest moon rises' });
    await memory.warm('s');
    const counts: number[] = [];
    let writing = true;
    const probe = (): void => {
      if (!writing) return;
      void memory.query('s', 'harvest moon', { k: 20 }).then((hits) => counts.push(hits.filter((hit) => hit.turnId === 2).length));
      setImmediate(probe);
    };
    setImmediate(probe);
    await memory.addMany(Array.from({ length: 10 }, (_, index) => ({ saveId: 's', turnId: 2, text: prose(LIMITS.textChars - 1000, index) })));
    writing = false;
    expect((await memory.query('s', 'harvest moon', { k: 20 })).filter((hit) => hit.turnId === 2)).toHaveLength(10);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Before, the write held the loop from start to end: no probe ran until it was done.
    expect(counts.filter((count) => count === 0).length).toBeGreaterThan(0);
    for (const count of counts) expect([0, 10]).toContain(count);
    await memory.close();
  });
});
