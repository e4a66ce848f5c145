// The remember / recall contract, written once: every MemoryBackend runs it through runRecallContract(name, factory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../core/clock.js';
import type { Clock } from '../../core/clock.js';
import type { JsonValue } from '../../core/types.js';
import type { KeyedMemoryBackend, RetrievalMode } from '../../recall/memory-backend.js';
import type { MemoryEntry } from '../../recall/memory-entry.js';
import { Tracer } from '../../tracing/tracer.js';

/** What a factory is given: the clock and tracer the backend must use. */
export interface RecallContext {
  clock: Clock;
  tracer: Tracer;
}

/** A backend made for one test; `reopen` (persistent backends) opens the same data again, as after a restart. */
export interface RecallHandle {
  backend: KeyedMemoryBackend;
  reopen?(): Promise<KeyedMemoryBackend>;
  close?(): Promise<void>;
}

/** Makes a fresh, empty backend for each test. `retrieval` says which ranking examples apply. */
export interface RecallBackendFactory {
  retrieval: RetrievalMode;
  create(context: RecallContext): Promise<RecallHandle>;
}

/** 2024-01-01T00:00:00Z, the seed's example timestamp, in milliseconds. */
const SEED_TIME = 1_704_067_200_000;

const HOUR = 3_600_000;

/** The key, value and score of each entry, for comparing result lists. */
const summary = (entries: readonly MemoryEntry[]) => entries.map(({ key, value, score }) => ({ key, value, score }));
const keys = (entries: readonly MemoryEntry[]) => entries.map((entry) => entry.key);

class NotPlain {
  readonly field = 1;
}

/**
 * Runs the behaviour every MemoryBackend must have: the seed's examples with their expected results, scopes,
 * replacement, JSON round trips, decay with an injected clock, tracing, and (for persistent backends) a restart.
 * Examples of the seed's substring scoring run when `retrieval` is `exact`; those of the hybrid search when it is
 * `semantic`.
 *
 * @example
 * ```ts
 * runRecallContract('in-memory', { retrieval: 'exact', create: async ({ clock, tracer }) => ({ backend: new InMemoryBackend({ clock, tracer }) }) });
 * ```
 */
