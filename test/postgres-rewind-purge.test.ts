// PostgreSQL rewind: the rewound chunks and facts are hidden in the rewind's transaction (chunk_rewinds,
// fact_rewinds) and deleted by a background purge; PGlite, a real server and a Citus cluster.
import { describe, expect, it, vi } from 'vitest';
import type { NewChunk } from '../src/seams/chunk-store.js';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { PURGE_BATCH } from '../src/stores/postgres/rewound-rows.js';
import { postgresTargets } from './postgres-targets.js';
import type { PostgresTarget } from './postgres-targets.js';

const PER_TURN = 800;
const TURNS = 6;
/** Small enough that the save's searches go through HNSW (exact below 10 chunks). */
const VECTOR_SEARCH = { exactBelow: 10 };

const vectorOf = (turnId: number, index: number) => Float32Array.from([1, turnId / 10, (index % 7) / 7, 0.5]);
const chunks = (saveId: string, turnId: number, count: number, prefix = 'chunk'): NewChunk[] => Array.from({ length: count }, (_, index) => ({
  id: `${saveId}-${prefix}-${turnId}-${index}`, saveId, turnId, chunkType: index % 2 === 0 ? 'narration' : 'dialogue', text: `${prefix} ${index} of turn ${turnId} in ${saveId}`,
  entryId: null, metadata: { turn: turnId }, createdAt: turnId, embedding: vectorOf(turnId, index),
}));
const facts = (saveId: string, turnId: number, count: number) =>
  Array.from({ length: count }, (_, index) => ({ statement: `${saveId} fact ${index} of turn ${turnId}.`, who: 'Kael', entities: ['Kael', `Place${turnId}`] }));

async function fill(store: PostgresStore, turns: number): Promise<void> {
  for (let turnId = 1; turnId <= turns; turnId++) {
    await store.insertChunks(chunks('a', turnId, PER_TURN));
    await store.insertChunks(chunks('b', turnId, 2));
    await store.living.insertFacts('a', turnId, facts('a', turnId, PER_TURN));
    await store.living.insertFacts('b', turnId, facts('b', turnId, 2));
  }
  await store.createVectorIndexes();
}

/** Rows of save `a` after `turnId` still in the tables (hidden ones too), and pending rewinds, per table. */
async function inTables(target: PostgresTarget, schema: string, turnId: number) {
  const count = async (sql: string, params: unknown[] = []) => Number((await target.query<{ n: string }>(sql, params))[0]?.n);
  return {
    chunks: await count(`SELECT COUNT(*) AS n FROM "${schema}".chunks WHERE save_id = 'a' AND turn_id > $1`, [turnId]),
    chunkRewinds: await count(`SELECT COUNT(*) AS n FROM "${schema}".chunk_rewinds`),
    facts: await count(`SELECT COUNT(*) AS n FROM "${schema}".living_facts WHERE save_id = 'a' AND turn_id > $1`, [turnId]),
    factRewinds: await count(`SELECT COUNT(*) AS n FROM "${schema}".fact_rewinds`),
  };
}

/** The turn in a chunk id made by `chunks`. */
const turnOf = (id: string) => Number(id.split('-')[2]);

/** Every read of save `a`'s chunks and facts, as one value. */
async function seen(store: PostgresStore) {
  const listed = await store.listChunks('a');
  const rows: string[] = [];
  await store.scanChunks('a', (row) => rows.push(row.id));
  const page = await store.pageChunks('a', { limit: 100_000 });
  const query = vectorOf(5, 3);
  const nearest = await store.vectorSearch.search('a', query, {}, 20);
  const withContext = await store.vectorSearch.search('a', query, {}, 20, { neighbourWeight: 0.5 });
  const scored = await store.vectorSearch.score('a', query, ['a-chunk-2-0', 'a-chunk-5-0'], { neighbourWeight: 0.5 });
  const layer = await store.living.readSave('a');
  const all = await store.living.getFacts('a');
  return {
    chunks: await store.countChunks('a'),
    narration: await store.countChunks('a', 'narration'),
    listedTurns: [...new Set(listed.map((chunk) => chunk.turnId))],
    turns: (await store.listTurns('a')).map((turn) => turn.turnId),
    byId: (await store.getChunks(['a-chunk-2-0', 'a-chunk-5-0'])).map((chunk) => chunk.id),
    byIdInSave: (await store.getChunks(['a-chunk-2-0', 'a-chunk-5-0'], 'a')).map((chunk) => chunk.id),
    scanned: rows.length,
    paged: page.chunks.length,
    saves: (await store.listSaves()).map((save) => [save.saveId, save.chunks, save.maxTurnId]),
    nearestCount: nearest.length,
    nearestRewound: nearest.filter((match) => turnOf(match.id) > 3).length,
    contextCount: withContext.length,
    contextRewound: withContext.filter((match) => turnOf(match.id) > 3).length,
    scored: [...scored.keys()],
    facts: await store.living.countFacts('a'),
    factTurns: [...new Set(all.map((fact) => fact.turnId))].sort(),
    factsOfTurn5: (await store.living.getFacts('a', { turnId: 5 })).length,
    factsByEntity: (await store.living.getFacts('a', { entity: 'Place5' })).length,
    factsVersion: await store.living.factsVersion('a'),
    exportedFacts: layer.facts.length,
  };
}

