// The facts arm: a save's living-memory facts lift their turns' chunks, within the turn bound, exact through rewinds, forks and other handles.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';

import { chunksAtFactTurns, liftByFacts, resolveFactArm } from '../src/narrative/fact-arm.js';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import { openMemory } from '../src/open-memory.js';
import type { Hit } from '../src/core/types.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let files = 0;
const dbPath = () => join(dir, `facts-${++files}.db`);

// Turn 2's words never say "violin"; its fact does.
const TURNS = ['We walked to the harbour at dawn.', 'The gulls were loud again.', 'I finally started lessons, my teacher is strict!', 'Dinner was fish stew.'];

async function seeded(path: string) {
  const memory = await openMemory({ path, logger: silentLogger, embedder: null });
  await memory.addMany(TURNS.map((text, turnId) => ({ saveId: 's', turnId, text, metadata: { speaker: 'Ann' } })));
  return memory;
}

describe('the facts arm', () => {
  it('brings the chunks of the turn a fact comes from, and explains the fact', async () => {
    const memory = await seeded(dbPath());
    expect((await memory.query('s', 'Who plays the violin?', { k: 2 })).map((hit) => hit.turnId)).not.toContain(2);
    const [factId] = await memory.living.addFacts('s', 2, ['Ann is learning to play the violin.']);
    const hits = await memory.query('s', 'Who plays the violin?', { k: 2 });
    expect(hits[0]?.turnId).toBe(2);
    expect(hits[0]?.explanation.fact).toMatchObject({ factId, statement: 'Ann is learning to play the violin.', rank: 1 });
    expect(hits[0]?.score).toBe(hits[0]?.explanation.fact?.score);
    // Off: the chunks alone.
    expect((await memory.query('s', 'Who plays the violin?', { k: 2, facts: null })).map((hit) => hit.turnId)).not.toContain(2);
    await memory.close();
  });

  it('uses only facts within the turn bound', async () => {
    const memory = await seeded(dbPath());
    await memory.living.addFacts('s', 2, ['Ann is learning to play the violin.']);
    const hits = await memory.query('s', 'violin', { k: 4, currentTurnId: 1 });
    expect(hits.every((hit) => hit.turnId <= 1 && hit.explanation.fact === undefined)).toBe(true);
    await memory.close();
  });

  it('stays exact through a rewind, a fork, a re-extraction and a write by another handle', async () => {
    const path = dbPath();
    const memory = await seeded(path);
    await memory.living.addFacts('s', 2, ['Ann is learning to play the violin.']);
    expect((await memory.query('s', 'violin', { k: 1 }))[0]?.turnId).toBe(2);
    await memory.fork('s', 'copy', 1);
    expect((await memory.query('copy', 'violin', { k: 1 }))[0]?.explanation.fact).toBeUndefined();
    await memory.rewind('s', 1);
    expect((await memory.query('s', 'violin', { k: 1 }))[0]?.explanation.fact).toBeUndefined();
    await memory.addMany([{ saveId: 's', turnId: 2, text: 'I finally started lessons, my teacher is strict!' }]);
    await memory.living.addFacts('s', 2, ['Ann is learning to play the violin.']);
    expect((await memory.query('s', 'violin', { k: 1 }))[0]?.turnId).toBe(2);
    await memory.store.living.replaceTurnFacts('s', 2, [{ statement: 'Ann is learning the cello.' }]);
    expect((await memory.query('s', 'violin', { k: 1 }))[0]?.explanation.fact).toBeUndefined();
    const other = await openMemory({ path, logger: silentLogger, embedder: null });
    await other.add({ saveId: 's', turnId: 3, text: 'Dinner was fish stew.' });
    await other.store.living.insertFacts('s', 3, [{ statement: 'Ann cooked stew with a violin-shaped ladle.' }]);
    await other.close();
    expect((await memory.query('s', 'violin', { k: 1 }))[0]?.turnId).toBe(3);
    await memory.close();
  });

  it('refuses a bad weight with a coded error', async () => {
    expect(resolveFactArm(undefined)).toEqual({ weight: 1 });
    expect(resolveFactArm({ weight: 0 })).toBeNull();
    expect(() => resolveFactArm({ weight: -1 })).toThrow(/facts: expected \{ weight: a number >= 0 \}/);
    const memory = await seeded(':memory:');
    await expect(memory.query('s', 'violin', { facts: { weight: Number.NaN } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});

describe('LivingMemory.addFacts', () => {
  it('stores a turn\'s facts, and refuses a bad statement with a coded error, writing nothing', async () => {
    const memory = await seeded(':memory:');
    expect(await memory.living.addFacts('s', 1, [])).toEqual([]);
    await expect(memory.living.addFacts('s', 1, ['ok', '  '])).rejects.toMatchObject({ code: 'INVALID_INPUT', message: /statements\[1\]/ });
    await expect(memory.living.addFacts('s', 1, 'one' as unknown as string[])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.living.addFacts('s', -1, ['one'])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await memory.living.countFacts('s')).toBe(0);
    const ids = await memory.living.addFacts('s', 1, ['one', 'two']);
    expect((await memory.living.facts('s')).map((fact) => [fact.factId, fact.turnId])).toEqual([[ids[1], 1], [ids[0], 1]]);
    await memory.close();
  });
});

describe('liftByFacts', () => {
  const hit = (id: string, turnId: number, score: number): Hit => ({
    id, saveId: 's', turnId, chunkType: 'narrative', text: id, entryId: null, metadata: {}, createdAt: 0, score,
    explanation: { lexical: null, semantic: null, fused: score, boost: 0, rerank: null, focusMatches: [] },
  });
  it('scores each chunk by the best of its own score and its turn\'s fact, keeping the order of ties', () => {
    const fact = (score: number) => ({ factId: 1, statement: 'f', rank: 1, score });
    const hits = [hit('a', 0, 3), hit('b', 1, 2), hit('c', 2, 1)];
    const lifted = liftByFacts(hits, [{ ...hit('d', 5, 0) }], new Map([[2, fact(2.5)], [0, fact(1)], [5, fact(2)]]), 4);
    expect(lifted.map((entry) => [entry.id, entry.score])).toEqual([['a', 3], ['c', 2.5], ['b', 2], ['d', 2]]);
    expect(lifted[0]?.explanation.fact).toBeUndefined();
    expect(lifted[1]?.explanation.fact?.score).toBe(2.5);
  });
});

describe('chunksAtFactTurns', () => {
  // Turn 7 has three chunks, turn 5 two, turn 9 one; the facts rank turn 7 first, then 5.
  const turns = [5, 7, 5, 9, 7, 7];
  const index = new CorpusIndex(0);
  index.add(turns.map((turn, slot) => ({ id: `c${slot}`, position: turn, text: `chunk ${slot}`, embedding: null })));
  const byTurn = new Map([[7, { factId: 1, statement: 'f', rank: 1, score: 2 }], [5, { factId: 2, statement: 'g', rank: 2, score: 1 }]]);
  const stored = new Map(turns.map((turnId, slot) => [`c${slot}`, { id: `c${slot}`, saveId: 's', turnId, chunkType: 'narrative', text: '', entryId: null, metadata: {}, createdAt: 0 }]));

  it('orders the chunks as liftByFacts ranks them and reads only the first k', async () => {
    const reads: string[][] = [];
    const read = async (ids: string[]) => { reads.push(ids); return ids.flatMap((id) => stored.get(id) ?? []); };
    const chunks = await chunksAtFactTurns(index, byTurn, undefined, new Set(['c4']), 3, read);
    expect(chunks.map((chunk) => chunk.id)).toEqual(['c1', 'c5', 'c0']);
    expect(reads).toEqual([['c1', 'c5', 'c0']]);
    // The filter applies: a refused chunk is neither read nor returned.
    expect((await chunksAtFactTurns(index, byTurn, (slot) => slot !== 1, new Set(), 2, read)).map((chunk) => chunk.id)).toEqual(['c4', 'c5']);
  });

  it('reads on past a chunk the store no longer holds', async () => {
    const reads: string[][] = [];
    const read = async (ids: string[]) => { reads.push(ids); return ids.flatMap((id) => (id === 'c5' ? [] : stored.get(id) ?? [])); };
    const chunks = await chunksAtFactTurns(index, byTurn, undefined, new Set(), 3, read);
    expect(chunks.map((chunk) => chunk.id)).toEqual(['c1', 'c4', 'c0']);
    expect(reads).toEqual([['c1', 'c4', 'c5'], ['c0']]);
  });
});

describe('factsVersion', () => {
  for (const path of [':memory:', 'file']) {
    it(`moves with every change of a save's facts (${path === 'file' ? 'SQLite' : 'memory'})`, async () => {
      const memory = await openMemory({ path: path === 'file' ? dbPath() : path, logger: silentLogger, embedder: null });
      const living = memory.store.living;
      const versions = [await living.factsVersion('s')];
      await memory.add({ saveId: 's', turnId: 3, text: 'x' });
      await living.insertFacts('s', 1, [{ statement: 'one' }, { statement: 'two' }]);
      versions.push(await living.factsVersion('s'));
      await living.replaceTurnFacts('s', 1, [{ statement: 'three' }, { statement: 'four' }]);
      versions.push(await living.factsVersion('s'));
      await memory.rewind('s', 0);
      versions.push(await living.factsVersion('s'));
      expect(versions[0]).toEqual({ count: 0, lastFactId: 0 });
      expect(versions[1]?.count).toBe(2);
      expect(versions[2]?.count).toBe(2);
      expect(versions[2]?.lastFactId).toBeGreaterThan(versions[1]?.lastFactId as number);
      expect(versions[3]?.count).toBe(0);
      await memory.close();
    });
  }
});
