// The embedding layer through openMemory: identity checks, auto choice, the embedding cache, and reindex.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../src/core/logger.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { MINILM_MODEL } from '../src/embedders/transformers/index.js';
import { EmbeddingCache } from '../src/embedders/embedding-cache.js';
import { reindex } from '../src/embedders/reindex.js';
import { resolveEmbedder } from '../src/embedders/resolve-embedder.js';
import { loadStaticEmbedder } from '../src/embedders/static/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Embedder } from '../src/seams/embedder.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { fakeRuntime, writeModelFolder } from './fixtures/fake-transformers.js';
import { runCli, tempDir } from './helpers.js';

const dir = tempDir();
let files = 0;
const dbPath = () => join(dir, `layer-${++files}.db`);

/** An embedder that counts the texts it is asked to embed, and can fail after a number of them. */
function counting(options: { dimensions?: number; modelId?: string; failAfter?: number } = {}): Embedder & { texts: string[] } {
  const inner = hashingEmbedder({ dimensions: options.dimensions ?? 16 });
  const texts: string[] = [];
  return {
    provider: 'counting',
    modelId: options.modelId ?? `counting-${inner.dimensions}`,
    dimensions: inner.dimensions,
    maxBatchSize: 100,
    texts,
    async embed(batch) {
      if (options.failAfter !== undefined && texts.length + batch.length > options.failAfter) throw new Error('provider went away');
      texts.push(...batch);
      return inner.embed(batch);
    },
  };
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line) => lines.push(line), warn: (line) => lines.push(line) };
}

async function seed(path: string, embedder: Embedder | null, turns = 50) {
  const memory = await openMemory({ path, embedder, logger: silentLogger });
  for (let turn = 1; turn <= turns; turn++) await memory.add({ saveId: turn % 2 === 0 ? 'even' : 'odd', turnId: turn, text: `On turn ${turn} the caravan reaches waypoint number ${turn}.` });
  await memory.close();
}

describe('embedding identity', () => {
  it('records the embedder of a new store and refuses another one, naming both', async () => {
    const path = dbPath();
    await seed(path, hashingEmbedder({ dimensions: 16 }), 3);
    const error = await openMemory({ path, embedder: 'static', logger: silentLogger }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'EMBEDDER_MISMATCH', category: 'USER' });
    expect((error as Error).message).toContain('hashing/hashing-16-trigrams (16 dimensions)');
    expect((error as Error).message).toContain('static/glove-sg-100d-top100k-sif-rank (100 dimensions)');
    expect((error as Error).message).toContain('mnemo reindex');
    const again = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger });
    expect(await again.count('odd')).toBe(2);
    await again.close();
  });

  it('always lets a store open without an embedder (words only)', async () => {
    const path = dbPath();
    await seed(path, hashingEmbedder({ dimensions: 16 }), 3);
    const memory = await openMemory({ path, embedder: null, logger: silentLogger });
    expect((await memory.query('odd', 'caravan waypoint', { k: 5 })).length).toBe(2);
    await memory.close();
  });

  it('lets a store whose every vector a rewind hid take a new embedder, before the purge has deleted them', async () => {
    const path = dbPath();
    await seed(path, hashingEmbedder({ dimensions: 16 }), 4);
    const rewinder = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger });
    await rewinder.rewind('odd', 0);
    await rewinder.rewind('even', 0);
    await rewinder.close();
    // Closed before the purge's first step: the file still holds the rows (and their vectors), hidden.
    const file = new Database(path, { readonly: true });
    expect(file.prepare('SELECT (SELECT COUNT(*) FROM chunks WHERE embedding IS NOT NULL) AS vectors, (SELECT COUNT(*) FROM chunk_rewinds) AS rewinds').get()).toEqual({ vectors: 4, rewinds: 2 });
    file.close();
    const second = await openMemory({ path, embedder: 'static', logger: silentLogger });
    expect(await second.store.embeddings.identity()).toMatchObject({ provider: 'static', dimensions: 100 });
    await second.close();
  });

  it('lets a store holding no vector take a new embedder', async () => {
    const path = dbPath();
    await seed(path, null, 3);
    const first = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger });
    await first.close();
    const second = await openMemory({ path, embedder: 'static', logger: silentLogger });
    expect(await second.store.embeddings.identity()).toMatchObject({ provider: 'static', dimensions: 100 });
    await second.close();
  });
});