for (const target of postgresTargets()) {
  describe.skipIf(target.skip !== null)(`${target.name}: rewind hides chunks and facts, a background purge deletes them${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    it('hides the rewound rows from every read at once, then deletes them in batches, resumed on the next open', async () => {
      const schema = target.newSchema();
      const store = await target.open({ schema, vectorSearch: VECTOR_SEARCH });
      await fill(store, TURNS);
      const lastFactOfTurn3 = Math.max(...(await store.living.getFacts('a', { turnId: 3 })).map((fact) => fact.factId as number));
      const { removed } = await store.rewind('a', 3);
      expect(removed.chunks).toBe(3 * PER_TURN);
      expect(removed.living.facts).toBe(3 * PER_TURN);
      expect(3 * PER_TURN).toBeGreaterThan(PURGE_BATCH);
      // Closed before the purge's first step (a timer): the rows are still there, hidden by the rewind's records.
      await store.close();
      expect(await inTables(target, schema, 3)).toEqual({ chunks: 3 * PER_TURN, chunkRewinds: 1, facts: 3 * PER_TURN, factRewinds: 1 });
      const expected = {
        chunks: 3 * PER_TURN, narration: 3 * PER_TURN / 2, listedTurns: [1, 2, 3], turns: [1, 2, 3], byId: ['a-chunk-2-0'], byIdInSave: ['a-chunk-2-0'],
        scanned: 3 * PER_TURN, paged: 3 * PER_TURN, saves: [['a', 3 * PER_TURN, 3], ['b', 2 * TURNS, TURNS]], nearestCount: 20, nearestRewound: 0, contextCount: 20, contextRewound: 0,
        scored: ['a-chunk-2-0'], facts: 3 * PER_TURN, factTurns: [1, 2, 3], factsOfTurn5: 0, factsByEntity: 0,
        factsVersion: { count: 3 * PER_TURN, lastFactId: lastFactOfTurn3 }, exportedFacts: 3 * PER_TURN,
      };
      const reader = await target.open({ schema, readonly: true, vectorSearch: VECTOR_SEARCH });
      expect(await seen(reader)).toEqual(expected);
      expect(reader.vectors.stats.approximate).toBeGreaterThan(0);
      await reader.close();
      const writer = await target.open({ schema, vectorSearch: VECTOR_SEARCH });
      await vi.waitFor(async () => expect(await inTables(target, schema, 3)).toEqual({ chunks: 0, chunkRewinds: 0, facts: 0, factRewinds: 0 }), { timeout: 60_000, interval: 50 });
      expect(await seen(writer)).toEqual(expected);
      expect(await writer.countChunks('b')).toBe(2 * TURNS);
      expect(await writer.living.countFacts('b')).toBe(2 * TURNS);
      await writer.close();
    }, 300_000);

    it('keeps rows written after a rewind through later rewinds, forks, replaced turns and deletes, each seeing only what stands', async () => {
      const schema = target.newSchema();
      const store = await target.open({ schema, vectorSearch: VECTOR_SEARCH });
      await fill(store, 4);
      await store.rewind('a', 2);
      // Written before the purge ran: the same ids and turns as hidden rows, visible because they came later.
      await store.insertChunks(chunks('a', 3, 5));
      const newFacts = await store.living.insertFacts('a', 3, facts('a', 3, 4));
      expect(await store.countChunks('a')).toBe(2 * PER_TURN + 5);
      // A rewind to a later turn than the pending one's deletes what was written after that turn since (the pending
      // record keeps hiding the rest).
      await store.insertChunks(chunks('a', 4, 2, 'late'));
      await store.living.insertFacts('a', 4, facts('a', 4, 3));
      const later = await store.rewind('a', 3);
      expect([later.removed.chunks, later.removed.living.facts]).toEqual([2, 3]);
      expect(await store.countChunks('a')).toBe(2 * PER_TURN + 5);
      expect((await store.getChunks(['a-chunk-3-0', 'a-chunk-3-9'])).map((chunk) => chunk.id)).toEqual(['a-chunk-3-0']);
      expect((await store.living.getFacts('a', { turnId: 3 })).map((fact) => fact.factId)).toEqual([...newFacts].reverse());
      // Replacing turn 3 replaces what stands of it only (the hidden rows of the old turn 3 are not its).
      expect((await store.replaceTurn('a', 3, 'narration', chunks('a', 3, 2, 'again'))).removed).toBe(3);
      await store.living.replaceTurnFacts('a', 3, facts('a', 3, 2));
      expect((await store.deleteChunks('a', { ids: ['a-chunk-3-1', 'a-chunk-4-1'] })).removed).toEqual(['a-chunk-3-1']);
      expect(await store.countChunks('a')).toBe(2 * PER_TURN + 3);
      expect(await store.living.countFacts('a')).toBe(2 * PER_TURN + 2);
      const fork = await store.fork('a', 'a-copy', 9);
      expect(fork.chunks).toBe(2 * PER_TURN + 3);
      expect(fork.living.facts).toBe(2 * PER_TURN + 2);
      expect(await store.countChunks('a-copy')).toBe(2 * PER_TURN + 3);
      const again = await store.rewind('a', 1);
      expect(again.removed.chunks).toBe(PER_TURN + 3);
      expect(again.removed.living.facts).toBe(PER_TURN + 2);
      expect((await store.listTurns('a')).map((turn) => turn.turnId)).toEqual([1]);
      const deleted = await store.deleteSave('a');
      expect(deleted.chunks).toBe(PER_TURN);
      expect(deleted.living.facts).toBe(PER_TURN);
      expect(await inTables(target, schema, -1)).toMatchObject({ chunks: 0, facts: 0 });
      expect(await store.countChunks('a-copy')).toBe(2 * PER_TURN + 3);
      await store.close();
    }, 300_000);

    it('lets a store whose every vector a rewind hid take another embedder before the purge has run', async () => {
      const schema = target.newSchema();
      const store = await target.open({ schema });
      const made = { provider: 'test', modelId: 'four', dimensions: 4 };
      expect(await store.embeddings.claimIdentity(made)).toEqual({ ok: true });
      await store.insertChunks(chunks('a', 1, 3));
      const other = { provider: 'test', modelId: 'other', dimensions: 4 };
      expect(await store.embeddings.claimIdentity(other)).toEqual({ ok: false, recorded: made });
      // The purge this store started when it opened (any save's pending rows) may still be in its transaction, and
      // would delete the rows the rewind hides if it ran after it: stopped here, so that the purge has not run.
      await (store as unknown as { purge: { stop(): Promise<void> } }).purge.stop();
      await store.rewind('a', 0);
      await store.close();
      // The rows are still in the table, hidden by the rewind's record; they do not make the store the old model's.
      expect(await inTables(target, schema, 0)).toMatchObject({ chunks: 3, chunkRewinds: 1 });
      const reopened = await target.open({ schema });
      expect(await reopened.embeddings.claimIdentity(other)).toEqual({ ok: true });
      expect(await reopened.embeddings.identity()).toEqual(other);
      await reopened.close();
    }, 120_000);

    it('migrates a schema made before the rewind records (chunks-002, living-003)', async () => {
      const schema = target.newSchema();
      const store = await target.open({ schema });
      await fill(store, 2);
      await store.close();
      await target.query(`DROP TABLE "${schema}".chunk_rewinds, "${schema}".fact_rewinds`);
      await target.query(`DELETE FROM "${schema}".schema_migrations WHERE id IN ('chunks-002', 'living-003')`);
      const writer = await target.open({ schema });
      const { removed } = await writer.rewind('a', 1);
      expect([removed.chunks, removed.living.facts]).toEqual([PER_TURN, PER_TURN]);
      expect([await writer.countChunks('a'), await writer.living.countFacts('a')]).toEqual([PER_TURN, PER_TURN]);
      await vi.waitFor(async () => expect(await inTables(target, schema, 1)).toEqual({ chunks: 0, chunkRewinds: 0, facts: 0, factRewinds: 0 }), { timeout: 60_000, interval: 50 });
      await writer.close();
    }, 300_000);
  });
}
