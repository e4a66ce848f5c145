// PostgreSQL specifics, on PGlite and on a real server: migrations, versions, scans, and the pgvector arm.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { Mnemo } from '../src/open-memory.js';
import type { QueryOptions } from '../src/core/types.js';
import { demoStory } from '../src/demo/story.js';
import type { NewChunk, Store } from '../src/seams/store.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { POSTGRES_MIGRATIONS, openPostgresStore, redactUrl, vectorIndexName } from '../src/stores/postgres/index.js';
import { tempDir } from './helpers.js';
import { postgresTargets } from './postgres-targets.js';

const dir = tempDir();
let files = 0;

/** A unit vector of `dims` numbers from a few weighted axes. */
function unit(dims: number, axes: Record<number, number>): Float32Array {
  const vector = new Float32Array(dims);
  for (const [axis, weight] of Object.entries(axes)) vector[Number(axis)] = weight;
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

function chunk(saveId: string, turnId: number, options: { type?: string; embedding?: Float32Array | null; text?: string } = {}): NewChunk {
  return {
    id: randomUUID(),
    saveId,
    turnId,
    chunkType: options.type ?? 'narrative',
    text: options.text ?? `turn ${turnId}`,
    entryId: null,
    metadata: { saveId, turnId, chunkType: options.type ?? 'narrative' },
    createdAt: 1_700_000_000_000 + turnId,
    embedding: options.embedding ?? null,
  };
}

/** The exact answer: cosine similarity (dot product of unit vectors), best first, ties in insertion order. */
function exactNearest(chunks: readonly NewChunk[], query: Float32Array, accept: (chunk: NewChunk) => boolean, limit: number): string[] {
  return chunks
    .map((candidate, order) => ({ candidate, order, score: candidate.embedding === null ? -Infinity : candidate.embedding.reduce((sum, value, index) => sum + value * (query[index] as number), 0) }))
    .filter(({ candidate }) => candidate.embedding !== null && accept(candidate))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ candidate }) => candidate.id);
}

/** A seeded PRNG (mulberry32), so every run builds the same corpus. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The starving case in an ordinary corpus: 1,500 random unit vectors; the 200 nearest to the query are
 * narrative, and among the others every 25th is dialogue. The k nearest are all filtered out by `dialogue`.
 */
function mixedCorpus(saveId: string, query: Float32Array): NewChunk[] {
  const random = seeded(7);
  const vectors = Array.from({ length: 1500 }, () => unit(8, Object.fromEntries(Array.from({ length: 8 }, (_, axis) => [axis, random() * 2 - 1]))));
  const similarity = (vector: Float32Array) => vector.reduce((sum, value, index) => sum + value * (query[index] as number), 0);
  const rank = new Map([...vectors.keys()].sort((a, b) => similarity(vectors[b]!) - similarity(vectors[a]!)).map((index, position) => [index, position]));
  return vectors.map((embedding, index) => {
    const position = rank.get(index) as number;
    return chunk(saveId, index, { embedding, type: position >= 200 && position % 25 === 0 ? 'dialogue' : 'narrative' });
  });
}

/**
 * The adversarial case: 1,500 chunks near the query (narrative, turns 0-1499) and a separate cluster of 30 far
 * from it (dialogue, with distances that differ so the exact order is unambiguous). HNSW links the narrative
 * chunks among themselves, so a scan starting near the query may never reach the dialogue cluster at all.
 */
function starvingCorpus(saveId: string): NewChunk[] {
  const near = Array.from({ length: 1500 }, (_, index) => chunk(saveId, index, { embedding: unit(8, { 0: 1, [1 + (index % 7)]: 0.05 + (index % 13) * 0.01 }) }));
  const far = Array.from({ length: 30 }, (_, index) => chunk(saveId, 2000 + index, { type: 'dialogue', embedding: unit(8, { 0: 0.02 + index * 0.01, 7: 1 }) }));
  return [...near, ...far];
}