describe('auto embedder', () => {
  it('takes the static vectors when no MiniLM model is present, saying so in one line', async () => {
    const logger = recordingLogger();
    const embedder = await resolveEmbedder('auto', { modelDir: join(dir, 'no-models'), logger });
    expect(embedder?.provider).toBe('static');
    expect(logger.lines).toEqual([expect.stringMatching(/^embedder: static\/glove-sg-100d-top100k-sif-rank \(100 dimensions\) \(auto: no Xenova\/all-MiniLM-L6-v2 in /)]);
  });

  it('takes a local MiniLM model when one is present and its runtime loads', async () => {
    const modelDir = join(dir, 'models');
    writeModelFolder(modelDir, MINILM_MODEL);
    const logger = recordingLogger();
    const embedder = await resolveEmbedder('auto', { modelDir, logger, importer: async () => fakeRuntime([]) });
    expect(embedder).toMatchObject({ provider: 'transformers', modelId: MINILM_MODEL });
    expect(logger.lines).toEqual([expect.stringContaining('local model Xenova/all-MiniLM-L6-v2 found')]);
  });

  it('falls back to the static vectors when the MiniLM runtime is missing', async () => {
    const modelDir = join(dir, 'models-2');
    writeModelFolder(modelDir, MINILM_MODEL);
    const logger = recordingLogger();
    const importer = async () => { throw Object.assign(new Error('missing'), { code: 'ERR_MODULE_NOT_FOUND' }); };
    expect((await resolveEmbedder('auto', { modelDir, logger, importer }))?.provider).toBe('static');
    expect(logger.lines[0]).toContain('MiniLM present but unusable: DEPENDENCY_MISSING');
  });

  it('reopens a store made with a static variant (all-but-the-top) with that variant, and the plain one refuses it', async () => {
    const path = dbPath();
    await seed(path, await loadStaticEmbedder({ topDirections: 1 }), 2);
    const memory = await openMemory({ path, logger: silentLogger });
    expect(memory.embedder?.modelId).toBe('glove-sg-100d-top100k-sif-rank-abtt1');
    await memory.close();
    await expect(openMemory({ path, embedder: await loadStaticEmbedder(), logger: silentLogger })).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH', message: expect.stringMatching(/reindex/) });
  });

  it('prefers the embedder that made the store, so opening with auto never mismatches', async () => {
    const path = dbPath();
    await seed(path, hashingEmbedder({ dimensions: 24, trigrams: false }), 2);
    const memory = await openMemory({ path, logger: silentLogger });
    expect(memory.embedder?.modelId).toBe('hashing-24');
    await memory.close();
  });
});

describe('embedding cache', () => {
  it('embeds a text once: again later, again after reopening, and twice in one batch cost nothing', async () => {
    const path = dbPath();
    const embedder = counting();
    const memory = await openMemory({ path, embedder, logger: silentLogger });
    await memory.add({ saveId: 's', turnId: 1, text: 'The bell tolls at midnight.' });
    await memory.add({ saveId: 's', turnId: 2, text: 'The bell tolls at midnight.' });
    await memory.addMany([{ saveId: 's', turnId: 3, text: 'Fog rolls in.' }, { saveId: 's', turnId: 3, text: 'Fog rolls in.' }]);
    await memory.updateTurn({ saveId: 's', turnId: 3, text: 'Fog rolls in.' });
    expect(embedder.texts).toEqual(['The bell tolls at midnight.', 'Fog rolls in.']);
    await memory.close();
    const reopened = await openMemory({ path, embedder, logger: silentLogger });
    await reopened.add({ saveId: 't', turnId: 1, text: 'Fog rolls in.' });
    expect(embedder.texts).toHaveLength(2);
    const hits = await reopened.query('s', 'bell midnight', { k: 1 });
    expect(hits[0]?.explanation.semantic).not.toBeNull();
    await reopened.close();
  });

  it('is keyed by embedder identity, and can be turned off', async () => {
    const path = dbPath();
    const first = counting({ modelId: 'model-a' });
    const memory = await openMemory({ path, embedder: first, logger: silentLogger });
    await memory.add({ saveId: 's', turnId: 1, text: 'Same words.' });
    const cache = new EmbeddingCache(memory.store.embeddings);
    const second = counting({ modelId: 'model-b' });
    await cache.embed(second, ['Same words.']);
    expect(second.texts).toEqual(['Same words.']);
    await memory.close();
    const off = counting({ modelId: 'model-a' });
    const uncached = await openMemory({ path, embedder: off, embeddingCache: false, logger: silentLogger });
    await uncached.add({ saveId: 's', turnId: 2, text: 'Same words.' });
    expect(off.texts).toEqual(['Same words.']);
    await uncached.close();
  });
});

describe('reindex', () => {
  it('survives a failing embedder mid-way and resumes where it stopped, then the new embedder owns the store', async () => {
    const path = dbPath();
    await seed(path, hashingEmbedder({ dimensions: 16 }), 50);
    const store = openSqliteStore({ path });
    const failing = counting({ dimensions: 32, failAfter: 20 });
    await expect(reindex(store, failing, { batchSize: 10 })).rejects.toThrow('provider went away');
    expect(await store.embeddings.reindexProgress()).toMatchObject({ done: 20, total: 50 });
    await store.close();

    const old = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger });
    expect((await old.query('odd', 'caravan waypoint 7', { k: 1 }))[0]?.explanation.semantic).not.toBeNull();
    await old.add({ saveId: 'odd', turnId: 51, text: 'A late traveller joins the caravan.' });
    await old.close();
    const early = await openMemory({ path, embedder: counting({ dimensions: 32 }), logger: silentLogger }).catch((caught: unknown) => caught);
    expect((early as Error).message).toContain('stopped at 20 of 51 chunks');

    const resumed = counting({ dimensions: 32 });
    const progress: number[] = [];
    const result = await reindex(openSqliteStore({ path }), resumed, { batchSize: 10, onProgress: ({ done }) => progress.push(done) });
    expect(result).toMatchObject({ resumed: 20, embedded: 31, total: 51 });
    expect(resumed.texts).toHaveLength(31);
    expect(resumed.texts[0]).toContain('turn 21 ');
    expect(progress).toEqual([20, 30, 40, 50, 51]);

    const memory = await openMemory({ path, embedder: counting({ dimensions: 32 }), logger: silentLogger });
    const [hit] = await memory.query('odd', 'late traveller', { k: 1 });
    expect(hit?.explanation.semantic?.score).toBeGreaterThan(0.5);
    await memory.close();
    await expect(openMemory({ path, embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger })).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
  });

  it('resumes after the reindexing process is killed, losing nothing', async () => {
    const path = dbPath();
    await seed(path, hashingEmbedder({ dimensions: 16 }), 60);
    const staged = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'reindex-child.ts'), path], { stdio: ['ignore', 'pipe', 'pipe'] });
      let done = 0;
      let stderr = '';
      child.stderr.on('data', (data: Buffer) => { stderr += data.toString(); });
      child.stdout.on('data', (data: Buffer) => {
        for (const line of data.toString().split('\n')) if (/^\d+$/.test(line)) done = Number(line);
        if (done >= 20) child.kill('SIGKILL');
      });
      child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(done) : reject(new Error(`child ended without being killed: ${stderr}`))));
    });
    const store = openSqliteStore({ path });
    expect(store.integrityCheck()).toBe('ok');
    const progress = await store.embeddings.reindexProgress();
    expect(progress?.done).toBeGreaterThanOrEqual(staged);
    const target = hashingEmbedder({ dimensions: 32 });
    const result = await reindex(store, target, { batchSize: 10 });
    expect(result.resumed).toBe(progress?.done);
    expect(result.resumed + result.embedded).toBe(60);
    const lengths = new Set<number | null>();
    for (const saveId of ['odd', 'even']) await store.scanChunks(saveId, (row) => lengths.add(row.embedding?.length ?? null));
    expect([...lengths]).toEqual([32]);
    await store.close();
  });

  it('re-embeds remembered entries too, from the text recall searches by', async () => {
    const path = dbPath();
    const memory = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger });
    await memory.add({ saveId: 's', turnId: 1, text: 'The mill wheel turns.' });
    await memory.recall.store('miller', 'Old Hanne, who grinds barley', { scope: 'village' });
    await memory.close();
    const target = counting({ dimensions: 32 });
    const result = await reindex(openSqliteStore({ path }), target);
    expect(result).toMatchObject({ embedded: 2, total: 2 });
    expect(target.texts).toEqual(['The mill wheel turns.', 'miller\nOld Hanne, who grinds barley']);
    const reopened = await openMemory({ path, embedder: counting({ dimensions: 32 }), logger: silentLogger });
    const [entry] = await reopened.recall.retrieve('who grinds the grain', 1, 'village');
    expect(entry?.key).toBe('miller');
    await reopened.close();
  });

  it('runs through a Mnemo handle opened without an embedder, and refuses a handle searching with another one (nothing staged)', async () => {
    const path = dbPath();
    await seed(path, hashingEmbedder({ dimensions: 16 }), 10);
    const searching = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger });
    const target = counting({ dimensions: 32 });
    await expect(searching.reindex(target)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('Open it with embedder: null') });
    expect(target.texts).toEqual([]);
    expect(await searching.store.embeddings.reindexProgress()).toBeNull();
    await searching.close();

    const words = await openMemory({ path, embedder: null, logger: silentLogger });
    const progress: number[] = [];
    expect(await words.reindex(target, { batchSize: 4, onProgress: ({ done }) => progress.push(done) })).toMatchObject({ target: { provider: 'counting', dimensions: 32 }, embedded: 10, resumed: 0, total: 10 });
    expect(progress).toEqual([0, 4, 8, 10]);
    expect(await words.vectorIdentity()).toMatchObject({ provider: 'counting', dimensions: 32 });
    await words.close();
    const reopened = await openMemory({ path, embedder: counting({ dimensions: 32 }), logger: silentLogger });
    expect((await reopened.query('odd', 'caravan waypoint 7', { k: 1 }))[0]?.explanation.semantic).not.toBeNull();
    expect(await reopened.reindex(counting({ dimensions: 32 }))).toMatchObject({ embedded: 10, total: 10 });
    await reopened.close();
  });

  it('runs from the CLI: a mismatch exits 2, reindex re-embeds, then the store opens with the new embedder', async () => {
    const db = dbPath();
    const run = (...args: string[]) => runCli('--db', db, ...args);
    expect((await run('--embedder', 'hashing', 'add', 'camp', '1', 'The', 'ferryman', 'waits')).code).toBe(0);
    const refused = await run('--embedder', 'static', 'query', 'camp', 'boatman');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('error EMBEDDER_MISMATCH');
    const reindexed = await run('--embedder', 'static', 'reindex', '--json');
    expect(reindexed.code).toBe(0);
    expect(JSON.parse(reindexed.out)).toMatchObject({ embedder: { provider: 'static', dimensions: 100 }, embedded: 1, total: 1 });
    expect(JSON.parse((await run('--embedder', 'static', 'stats', '--json')).out).vectors).toMatchObject({ provider: 'static', dimensions: 100 });
    const query = await run('--embedder', 'static', 'query', 'camp', 'boatman');
    expect(query.code).toBe(0);
    expect(query.out).toMatch(/meaning #1, cosine 0\.\d+/);
    expect((await run('--embedder', 'none', 'reindex')).code).toBe(2);
  });
});
