// Memory declarations (zod), decay parsing, remember() / recall() over a declaration, and memory.recall's backends.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import { parseDecay } from '../src/recall/decay.js';
import { InMemoryBackend } from '../src/recall/in-memory-backend.js';
import { defineMemory } from '../src/recall/memory-declaration.js';
import { recall } from '../src/recall/recall.js';
import { remember } from '../src/recall/remember.js';
import { StoreMemoryBackend } from '../src/recall/store-memory-backend.js';
import { Tracer } from '../src/tracing/tracer.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;
const HOUR = 3_600_000;

describe('memory declarations', () => {
  it('seed: LongTermKnowledge maps to exactly its fields', () => {
    const declaration = defineMemory({ name: 'LongTermKnowledge', store: 'persistent', backend: 'vector_db', retrieval: 'semantic', decay: 'none' });
    expect(declaration).toEqual({ name: 'LongTermKnowledge', store: 'persistent', backend: 'vector_db', retrieval: 'semantic', decay: 'none', decayMs: null });
    expect(Object.isFrozen(declaration)).toBe(true);
    expect(defineMemory(declaration)).toBe(declaration);
  });

  it('seed: ShortTermCache and WeeklyKnowledge get their retrieval from their backend and their decay in milliseconds', () => {
    expect(defineMemory({ name: 'ShortTermCache', store: 'ephemeral', backend: 'in_memory', decay: '1h' })).toEqual({
      name: 'ShortTermCache', store: 'ephemeral', backend: 'in_memory', retrieval: 'exact', decay: '1h', decayMs: HOUR,
    });
    expect(defineMemory({ name: 'WeeklyKnowledge', store: 'persistent', backend: 'vector_db', decay: '7d' })).toMatchObject({ retrieval: 'semantic', decayMs: 7 * 24 * HOUR });
  });

  it('fills in defaults: persistent, vector_db, semantic, no decay; ephemeral defaults to in_memory and exact', () => {
    expect(defineMemory({ name: 'Notes' })).toEqual({ name: 'Notes', store: 'persistent', backend: 'vector_db', retrieval: 'semantic', decay: 'none', decayMs: null });
    expect(defineMemory({ name: 'Scratch', store: 'ephemeral' })).toMatchObject({ backend: 'in_memory', retrieval: 'exact' });
    expect(defineMemory({ name: 'Scratch', store: 'ephemeral', backend: 'vector_db' })).toMatchObject({ retrieval: 'semantic' });
  });

  it('parses the decay forms 30s, 15m, 1h, 7d and none', () => {
    expect([parseDecay('30s'), parseDecay('15m'), parseDecay('1h'), parseDecay('7d'), parseDecay('none')]).toEqual([30_000, 900_000, HOUR, 604_800_000, null]);
  });

  it('refuses any other decay with an error naming the accepted forms and what arrived', () => {
    for (const decay of ['1 hour', '1H', '0s', '1w', '', '1.5h', '-1h', ' 1h', 'never']) {
      expect(() => defineMemory({ name: 'Cache', decay }), decay).toThrow(expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringContaining(`"none" or a duration: a whole number followed by s, m, h or d, such as "30s", "15m", "1h" or "7d"; got ${JSON.stringify(decay)}`),
      }));
    }
    expect(() => defineMemory({ name: 'Cache', decay: 3600 as unknown as string })).toThrow(/memory Cache: decay: expected "none" or a duration.*got 3600/);
    expect(() => parseDecay('2 days')).toThrow(/decay: expected "none" or a duration/);
  });

  it('explains bad fields, unknown fields and contradictions', () => {
    expect(() => defineMemory({ name: 'X', store: 'forever' as never })).toThrow('memory X: store: expected "persistent" or "ephemeral", got "forever".');
    expect(() => defineMemory({ name: 'X', backend: 'pinecone' as never })).toThrow('backend: expected "in_memory" or "vector_db", got "pinecone"');
    expect(() => defineMemory({ name: 'X', retrieval: 'fuzzy' as never })).toThrow('retrieval: expected "semantic" or "exact", got "fuzzy"');
    expect(() => defineMemory({ name: '' })).toThrow('memory declaration: name: expected a non-empty name');
    expect(() => defineMemory({ store: 'persistent' } as never)).toThrow('name: expected the memory\'s name as a string, got nothing');
    expect(() => defineMemory({ name: 'X', ttl: '1h' } as never)).toThrow(/Unrecognized key: "ttl"/);
    expect(() => defineMemory('LongTermKnowledge' as never)).toThrow(/expected an object/);
    expect(() => defineMemory({ name: 'X', store: 'persistent', backend: 'in_memory' })).toThrow(/in_memory" keeps nothing across a restart/);
    expect(() => defineMemory({ name: 'X', store: 'ephemeral', backend: 'in_memory', retrieval: 'semantic' })).toThrow(/matches substrings only/);
  });
});