for (const target of postgresTargets()) {
  describe.skipIf(target.skip !== null)(`PostgreSQL store on ${target.name}${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    describe('migrations', () => {
      it('records every migration by id in the schema and applies none twice', async () => {
        const schema = target.newSchema();
        await (await target.open({ schema })).close();
        await (await target.open({ schema })).close();
        const rows = await target.query<{ id: string }>(`SELECT id FROM "${schema}".schema_migrations ORDER BY applied_at, id`);
        expect(rows.map((row) => row.id)).toEqual(POSTGRES_MIGRATIONS.map((migration) => migration.id));
      });

      it('lets several openers migrate one fresh schema at once (the advisory lock serializes them)', async () => {
        const schema = target.newSchema();
        const stores = await Promise.all([1, 2, 3].map(() => target.open({ schema })));
        await stores[0]!.insertChunks([chunk('s', 1)]);
        expect(await stores[2]!.countChunks('s')).toBe(1);
        for (const store of stores) await store.close();
        const rows = await target.query<{ n: string | number }>(`SELECT COUNT(*) AS n FROM "${schema}".schema_migrations`);
        expect(Number(rows[0]?.n)).toBe(POSTGRES_MIGRATIONS.length);
      });

      it('gives lore entries written before lore-003 empty metadata', async () => {
        const schema = target.newSchema();
        const first = await target.open({ schema });
        await new Mnemo({ store: first, embedder: null, logger: silentLogger }).lore.importEntries([{ source: 's', title: 'Old', content: 'An entry from before metadata.', scopeLevel: 'continental', scopeTags: [] }]);
        await first.close();
        await target.query(`ALTER TABLE "${schema}".lore_entries DROP COLUMN metadata`);
        await target.query(`DELETE FROM "${schema}".schema_migrations WHERE id = 'lore-003'`);
        const again = await target.open({ schema });
        expect((await again.lore.list()).map((entry) => entry.metadata)).toEqual([{}]);
        await again.close();
      });

      it('refuses a schema holding a migration this build does not know', async () => {
        const schema = target.newSchema();
        await (await target.open({ schema })).close();
        await target.query(`INSERT INTO "${schema}".schema_migrations (id, applied_at) VALUES ('future-999', 0)`);
        await expect(target.open({ schema })).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW', message: expect.stringContaining('future-999') });
      });
    });

    describe('writes and versions', () => {
      it('bumps the version once per write that changes something, and keeps the chunk count in step', async () => {
        const store = await target.open();
        expect(await store.insertChunks([chunk('s', 1), chunk('s', 2), chunk('s', 3, { type: 'dialogue' })])).toEqual({ previousVersion: 0, version: 1, count: 3 });
        expect(await store.replaceTurn('s', 2, 'narrative', [chunk('s', 2, { text: 'new' })])).toMatchObject({ previousVersion: 1, version: 2, removed: 1, count: 1 });
        expect(await store.replaceTurn('s', 9, 'narrative', [])).toMatchObject({ previousVersion: 2, version: 2, removed: 0 });
        expect(await store.rewind('s', 5)).toMatchObject({ previousVersion: 2, version: 2, removed: { chunks: 0 } });
        expect(await store.rewind('s', 1)).toMatchObject({ previousVersion: 2, version: 3, removed: { chunks: 2 } });
        expect(await store.rewind('unknown', 0)).toMatchObject({ previousVersion: 0, version: 0, count: 0, removed: { chunks: 0, living: { facts: 0, jobsCancelled: 0 } } });
        expect(await store.saveVersion('s')).toBe(3);
        const [saved] = await target.query<{ chunk_count: string | number }>(`SELECT chunk_count FROM "${store.schema}".saves WHERE save_id = 's'`);
        expect(Number(saved?.chunk_count)).toBe(await store.countChunks('s'));
        expect((await store.listSaves()).map((save) => save.saveId)).toEqual(['s']);
        await store.close();
      });

      it('rolls a whole write back when one row fails, leaving the version untouched', async () => {
        const store = await target.open();
        await store.insertChunks([chunk('s', 1)]);
        const bad = chunk('s', 2);
        bad.turnId = -1; // violates the CHECK constraint inside the transaction, after the version bump
        await expect(store.insertChunks([chunk('s', 2), bad])).rejects.toThrow();
        expect(await store.countChunks('s')).toBe(1);
        expect(await store.saveVersion('s')).toBe(1);
        await store.close();
      });

      it('scans a large save in insertion order, in batches, with exact vectors and the version read first', async () => {
        const store = await target.open();
        const chunks = Array.from({ length: 4500 }, (_, index) => chunk('big', index % 50, { embedding: unit(4, { [index % 4]: 1, [(index + 1) % 4]: index / 4500 }) }));
        for (let start = 0; start < chunks.length; start += 1500) await store.insertChunks(chunks.slice(start, start + 1500));
        const seen: string[] = [];
        let exact = true;
        const version = await store.scanChunks('big', (row) => {
          const expected = chunks[seen.length]!;
          seen.push(row.id);
          if (row.embedding === null || row.embedding.some((value, index) => value !== expected.embedding![index])) exact = false;
        });
        expect(version).toBe(3);
        expect(seen).toEqual(chunks.map((item) => item.id));
        expect(exact).toBe(true);
        const dimensions = new Set<number | null | undefined>();
        await store.vectorSearch.scanChunks('big', (row) => { dimensions.add(row.dimensions); expect(row.embedding).toBeNull(); });
        expect([...dimensions]).toEqual([4]);
        await store.close();
      }, 120_000); // 4,500 chunks written and scanned twice: 25-43 s on PGlite with load 22 on 2 cores, past the default 30 s
    });

    describe('the semantic arm (pgvector)', () => {
      it('creates one HNSW index per vector length, and PostgreSQL uses it for the approximate query', async () => {
        const store = await target.open({ vectorSearch: { exactBelow: 0 } });
        await store.insertChunks(starvingCorpus('s'));
        await store.insertChunks([chunk('other', 1, { embedding: unit(16, { 3: 1 }) })]);
        await store.analyze();
        const indexes = await target.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE $2 ORDER BY indexname', [store.schema, 'chunks_embedding_hnsw_%']);
        expect(indexes.map((row) => row.indexname)).toEqual([vectorIndexName(16), vectorIndexName(8)]);
        const plan = await store.vectors.explainApproximate('s', unit(8, { 0: 1 }), { chunkType: 'dialogue' }, 10);
        expect(plan).toContain(vectorIndexName(8));
        expect(await store.vectorSearch.search('s', unit(16, { 3: 1 }), {}, 5)).toEqual([]);
        expect((await store.vectorSearch.search('other', unit(16, { 3: 1 }), {}, 5)).map((match) => match.score)).toEqual([expect.closeTo(1, 5)]);
        await store.close();
      });

      it('leaves index building to createVectorIndexes() with vectorIndexes: manual (for bulk imports)', async () => {
        const store = await target.open({ vectorIndexes: 'manual' });
        await store.insertChunks([chunk('s', 1, { embedding: unit(8, { 1: 1 }) }), chunk('s', 2, { embedding: unit(12, { 1: 1 }) }), chunk('s', 3)]);
        const indexes = () => target.query('SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE $2', [store.schema, 'chunks_embedding_hnsw_%']);
        expect(await indexes()).toEqual([]);
        expect((await store.vectorSearch.search('s', unit(8, { 1: 1 }), {}, 5)).length).toBe(1);
        expect(await store.createVectorIndexes()).toEqual([8, 12]);
        expect(await indexes()).toHaveLength(2);
        await store.close();
      });

      it('does not starve: the k nearest all filtered out, the iterative HNSW scan still fills k', async () => {
        const store = await target.open({ vectorSearch: { exactBelow: 0 } });
        const query = unit(8, { 0: 1 });
        const corpus = mixedCorpus('s', query);
        await store.insertChunks(corpus);
        await store.analyze();
        const matches = await store.vectorSearch.search('s', query, { chunkType: 'dialogue' }, 10);
        const byId = new Map(corpus.map((item) => [item.id, item]));
        expect(matches).toHaveLength(10);
        expect(matches.every((match) => byId.get(match.id)?.chunkType === 'dialogue')).toBe(true);
        expect(matches.map((match) => match.score)).toEqual([...matches.map((match) => match.score)].sort((a, b) => b - a));
        const exact = new Set(exactNearest(corpus, query, (item) => item.chunkType === 'dialogue', 10));
        expect(matches.filter((match) => exact.has(match.id)).length).toBeGreaterThanOrEqual(9); // approximate, but not by much
        const window = await store.vectorSearch.search('s', query, { maxTurnId: 700, excludeChunkTypes: ['narrative'] }, 10);
        expect(window).toHaveLength(10);
        expect(window.every((match) => (byId.get(match.id)?.turnId as number) <= 700 && byId.get(match.id)?.chunkType === 'dialogue')).toBe(true);
        // Both went through HNSW, and its iterative scan filled k: neither was starved and redone exactly.
        expect(store.vectors.stats).toEqual({ exact: 0, approximate: 2, starved: 0 });
        await store.close();
      });

      it('scores with neighbour context through HNSW: a pool of the nearest rescored with their neighbours', async () => {
        const query = unit(8, { 0: 1 });
        const corpus = mixedCorpus('s', query);
        const approximate = await target.open({ vectorSearch: { exactBelow: 0 } });
        await approximate.insertChunks(corpus);
        await approximate.analyze();
        const exact = await target.open({ schema: approximate.schema, vectorSearch: { exactBelow: 1e9 } });
        const truth = await exact.vectorSearch.search('s', query, { chunkType: 'dialogue' }, 10, { neighbourWeight: 0.5 });
        // The exact answer by hand: q . normalise(own + 0.5 (previous + next)), neighbours over every chunk.
        const mixed = corpus.map((item, index) => {
          const sum = Float32Array.from(item.embedding!);
          for (const other of [corpus[index - 1], corpus[index + 1]]) if (other !== undefined) other.embedding!.forEach((value, axis) => { sum[axis] = (sum[axis] as number) + 0.5 * value; });
          const norm = Math.hypot(...sum);
          return { ...item, embedding: sum.map((value) => value / norm) };
        });
        expect(truth.map((match) => match.id)).toEqual(exactNearest(mixed, query, (item) => item.chunkType === 'dialogue', 10));
        const found = await approximate.vectorSearch.search('s', query, { chunkType: 'dialogue' }, 10, { neighbourWeight: 0.5 });
        expect(found).toHaveLength(10);
        const wanted = new Set(truth.map((match) => match.id));
        expect(found.filter((match) => wanted.has(match.id)).length).toBeGreaterThanOrEqual(8);
        expect(approximate.vectors.stats).toMatchObject({ approximate: 1, starved: 0 });
        const scores = await approximate.vectorSearch.score('s', query, truth.slice(0, 3).map((match) => match.id), { neighbourWeight: 0.5 });
        expect([...scores.values()].map((score) => score.toFixed(5)).sort()).toEqual(truth.slice(0, 3).map((match) => match.score.toFixed(5)).sort());
        await exact.close();
        await approximate.close();
      });

      it('fills k even when the permitted chunks are unreachable in the HNSW graph from the query (redone exactly)', async () => {
        const store = await target.open({ vectorSearch: { exactBelow: 0 } });
        const corpus = starvingCorpus('s');
        await store.insertChunks(corpus);
        await store.analyze();
        const query = unit(8, { 0: 1 });
        const dialogue = await store.vectorSearch.search('s', query, { chunkType: 'dialogue' }, 10);
        expect(dialogue.map((match) => match.id)).toEqual(exactNearest(corpus, query, (item) => item.chunkType === 'dialogue', 10));
        const excluded = await store.vectorSearch.search('s', query, { excludeChunkTypes: ['narrative'], maxTurnId: 2020 }, 10);
        expect(excluded.map((match) => match.id)).toEqual(exactNearest(corpus, query, (item) => item.chunkType !== 'narrative' && item.turnId <= 2020, 10));
        const window = await store.vectorSearch.search('s', query, { maxTurnId: 3 }, 10);
        expect(window.map((match) => match.id)).toEqual(exactNearest(corpus, query, (item) => item.turnId <= 3, 10));
        expect(store.vectors.stats.approximate).toBe(3);
        await store.close();
      });

      it('redoes a starved approximate search exactly (max_scan_tuples reached), so k is still filled', async () => {
        const store = await target.open({ vectorSearch: { exactBelow: 0, maxScanTuples: 1, efSearch: 1 } });
        const corpus = starvingCorpus('s');
        await store.insertChunks(corpus);
        await store.analyze();
        const query = unit(8, { 0: 1 });
        const matches = await store.vectorSearch.search('s', query, { chunkType: 'dialogue' }, 10);
        expect(matches.map((match) => match.id)).toEqual(exactNearest(corpus, query, (item) => item.chunkType === 'dialogue', 10));
        expect(store.vectors.stats.starved).toBe(1);
        await store.close();
      });

      it('searches small saves exactly, and orders equal distances by insertion', async () => {
        const store = await target.open();
        const same = unit(8, { 2: 1 });
        const chunks = Array.from({ length: 12 }, (_, index) => chunk('s', 12 - index, { embedding: index % 3 === 0 ? unit(8, { 5: 1 }) : same }));
        await store.insertChunks(chunks);
        const matches = await store.vectorSearch.search('s', same, {}, 20);
        expect(matches.map((match) => match.id)).toEqual(exactNearest(chunks, same, () => true, 20));
        expect(matches[0]?.score).toBeCloseTo(1, 5);
        expect(store.vectors.stats).toEqual({ exact: 1, approximate: 0, starved: 0 });
        await store.close();
      });

      it('adds the totals of every permitted score to statistics on an exact search, and nothing on an approximate one', async () => {
        const store = await target.open({ vectorSearch: { exactBelow: 20 } });
        const chunks = Array.from({ length: 12 }, (_, index) =>
          chunk('s', index + 1, { type: index % 4 === 0 ? 'dialogue' : 'narrative', embedding: unit(8, { [index % 8]: 1, 7: 0.5 }) }));
        await store.insertChunks(chunks);
        const query = unit(8, { 1: 1, 7: 1 });
        const permitted = chunks.filter((item) => item.chunkType === 'narrative' && item.turnId <= 10);
        const scores = permitted.map((item) => (item.embedding as Float32Array).reduce((sum, value, index) => sum + value * (query[index] as number), 0));
        const totals = { count: 0, sum: 0, sumOfSquares: 0 };
        await store.vectorSearch.search('s', query, { chunkType: 'narrative', maxTurnId: 10 }, 3, { statistics: totals });
        expect(totals.count).toBe(permitted.length);
        expect(totals.sum).toBeCloseTo(scores.reduce((sum, score) => sum + score, 0), 5);
        expect(totals.sumOfSquares).toBeCloseTo(scores.reduce((sum, score) => sum + score * score, 0), 5);
        await store.close();

        const large = await target.open({ vectorSearch: { exactBelow: 0 } });
        await large.insertChunks(chunks.map((item) => ({ ...item, saveId: 'l' })));
        const untouched = { count: 0, sum: 0, sumOfSquares: 0 };
        const matches = await large.vectorSearch.search('l', query, {}, 3, { statistics: untouched });
        expect(matches).toHaveLength(3);
        expect(untouched).toEqual({ count: 0, sum: 0, sumOfSquares: 0 });
        await large.close();
      });

      it('serves the engine: hybrid queries search vectors in the database, not in process memory', async () => {
        const store = await target.open();
        const memory = new Mnemo({ store, embedder: hashingEmbedder({ dimensions: 32 }), reranker: null, logger: silentLogger });
        await memory.addMany([
          { saveId: 's', turnId: 1, text: 'The ferryman takes a silver coin for the crossing.' },
          { saveId: 's', turnId: 2, text: 'Rain drums on the roof of the inn.' },
        ]);
        const [hit] = await memory.query('s', 'silver coin ferryman', { k: 1 });
        expect(hit?.turnId).toBe(1);
        expect(hit?.explanation.semantic?.rank).toBe(1);
        expect(store.vectors.stats.exact).toBe(1);
        await memory.close();
      });
    });

    describe('the same results as SQLite', () => {
      const queries = ['who owns the iron key?', 'lighthouse keeper Tamsin', 'Oren letter', 'the Tide Court', 'silver coins', 'wolf howls at night', 'ferry to Greywater', 'green lights on the water'];

      async function rankings(memory: Mnemo, options: QueryOptions): Promise<string[][]> {
        for (const turn of demoStory()) await memory.addMany([{ saveId: 'story', turnId: turn.turnId, text: turn.text, chunkType: turn.chunkType }]);
        const all: string[][] = [];
        for (const query of queries) {
          all.push((await memory.query('story', query, { k: 8, ...options })).map((hit) => `${hit.turnId}:${hit.explanation.semantic?.rank ?? '-'}:${hit.explanation.lexical?.rank ?? '-'}`));
          all.push((await memory.query('story', query, { k: 5, maxTurnId: 30, chunkType: 'narrative', ...options })).map((hit) => String(hit.turnId)));
        }
        return all;
      }

      const configurations: [string, QueryOptions, number | undefined][] = [
        ['the defaults (z-score fusion, neighbour context 0.5, feedback)', {}, undefined],
        ['RRF, own vectors', { fusion: 'rrf' }, 0],
        ['z-score fusion, own vectors, arms capped at 4', { fusion: 'zscore', capPerSource: 4 }, 0],
        ['neighbour context 0.8, arms capped at 4', { capPerSource: 4 }, 0.8],
      ];
      for (const [label, options, neighbourWeight] of configurations) {
        it(`ranks the demo story exactly as SQLite does: ${label}`, async () => {
          const make = (store: Store) => new Mnemo({ store, embedder: hashingEmbedder({ dimensions: 64 }), reranker: null, logger: silentLogger, neighbourWeight });
          const sqlite = make(openSqliteStore({ path: join(dir, `parity-${++files}.db`) }));
          const store = await target.open();
          const postgres = make(store);
          expect(await rankings(postgres, options)).toEqual(await rankings(sqlite, options));
          expect(store.vectors.stats.exact).toBeGreaterThan(0); // the database's arm answered, not vectors in memory
          await sqlite.close();
          await postgres.close();
        });
      }
    });

    describe('read-only (a replica)', () => {
      it('queries without writing anything, and refuses writes', async () => {
        const schema = target.newSchema();
        const writer = await target.open({ schema });
        const writing = new Mnemo({ store: writer, embedder: hashingEmbedder({ dimensions: 16 }), reranker: null, logger: silentLogger });
        await writing.add({ saveId: 's', turnId: 1, text: 'The lighthouse keeper counts the ships.' });
        const store = await target.open({ schema, readonly: true });
        const reading = new Mnemo({ store, embedder: hashingEmbedder({ dimensions: 16 }), reranker: null, logger: silentLogger });
        const [hit] = await reading.query('s', 'lighthouse keeper');
        expect(hit?.explanation).toMatchObject({ lexical: { rank: 1 }, semantic: { rank: 1 } });
        await expect(reading.add({ saveId: 's', turnId: 2, text: 'no' })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
        await expect(reading.rewind('s', 0)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
        await expect(store.setMeta('k', 'v')).rejects.toMatchObject({ code: 'UNSUPPORTED' });
        expect(await store.countChunks('s')).toBe(1);
        await reading.close();
        await writing.close();
      });

      it('refuses a schema it would have to create or migrate', async () => {
        await expect(target.open({ readonly: true })).rejects.toMatchObject({ code: 'STORE_FAILURE', message: expect.stringContaining('read-only store cannot create them') });
        const schema = target.newSchema();
        await (await target.open({ schema })).close();
        await target.query(`DELETE FROM "${schema}".schema_migrations`);
        await expect(target.open({ schema, readonly: true })).rejects.toMatchObject({ code: 'STORE_FAILURE', message: expect.stringContaining('chunks-001') });
      });
    });

    describe('opening', () => {
      it('refuses ambiguous or invalid options, and closed stores', async () => {
        await expect(openPostgresStore({})).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        await expect(openPostgresStore({ url: 'mysql://localhost/x' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        await expect(target.open({ schema: 'Bad-Name' })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('schema') });
        const store = await target.open();
        await store.close();
        await expect(store.countChunks('s')).rejects.toMatchObject({ code: 'STORE_CLOSED' });
      });
    });
  });
}

describe('PostgreSQL URLs', () => {
  it('never shows a password', () => {
    expect(redactUrl('postgres://mnemo:s3cret@db.internal:5432/game')).toBe('postgres://mnemo:***@db.internal:5432/game');
    expect(redactUrl('postgres://db.internal/game')).toBe('postgres://db.internal/game');
  });

  it('reports a server that does not answer clearly, without the password', async () => {
    const error = await openPostgresStore({ url: 'postgres://mnemo:s3cret@127.0.0.1:1/game' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_FAILURE', message: expect.stringContaining('Could not open the PostgreSQL store at postgres://mnemo:***@127.0.0.1:1/game') });
    expect((error as Error).message).not.toContain('s3cret');
  });
});