export function runRecallContract(name: string, factory: RecallBackendFactory): void {
  describe(`recall contract: ${name} (${factory.retrieval})`, () => {
    let clock: ReturnType<typeof manualClock>;
    let tracer: Tracer;
    let handle: RecallHandle;
    let memory: KeyedMemoryBackend;

    beforeEach(async () => {
      clock = manualClock(SEED_TIME);
      tracer = new Tracer({ clock: clock.now });
      handle = await factory.create({ clock: clock.now, tracer });
      memory = handle.backend;
    });
    afterEach(async () => {
      await handle.close?.();
    });

    /** The seed's three contract entries, stored at one instant (the clock does not move). */
    async function storeContractExample(): Promise<void> {
      await memory.store('contract_type', 'NDA');
      await memory.store('contract_date', '2024-01-15');
      await memory.store('parties', 'Acme Corp, Beta LLC');
    }

    describe('storing', () => {
      it('returns a frozen entry: key, value, metadata, score 0 and the time in seconds', async () => {
        const metadata = { source: 'Extract', confidence: 0.95, tags: ['legal'] };
        const value = { parties: ['Acme Corp', 'Beta LLC'] };
        clock.set(SEED_TIME + 500);
        const entry = await memory.store('contract_type', value, metadata);
        expect(entry).toEqual({ key: 'contract_type', value, metadata, score: 0, timestamp: 1704067200.5, expiresAt: null });
        expect(Object.isFrozen(entry)).toBe(true);
        expect(Object.isFrozen(entry.value)).toBe(true);
        expect(Object.isFrozen((entry.value as { parties: string[] }).parties)).toBe(true);
        expect(Object.isFrozen(entry.metadata)).toBe(true);
        expect(Object.isFrozen(value)).toBe(false);
        value.parties.push('Gamma GmbH');
        metadata.tags.push('changed');
        const [found] = await memory.retrieve('contract_type', 1);
        expect(found?.value).toEqual({ parties: ['Acme Corp', 'Beta LLC'] });
        expect(found?.metadata).toEqual({ source: 'Extract', confidence: 0.95, tags: ['legal'] });
        expect(Object.isFrozen(found)).toBe(true);
        expect(Object.isFrozen(found?.value)).toBe(true);
      });

      it('refuses an empty key with INVALID_INPUT and writes nothing', async () => {
        await expect(memory.store('', 'x')).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('Memory key must not be empty') });
        await expect(memory.store(42 as unknown as string, 'x')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        expect(await memory.count()).toBe(0);
      });

      it('round-trips values of every JSON type exactly', async () => {
        const values: Record<string, JsonValue> = {
          text: 'Non-Disclosure Agreement',
          empty_text: '',
          unicode: 'Kaël → 東京 "quoted" \\ back\nslash',
          integer: 42,
          float: 0.35,
          negative: -1.5e-7,
          big: 9007199254740991,
          yes: true,
          no: false,
          nothing: null,
          list: [1, 'two', null, [3], { four: 4 }],
          empty_list: [],
          empty_object: {},
          nested: { parties: ['Acme Corp', 'Beta LLC'], risk_score: 0.35, terms: { years: 2, renew: false, note: null } },
        };
        for (const [key, value] of Object.entries(values)) await memory.store(key, value, { scope: 'Types' });
        expect(await memory.count('Types')).toBe(Object.keys(values).length);
        for (const [key, value] of Object.entries(values)) {
          const [found] = await memory.retrieve(key, 1, 'Types');
          expect(found?.key).toBe(key);
          expect(found?.value).toStrictEqual(value);
        }
      });

      it('refuses values that do not round-trip as JSON, naming where, and writes nothing', async () => {
        const cycle: Record<string, unknown> = { name: 'loop' };
        cycle['self'] = cycle;
        const sparse: number[] = [1];
        sparse[2] = 3;
        const refused: [unknown, string][] = [
          [() => 1, 'a function'],
          [10n, 'a BigInt'],
          [cycle, 'a cycle'],
          [undefined, 'undefined'],
          [Number.NaN, 'NaN'],
          [Number.POSITIVE_INFINITY, 'Infinity'],
          [new Date(0), 'a Date'],
          [new Map([['a', 1]]), 'a Map'],
          [new NotPlain(), 'an instance of NotPlain'],
          [sparse, 'a hole in a sparse array'],
          [{ ok: 1, nested: { bad: Symbol('s') } }, 'value.nested.bad'],
          [{ list: [1, undefined] }, 'value.list[1]'],
        ];
        for (const [value, expected] of refused) {
          await expect(memory.store('bad', value as JsonValue), expected).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(expected) });
        }
        await expect(memory.store('bad', 'ok', { when: new Date(0) } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('metadata.when') });
        expect(await memory.count()).toBe(0);
      });

      it('refuses metadata that is not a plain object, and a scope that is not a non-empty string', async () => {
        await expect(memory.store('k', 'v', ['a'] as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        await expect(memory.store('k', 'v', { scope: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('metadata.scope') });
        await expect(memory.store('k', 'v', { scope: 7 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        await expect(memory.retrieve('k', 5, '')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        expect(await memory.count()).toBe(0);
      });

      it('replaces an entry stored again under the same key (and scope)', async () => {
        await memory.store('contract_type', 'NDA', { scope: 'LegalKnowledge' });
        clock.advance(1000);
        await memory.store('contract_type', 'Master Services Agreement', { scope: 'LegalKnowledge', source: 'Review' });
        expect(await memory.count()).toBe(1);
        const [found] = await memory.retrieve('contract_type', 5, 'LegalKnowledge');
        expect(found).toMatchObject({ key: 'contract_type', value: 'Master Services Agreement', metadata: { scope: 'LegalKnowledge', source: 'Review' }, timestamp: 1704067201 });
      });
    });

    describe('scopes', () => {
      it('keeps one key per scope: the same key in two scopes is two entries', async () => {
        await memory.store('summary', 'Quantum computing trends', { scope: 'ResearchKnowledge' });
        await memory.store('summary', 'Smith v. Jones', { scope: 'LegalKnowledge' });
        expect(await memory.count()).toBe(2);
        expect(summary(await memory.retrieve('summary', 5, 'LegalKnowledge'))).toEqual([{ key: 'summary', value: 'Smith v. Jones', score: 1 }]);
        expect((await memory.retrieve('summary', 5)).map((entry) => entry.value).sort()).toEqual(['Quantum computing trends', 'Smith v. Jones']);
      });

      it('seed: retrieving with scope ResearchKnowledge returns research_summary only', async () => {
        await memory.store('research_summary', 'Quantum computing trends...', { scope: 'ResearchKnowledge' });
        await memory.store('legal_precedent', 'Smith v. Jones...', { scope: 'LegalKnowledge' });
        await memory.store('quantum_law', 'Quantum rules for courts', { scope: 'LegalKnowledge' });
        const results = await memory.retrieve('quantum', 5, 'ResearchKnowledge');
        expect(keys(results)).toEqual(['research_summary']);
        expect(results[0]?.metadata).toEqual({ scope: 'ResearchKnowledge' });
      });

      it('seed: clearing ResearchKnowledge removes research_summary and keeps legal_precedent', async () => {
        await memory.store('research_summary', 'Quantum computing trends...', { scope: 'ResearchKnowledge' });
        await memory.store('legal_precedent', 'Smith v. Jones...', { scope: 'LegalKnowledge' });
        expect(await memory.clear('ResearchKnowledge')).toBe(1);
        expect(await memory.retrieve('research_summary', 5)).toEqual([]);
        expect(keys(await memory.retrieve('legal_precedent', 5))).toEqual(['legal_precedent']);
        expect(await memory.count('ResearchKnowledge')).toBe(0);
        expect(await memory.count('LegalKnowledge')).toBe(1);
        expect(await memory.clear('NeverUsed')).toBe(0);
      });

      it('clears everything when no scope is given, returning the count', async () => {
        await storeContractExample();
        await memory.store('research_summary', 'Quantum computing trends...', { scope: 'ResearchKnowledge' });
        expect(await memory.clear()).toBe(4);
        expect(await memory.count()).toBe(0);
        expect(await memory.retrieve('contract', 5)).toEqual([]);
        expect(await memory.clear()).toBe(0);
      });

      it('seed usage: stores a contract analysis in LegalKnowledge, clears that scope, then everything', async () => {
        await memory.store(
          'contract_analysis_summary',
          { parties: ['Acme Corp', 'Beta LLC'], risk_score: 0.35, key_findings: 'Standard NDA with no unusual clauses' },
          { scope: 'LegalKnowledge', source: 'AnalyzeContract', confidence: 0.92 },
        );
        await memory.store('research_summary', 'Quantum computing trends...', { scope: 'ResearchKnowledge' });
        const results = await memory.retrieve('contract risk', 3, 'LegalKnowledge');
        // Exact retrieval: "contract risk" is a substring of neither the key nor the value, so nothing matches.
        // Semantic retrieval: "contract" is in the key, "risk" in the value: the entry comes back.
        expect(keys(results)).toEqual(factory.retrieval === 'exact' ? [] : ['contract_analysis_summary']);
        expect(await memory.clear('LegalKnowledge')).toBe(1);
        expect(await memory.clear()).toBe(1);
      });
    });

    describe('ranking', () => {
      it('puts an exact key match first, with score 1', async () => {
        await memory.store('risk', 'low');
        await memory.store('risk_assessment', 'risk risk risk: the risk is high');
        await memory.store('notes', 'the risk of delay');
        const results = await memory.retrieve('RISK', 5);
        expect(results[0]).toMatchObject({ key: 'risk', score: 1 });
        expect(results.length).toBeGreaterThanOrEqual(2);
      });

      it('returns at most topK entries (default 5) and refuses a topK out of 1..1000', async () => {
        for (let index = 0; index < 8; index++) await memory.store(`note_${index}`, `note number ${index}`);
        expect(await memory.retrieve('note', 3)).toHaveLength(3);
        expect(await memory.retrieve('note')).toHaveLength(5);
        for (const topK of [0, -1, 2.5]) await expect(memory.retrieve('note', topK)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        await expect(memory.retrieve('note', 1001)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'k', maximum: 1000 } });
      });

      it('is deterministic: the same query twice gives the same entries in the same order', async () => {
        for (let index = 0; index < 20; index++) await memory.store(`harbour_${index % 7}_${index}`, `boats in the harbour ${index % 3 === 0 ? 'at dawn' : ''}`, { scope: 'Port' });
        await memory.store('harbour', 'the harbour itself', { scope: 'Port' });
        const first = await memory.retrieve('harbour', 10, 'Port');
        expect(keys(await memory.retrieve('harbour', 10, 'Port'))).toEqual(keys(first));
        expect(first.length).toBeGreaterThan(0);
        const scores = first.map((entry) => entry.score);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
      });
    });

    describe('decay', () => {
      it('returns an entry until its decay has passed, then never again, and purges it', async () => {
        const entry = await memory.store('session_token', 'abc', { scope: 'ShortTermCache' }, { decayMs: HOUR });
        expect(entry.expiresAt).toBe(entry.timestamp + 3600);
        await memory.store('session_owner', 'Kaël', { scope: 'ShortTermCache' });
        clock.advance(HOUR);
        expect(keys(await memory.retrieve('session_token', 5, 'ShortTermCache'))[0]).toBe('session_token');
        clock.advance(1);
        expect(keys(await memory.retrieve('session', 5, 'ShortTermCache'))).toEqual(['session_owner']);
        expect(keys(await memory.retrieve('session_token', 5))).not.toContain('session_token');
        expect(await memory.count('ShortTermCache')).toBe(1);
        expect(await memory.purgeExpired()).toBe(0);
      });

      it('filters expired entries before ranking: topK is filled by live ones', async () => {
        await memory.store('alpha', 'the best match, soon gone', {}, { decayMs: 1000 });
        await memory.store('alpha_backup', 'a live match');
        await memory.store('alpha_old', 'another live match');
        clock.advance(1001);
        expect(keys(await memory.retrieve('alpha', 1))).toHaveLength(1);
        expect(keys(await memory.retrieve('alpha', 5)).sort()).toEqual(['alpha_backup', 'alpha_old']);
      });

      it('purges expired entries on an explicit purge and does not count them when clearing', async () => {
        await memory.store('a', 'x', { scope: 'Cache' }, { decayMs: 30_000 });
        await memory.store('b', 'x', { scope: 'Cache' }, { decayMs: 30_000 });
        await memory.store('c', 'x', { scope: 'Cache' });
        clock.advance(30_001);
        expect(await memory.purgeExpired()).toBe(2);
        expect(await memory.purgeExpired()).toBe(0);
        await memory.store('d', 'x', { scope: 'Cache' }, { decayMs: 1 });
        clock.advance(2);
        expect(await memory.clear('Cache')).toBe(1);
      });

      it('refuses a decay that is not a whole number of milliseconds > 0', async () => {
        for (const decayMs of [0, -5, 1.5, Number.NaN]) await expect(memory.store('k', 'v', {}, { decayMs })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        expect(await memory.count()).toBe(0);
      });
    });

    describe('tracing', () => {
      it('seed: emits memory_write { key, value_type } and memory_read { query, results_count, top_k }', async () => {
        await storeContractExample();
        const results = await memory.retrieve('contract');
        expect(tracer.events[0]).toEqual({ event_type: 'memory_write', timestamp: 1704067200, data: { key: 'contract_type', value_type: 'str' } });
        expect(tracer.events).toHaveLength(4);
        expect(tracer.events[3]).toEqual({
          event_type: 'memory_read',
          timestamp: 1704067200,
          data: { query: 'contract', results_count: factory.retrieval === 'exact' ? 2 : results.length, top_k: 5 },
        });
        expect(results.length).toBeGreaterThanOrEqual(2);
      });

      it('seed: the example trace, with its exact times and data', async () => {
        clock.set(SEED_TIME - 10_000);
        await memory.store('contract_types_overview', 'The usual contract types: NDA, MSA, SOW', { scope: 'LongTermKnowledge' });
        await memory.store('contract_types_risks', 'Risks differ between contract types', { scope: 'LongTermKnowledge' });
        clock.set(SEED_TIME + 500);
        await memory.store(
          'contract_summary',
          { parties: ['Acme Corp', 'Beta LLC'], kind: 'NDA', note: 'one of the standard contract types' },
          { scope: 'LongTermKnowledge', source: 'Summarize' },
        );
        clock.set(SEED_TIME + 5300);
        const results = await memory.retrieve('contract types', 5, 'LongTermKnowledge');
        expect(results).toHaveLength(3);
        expect(tracer.events.slice(-2)).toEqual([
          { event_type: 'memory_write', timestamp: 1704067200.5, data: { key: 'contract_summary', value_type: 'dict' } },
          { event_type: 'memory_read', timestamp: 1704067205.3, data: { query: 'contract types', results_count: 3, top_k: 5 } },
        ]);
        expect(Object.isFrozen(tracer.events[0])).toBe(true);
      });

      it('names value types as the seed does: str, int, float, bool, NoneType, list, dict', async () => {
        const values: [string, JsonValue][] = [['str', 'x'], ['int', 3], ['float', 0.5], ['bool', true], ['NoneType', null], ['list', [1]], ['dict', { a: 1 }]];
        for (const [type, value] of values) await memory.store(`value_${type}`, value);
        expect(tracer.events.map((event) => event.data['value_type'])).toEqual(values.map(([type]) => type));
      });

      it('traces nothing for a refused write', async () => {
        await expect(memory.store('', 'x')).rejects.toThrow();
        expect(tracer.events).toEqual([]);
      });
    });

    if (factory.retrieval === 'exact') {
      describe("the seed's substring scoring", () => {
        it('seed: "contract", top_k=2 gives contract_type (NDA, 0.7) then contract_date (2024-01-15, 0.7)', async () => {
          await storeContractExample();
          const results = await memory.retrieve('contract', 2);
          expect(summary(results)).toEqual([
            { key: 'contract_type', value: 'NDA', score: 0.7 },
            { key: 'contract_date', value: '2024-01-15', score: 0.7 },
          ]);
          expect(results.map(({ metadata, timestamp, expiresAt }) => ({ metadata, timestamp, expiresAt }))).toEqual([
            { metadata: {}, timestamp: 1704067200, expiresAt: null },
            { metadata: {}, timestamp: 1704067200, expiresAt: null },
          ]);
        });

        it('sorts equal scores newest first when the clock moves between writes', async () => {
          await memory.store('contract_type', 'NDA');
          clock.advance(1000);
          await memory.store('contract_date', '2024-01-15');
          clock.advance(1000);
          await memory.store('parties', 'Acme Corp, Beta LLC');
          expect(keys(await memory.retrieve('contract', 2))).toEqual(['contract_date', 'contract_type']);
        });

        it('scores 1.0 exact key, 0.7 key contains, 0.4 value contains, case-insensitively, and leaves out no match', async () => {
          await memory.store('contract_type', 'Non-Disclosure Agreement');
          await memory.store('contract_types_list', 'NDA, MSA');
          await memory.store('memo', 'see the CONTRACT_TYPE field');
          await memory.store('unrelated', 'weather report');
          expect(summary(await memory.retrieve('Contract_Type', 5))).toEqual([
            { key: 'contract_type', value: 'Non-Disclosure Agreement', score: 1.0 },
            { key: 'contract_types_list', value: 'NDA, MSA', score: 0.7 },
            { key: 'memo', value: 'see the CONTRACT_TYPE field', score: 0.4 },
          ]);
        });

        it('seed table: "NDA" is not a substring of "Non-Disclosure Agreement", so it does not match; "disclosure" does (0.4)', async () => {
          await memory.store('contract_type', 'Non-Disclosure Agreement');
          expect(await memory.retrieve('NDA', 5)).toEqual([]);
          expect(summary(await memory.retrieve('disclosure', 5))).toEqual([{ key: 'contract_type', value: 'Non-Disclosure Agreement', score: 0.4 }]);
        });

        it('matches a non-string value through its JSON text', async () => {
          await memory.store('analysis', { parties: ['Acme Corp', 'Beta LLC'], risk_score: 0.35 });
          await memory.store('answer', 42);
          await memory.store('flag', true);
          await memory.store('missing', null);
          expect(keys(await memory.retrieve('"risk_score":0.35', 5))).toEqual(['analysis']);
          expect(keys(await memory.retrieve('beta llc', 5))).toEqual(['analysis']);
          expect(keys(await memory.retrieve('42', 5))).toEqual(['answer']);
          expect(keys(await memory.retrieve('true', 5))).toEqual(['flag']);
          expect(keys(await memory.retrieve('null', 5))).toEqual(['missing']);
        });

        it('matches every entry on an empty query (0.7: every key contains ""), newest first', async () => {
          await memory.store('a', 1);
          clock.advance(10);
          await memory.store('b', 2);
          expect(summary(await memory.retrieve('', 5))).toEqual([{ key: 'b', value: 2, score: 0.7 }, { key: 'a', value: 1, score: 0.7 }]);
        });

        it('seed: "knowledge" over all scopes finds nothing with the seed\'s values, both entries once their values hold it', async () => {
          await memory.store('research_summary', 'Quantum computing trends...', { scope: 'ResearchKnowledge' });
          await memory.store('legal_precedent', 'Smith v. Jones...', { scope: 'LegalKnowledge' });
          expect(await memory.retrieve('knowledge', 5, null)).toEqual([]);
          await memory.store('research_summary', 'Quantum computing trends: knowledge of qubits', { scope: 'ResearchKnowledge' });
          await memory.store('legal_precedent', 'Smith v. Jones: common-law knowledge', { scope: 'LegalKnowledge' });
          expect(keys(await memory.retrieve('knowledge', 5, null))).toEqual(['research_summary', 'legal_precedent']);
        });
      });
    }

    if (factory.retrieval === 'semantic') {
      describe('semantic retrieval (hybrid search)', () => {
        it('seed: "contract", top_k=2 gives the two contract entries, scored in (0, 1]', async () => {
          await storeContractExample();
          const results = await memory.retrieve('contract', 2);
          expect(keys(results).sort()).toEqual(['contract_date', 'contract_type']);
          for (const entry of results) expect(entry.score).toBeGreaterThan(0);
          for (const entry of results) expect(entry.score).toBeLessThanOrEqual(1);
        });

        it('finds an entry by words of its value, in any order, and by words of its key', async () => {
          await memory.store('contract_analysis_summary', { parties: ['Acme Corp', 'Beta LLC'], key_findings: 'Standard NDA with no unusual clauses' }, { scope: 'LegalKnowledge' });
          await memory.store('weather', 'Rain over the harbour', { scope: 'LegalKnowledge' });
          expect(keys(await memory.retrieve('clauses unusual', 1, 'LegalKnowledge'))).toEqual(['contract_analysis_summary']);
          expect(keys(await memory.retrieve('analysis of the contract', 1, 'LegalKnowledge'))).toEqual(['contract_analysis_summary']);
        });

        it('returns nothing for a query that shares no word and no likeness with any entry', async () => {
          await storeContractExample();
          expect(await memory.retrieve('zebra', 5)).toEqual([]);
        });

        it('scores an entry first in every arm 1, and orders by score', async () => {
          await storeContractExample();
          const [first] = await memory.retrieve('Acme Corp Beta LLC', 5);
          expect(first).toMatchObject({ key: 'parties', score: 1 });
        });
      });
    }

    describe('by key (get, keys, forget)', () => {
      it('gets the entry stored under exactly a key in a scope, and null for another case, scope or an absent key', async () => {
        await memory.store('mood', { toward: 'Rowan', is: 'wary' }, { scope: 'marta', source: 'scene' });
        await memory.store('mood', 'cheerful', { scope: 'oriel' });
        expect(await memory.get('mood', 'marta')).toEqual({ key: 'mood', value: { toward: 'Rowan', is: 'wary' }, metadata: { scope: 'marta', source: 'scene' }, score: 1, timestamp: 1704067200, expiresAt: null });
        expect((await memory.get('mood', 'oriel'))?.value).toBe('cheerful');
        expect(await memory.get('Mood', 'marta')).toBeNull();
        expect(await memory.get('mood', 'rowan')).toBeNull();
        expect(await memory.get('debt', 'marta')).toBeNull();
      });

      it('lists a scope\'s keys in the order they were first stored (a replacement keeps its place)', async () => {
        for (const key of ['b', 'a', 'c']) await memory.store(key, key, { scope: 'marta' });
        await memory.store('a', 'again', { scope: 'marta' });
        await memory.store('z', 'elsewhere', { scope: 'oriel' });
        expect(await memory.keys('marta')).toEqual(['b', 'a', 'c']);
        expect(await memory.keys('nobody')).toEqual([]);
      });

      it('forgets exact keys of one scope only, returning how many went; the rest stay findable', async () => {
        await memory.store('mood', 'wary', { scope: 'marta' });
        await memory.store('debt', 'three silver', { scope: 'marta' });
        await memory.store('mood', 'cheerful', { scope: 'oriel' });
        expect(await memory.forget(['mood', 'absent', 'MOOD'], 'marta')).toBe(1);
        expect(await memory.get('mood', 'marta')).toBeNull();
        expect(keys(await memory.retrieve('mood', 5))).toEqual(['mood']);
        expect((await memory.retrieve('mood', 5))[0]?.value).toBe('cheerful');
        expect(await memory.keys('marta')).toEqual(['debt']);
        expect(await memory.forget([], 'marta')).toBe(0);
      });

      it('leaves out expired entries, and refuses a missing scope or an empty key with INVALID_INPUT', async () => {
        await memory.store('token', 'abc', { scope: 'cache' }, { decayMs: HOUR });
        expect(await memory.keys('cache')).toEqual(['token']);
        clock.advance(HOUR + 1);
        expect(await memory.get('token', 'cache')).toBeNull();
        expect(await memory.keys('cache')).toEqual([]);
        await expect(memory.get('token', undefined as unknown as string)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        await expect(memory.forget([''], 'cache')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      });
    });

    it('keeps scopes apart under a query that matches in both', async () => {
      await memory.store('research_summary', 'Quantum computing trends', { scope: 'ResearchKnowledge' });
      await memory.store('legal_quantum', 'Quantum of damages in Smith v. Jones', { scope: 'LegalKnowledge' });
      expect(keys(await memory.retrieve('quantum', 5, 'LegalKnowledge'))).toEqual(['legal_quantum']);
      expect(keys(await memory.retrieve('quantum', 5)).sort()).toEqual(['legal_quantum', 'research_summary']);
    });

    it('survives a restart when the backend is persistent: values, metadata, times and decay', async () => {
      if (handle.reopen === undefined) return;
      const summaryValue = { parties: ['Acme Corp', 'Beta LLC'], risk_score: 0.35, nested: { ok: true, none: null } };
      await memory.store('contract_summary', summaryValue, { scope: 'LongTermKnowledge', source: 'Summarize' });
      await memory.store('session_token', 'abc', { scope: 'ShortTermCache' }, { decayMs: HOUR });
      const again = await handle.reopen();
      const [found] = await again.retrieve('contract_summary', 5, 'LongTermKnowledge');
      expect(found).toEqual({ key: 'contract_summary', value: summaryValue, metadata: { scope: 'LongTermKnowledge', source: 'Summarize' }, score: 1, timestamp: 1704067200, expiresAt: null });
      expect(keys(await again.retrieve('session_token', 5))).toEqual(['session_token']);
      clock.advance(HOUR + 1);
      expect(await again.retrieve('session_token', 5)).toEqual([]);
      expect(await again.count()).toBe(1);
      if (factory.retrieval === 'semantic') expect(keys(await again.retrieve('risk of the parties', 1, 'LongTermKnowledge'))).toEqual(['contract_summary']);
    });
  });
}