describe('remember() and recall() over a declaration', () => {
  const LongTermKnowledge = defineMemory({ name: 'LongTermKnowledge', store: 'persistent', backend: 'vector_db', retrieval: 'semantic', decay: 'none' });
  const ShortTermCache = defineMemory({ name: 'ShortTermCache', store: 'ephemeral', backend: 'in_memory', decay: '1h' });
  const WeeklyKnowledge = defineMemory({ name: 'WeeklyKnowledge', store: 'persistent', backend: 'vector_db', decay: '7d' });

  async function open(path = join(dir, `declarations-${++counter}.db`), clock = manualClock(1_704_067_200_000)) {
    const tracer = new Tracer({ clock: clock.now });
    const memory = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 256 }), logger: silentLogger, clock: clock.now, tracer });
    return { memory, clock, tracer, path };
  }

  it('seed: remember(ContractSummary) -> LongTermKnowledge, then recall("contract types") from LongTermKnowledge', async () => {
    const { memory, tracer } = await open();
    const contractSummary = { parties: ['Acme Corp', 'Beta LLC'], kind: 'NDA', summary: 'Compares contract types and their risks' };
    const entry = await remember(memory, LongTermKnowledge, 'contract_summary', contractSummary, { source: 'Summarize' });
    expect(entry.metadata).toEqual({ source: 'Summarize', scope: 'LongTermKnowledge' });
    await remember(memory, WeeklyKnowledge, 'contract_digest', 'contract types of the week');
    const results = await recall(memory, LongTermKnowledge, 'contract types');
    expect(results.map((result) => [result.key, result.value])).toEqual([['contract_summary', contractSummary]]);
    expect(tracer.events.map((event) => event.event_type)).toEqual(['memory_write', 'memory_write', 'memory_read']);
    expect(tracer.events[2]?.data).toEqual({ query: 'contract types', results_count: 1, top_k: 5 });
    await memory.close();
  });

  it('always stores under the declaration\'s name, whatever scope the metadata names', async () => {
    const { memory } = await open();
    await remember(memory, LongTermKnowledge, 'k', 'v', { scope: 'Elsewhere' });
    expect(await memory.recall.count('LongTermKnowledge')).toBe(1);
    expect(await memory.recall.count('Elsewhere')).toBe(0);
    await memory.close();
  });

  it('expires entries after the declaration\'s decay, in persistent and ephemeral memories alike', async () => {
    const { memory, clock } = await open();
    await remember(memory, WeeklyKnowledge, 'weekly_report', 'Sales rose');
    await remember(memory, ShortTermCache, 'last_query', 'contract risk');
    clock.advance(HOUR);
    expect((await recall(memory, ShortTermCache, 'last_query')).map((entry) => entry.key)).toEqual(['last_query']);
    clock.advance(1);
    expect(await recall(memory, ShortTermCache, 'last_query')).toEqual([]);
    expect(await memory.recall.ephemeral.count()).toBe(0);
    expect((await recall(memory, WeeklyKnowledge, 'weekly_report')).map((entry) => entry.key)).toEqual(['weekly_report']);
    clock.advance(7 * 24 * HOUR);
    expect(await recall(memory, WeeklyKnowledge, 'weekly_report')).toEqual([]);
    expect(await memory.recall.count()).toBe(0);
    await memory.close();
  });

  it('picks the backend the declaration asks for', async () => {
    const { memory } = await open();
    expect(memory.recall.backendFor(LongTermKnowledge)).toBe(memory.recall.persistent.semantic);
    expect(memory.recall.backendFor(defineMemory({ name: 'Facts', retrieval: 'exact' }))).toBe(memory.recall.persistent.exact);
    expect(memory.recall.backendFor(ShortTermCache)).toBe(memory.recall.ephemeral);
    const vectorScratch = memory.recall.backendFor(defineMemory({ name: 'Scratch', store: 'ephemeral', backend: 'vector_db' }));
    expect(vectorScratch).toBeInstanceOf(StoreMemoryBackend);
    expect(vectorScratch).not.toBe(memory.recall.persistent.semantic);
    await remember(memory, { name: 'Scratch', store: 'ephemeral', backend: 'vector_db' }, 'idea', 'a lighthouse that sings');
    expect((await recall(memory, { name: 'Scratch', store: 'ephemeral', backend: 'vector_db' }, 'singing lighthouse')).map((entry) => entry.key)).toEqual(['idea']);
    expect(await memory.recall.count()).toBe(0);
    await memory.close();
  });

  it('keeps persistent declarations across a reopen and forgets ephemeral ones', async () => {
    const first = await open();
    await remember(first.memory, LongTermKnowledge, 'contract_type', 'NDA');
    await remember(first.memory, ShortTermCache, 'draft', 'half a thought');
    await first.memory.close();
    const again = await open(first.path);
    expect((await recall(again.memory, LongTermKnowledge, 'contract_type')).map((entry) => entry.value)).toEqual(['NDA']);
    expect(await recall(again.memory, ShortTermCache, 'draft')).toEqual([]);
    await again.memory.close();
  });

  it('uses the seed\'s exact scoring for an exact declaration on the persistent store', async () => {
    const { memory } = await open();
    const Facts = defineMemory({ name: 'Facts', retrieval: 'exact' });
    await remember(memory, Facts, 'contract_type', 'NDA');
    await remember(memory, Facts, 'contract_date', '2024-01-15');
    await remember(memory, Facts, 'parties', 'Acme Corp, Beta LLC');
    expect((await recall(memory, Facts, 'contract', { topK: 2 })).map(({ key, value, score }) => ({ key, value, score }))).toEqual([
      { key: 'contract_type', value: 'NDA', score: 0.7 },
      { key: 'contract_date', value: '2024-01-15', score: 0.7 },
    ]);
    await memory.close();
  });

  it('works on a MemoryBackend given directly, as the seed\'s runtime does', async () => {
    const backend = new InMemoryBackend();
    await remember(backend, LongTermKnowledge, 'contract_summary', { risk: 'low' }, { source: 'Summarize' });
    expect((await recall(backend, LongTermKnowledge, 'contract')).map((entry) => entry.metadata)).toEqual([{ source: 'Summarize', scope: 'LongTermKnowledge' }]);
    expect(await recall(backend, { name: 'Other', store: 'ephemeral' }, 'contract')).toEqual([]);
    await expect(remember({} as never, LongTermKnowledge, 'k', 'v')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(remember(backend, { name: 'X', decay: '1 day' }, 'k', 'v')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await backend.count()).toBe(1);
  });

  it('survives a process restart: a child process remembers, this one recalls every value exactly', async () => {
    const path = join(dir, `restart-${++counter}.db`);
    const values = { contract_type: 'NDA', risk_score: 0.35, parties: ['Acme Corp', 'Beta LLC'], signed: false, notes: null, terms: { years: 2, clauses: [{ name: 'confidentiality' }] } };
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'remember-child.ts'), path, JSON.stringify(values)], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.stdout).toBe('done\n');
    const memory = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 256 }), logger: silentLogger });
    for (const [key, value] of Object.entries(values)) {
      const [entry] = await recall(memory, LongTermKnowledge, key, { topK: 1 });
      expect(entry).toMatchObject({ key, value, score: 1, metadata: { source: 'child', scope: 'LongTermKnowledge' } });
    }
    expect((await recall(memory, LongTermKnowledge, 'confidentiality clauses', { topK: 1 })).map((entry) => entry.key)).toEqual(['terms']);
    await memory.close();
  });
});
