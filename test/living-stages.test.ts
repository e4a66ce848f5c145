// The three LLM stages with a scripted model: what they ask, what they accept, and that a failure yields nothing.
import { describe, expect, it } from 'vitest';
import type { Belief, Fact } from '../src/core/living-types.js';
import { ScriptedLlm } from '../src/llms/scripted/index.js';
import { consolidate, runConsolidation } from '../src/living/consolidate.js';
import { extractFacts, runFactExtraction } from '../src/living/extract-facts.js';
import { reflect } from '../src/living/reflect.js';

const fact = (factId: number, statement: string, entities: string[], who = entities[0] ?? ''): Fact =>
  ({ factId, turnId: 7, statement, factType: 'experience', who, what: '', when: '', where: '', why: '', entities });
const belief = (beliefId: number, subject: string, statement: string, sourceTurns: number[] = [1]): Belief => ({
  beliefId, statement, subject, proofCount: sourceTurns.length, sources: sourceTurns.map((turnId, index) => ({ factId: 100 + index, turnId })), history: [],
  createdTurnId: 1, updatedTurnId: Math.max(...sourceTurns), stale: false, deletedTurnId: null,
});
const failures = [new Error('connection refused'), 'Sorry, I cannot help with that.', '{"unexpected": true}'];

describe('extractFacts', () => {
  it('asks for atomic, verifiable facts with the known names, the time hint and the cap', async () => {
    const llm = new ScriptedLlm([{ facts: [] }]);
    await extractFacts(llm, 'Kaël hides the key.', { knownEntities: ['Kaël', 'kaël', 'Rowan'], whenHint: 'dawn of the third day', maxFacts: 5 });
    const [call] = llm.calls;
    expect(call?.schemaName).toBe('facts');
    expect(call?.messages[0]?.content).toMatch(/Atomic: one fact per statement/);
    expect(call?.messages[0]?.content).toMatch(/No speculation/);
    expect(call?.messages[0]?.content).toMatch(/At most 5 facts/);
    expect(call?.messages[1]?.content).toContain('Known names: Kaël, Rowan');
    expect(call?.messages[1]?.content).toContain('When this turn happens: dawn of the third day');
    expect(call?.messages[1]?.content).toContain('<<<\nKaël hides the key.\n>>>');
  });

  it('reads the answer tolerantly and keeps at most maxFacts', async () => {
    const llm = new ScriptedLlm([
      'Here are the facts:\n```json\n{"facts": [' +
        '{"fact": "Kaël hides the key under the well.", "factType": "Experience", "who": "Kaël", "where": "the well", "entities": "Kaël, the well"},' +
        '{"statement": "  ", "who": "nobody"},' +
        '{"statement": "Rowan guards the bridge.", "fact_type": "world", "entities": ["Rowan", "rowan", 3], "why": null},' +
        '"not an object",' +
        '{"statement": "A third fact."}' +
      ']}\n```',
    ]);
    const facts = await extractFacts(llm, 'text', { maxFacts: 2 });
    expect(facts).toEqual([
      { factId: null, turnId: null, statement: 'Kaël hides the key under the well.', factType: 'experience', who: 'Kaël', what: '', when: '', where: 'the well', why: '', entities: ['Kaël', 'the well'] },
      { factId: null, turnId: null, statement: 'Rowan guards the bridge.', factType: 'world', who: '', what: '', when: '', where: '', why: '', entities: ['Rowan'] },
    ]);
    expect(await extractFacts(new ScriptedLlm([[{ statement: 'A bare list works too.' }]]), 'text')).toHaveLength(1);
  });

  it('makes no call for an empty narrative, and yields [] on any failure without throwing', async () => {
    const silent = new ScriptedLlm([]);
    expect(await extractFacts(silent, '   ')).toEqual([]);
    expect(silent.calls).toHaveLength(0);
    for (const failure of failures) expect(await extractFacts(new ScriptedLlm([failure]), 'Kaël runs.')).toEqual([]);
    const outcome = await runFactExtraction(new ScriptedLlm([new Error('down')]), 'Kaël runs.');
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PROVIDER_FAILURE' } });
    const controller = new AbortController();
    const pending = extractFacts(new ScriptedLlm(() => new Promise(() => {})), 'Kaël runs.', { signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual([]);
    expect(await extractFacts(new ScriptedLlm(() => new Promise(() => {})), 'Kaël runs.', { timeoutMs: 5 })).toEqual([]);
  });
});

describe('consolidate', () => {
  const facts = [fact(41, 'Kaël steals Rowan\'s purse.', ['Kaël', 'Rowan']), fact(42, 'Mira sees the theft.', ['Mira'])];

  it('states the rules, the world\'s mission and the missions of the characters in the batch only', async () => {
    const llm = new ScriptedLlm([{ actions: [] }]);
    await consolidate(llm, facts, [], { mission: 'Remember betrayals.', missions: { rowan: 'remembers every debt', Mira: 'notes who saw what', Tomas: 'never shown' } });
    const system = llm.calls[0]?.messages[0]?.content ?? '';
    expect(system).toMatch(/Prefer UPDATE to creating a near-duplicate/);
    expect(system).toMatch(/One facet per belief/);
    expect(system).toMatch(/DELETE only when .* Be conservative/);
    expect(system).toMatch(/Never do arithmetic/);
    expect(system).toMatch(/preserve what changed/);
    expect(system).toContain('What this world remembers (its mission): Remember betrayals.');
    expect(system).toContain('- Rowan: remembers every debt');
    expect(system).toContain('- Mira: notes who saw what');
    expect(system).not.toContain('Tomas');
    expect(llm.calls[0]?.messages[1]?.content).toContain('[41] Kaël steals Rowan\'s purse. (who: Kaël; names: Kaël, Rowan)');
    expect(llm.calls[0]?.messages[1]?.content).toContain('Beliefs held: none yet.');
  });

  it('shows at most 24 held beliefs, those about the batch\'s characters first', async () => {
    const held = [
      ...Array.from({ length: 30 }, (_, index) => belief(index + 1, 'Tomas', `Tomas belief ${index + 1}`, [index + 10])),
      belief(100, 'Rowan', 'Rowan trusts Kaël.', [2]),
      belief(101, 'kaël', 'Kaël is honest.', [1]),
    ];
    const llm = new ScriptedLlm([{ actions: [] }]);
    await consolidate(llm, facts, held);
    const lines = (llm.calls[0]?.messages[1]?.content ?? '').split('\n').filter((line) => /^\[\d+\] .*\(about:/.test(line));
    expect(lines).toHaveLength(24);
    expect(lines[0]).toMatch(/^\[100\] Rowan trusts Kaël\. \(about: Rowan; 1 fact\)$/);
    expect(lines[1]).toMatch(/^\[101\]/);
    expect(lines[2]).toMatch(/^\[30\] Tomas belief 30/);
    const all = new ScriptedLlm([{ actions: [] }]);
    await consolidate(all, facts, held, { maxExisting: 0 });
    expect((all.calls[0]?.messages[1]?.content ?? '').split('\n').filter((line) => /\(about:/.test(line))).toHaveLength(32);
  });

  it('keeps actions that name what was shown: UPDATE and DELETE of shown beliefs (with their subject), shown fact ids only', async () => {
    const held = [belief(7, 'Rowan', 'Rowan trusts Kaël.'), belief(8, '', 'The roads are safe.')];
    const llm = new ScriptedLlm([{
      actions: [
        { kind: 'update', belief_id: '7', subject: 'wrong', statement: 'Rowan trusted Kaël until the theft.', source_fact_ids: [41, 999] },
        { action: 'CREATE', subject: 'Mira', text: 'Mira knows Kaël is a thief.', facts: '42' },
        { kind: 'DELETE', observation_id: 8 },
        { kind: 'UPDATE', belief_id: 555, statement: 'not shown, dropped' },
        { kind: 'MERGE', belief_id: 7 },
        { kind: 'DELETE' },
      ],
    }]);
    expect(await consolidate(llm, facts, held)).toEqual([
      { kind: 'UPDATE', beliefId: 7, subject: 'Rowan', statement: 'Rowan trusted Kaël until the theft.', sourceFactIds: [41] },
      { kind: 'CREATE', beliefId: null, subject: 'Mira', statement: 'Mira knows Kaël is a thief.', sourceFactIds: [42] },
      { kind: 'DELETE', beliefId: 8, subject: '', statement: '', sourceFactIds: [] },
    ]);
  });

  it('drops a CREATE that cites no shown fact: a belief must rest on at least one known fact', async () => {
    const llm = new ScriptedLlm([{
      actions: [
        { kind: 'CREATE', subject: 'Mira', statement: 'Mira saw a ghost.', source_fact_ids: [999] },
        { kind: 'CREATE', subject: 'Tomas', statement: 'Tomas is brave.', source_fact_ids: [] },
        { kind: 'CREATE', subject: 'Rowan', statement: 'Rowan guards the gate.', source_fact_ids: [999, 41] },
      ],
    }]);
    expect(await consolidate(llm, facts, [])).toEqual([{ kind: 'CREATE', beliefId: null, subject: 'Rowan', statement: 'Rowan guards the gate.', sourceFactIds: [41] }]);
  });

  it('makes no call without facts, and yields [] on any failure without throwing', async () => {
    const silent = new ScriptedLlm([]);
    expect(await consolidate(silent, [], [belief(1, 'x', 'y')])).toEqual([]);
    expect(silent.calls).toHaveLength(0);
    for (const failure of failures) expect(await consolidate(new ScriptedLlm([failure]), facts, [])).toEqual([]);
    expect((await runConsolidation(new ScriptedLlm(['no json']), facts, [])).ok).toBe(false);
  });
});

describe('reflect', () => {
  const beliefs = [belief(1, 'Rowan', 'Rowan distrusts Kaël.', [90, 95, 99]), belief(2, 'Rowan', 'Rowan guards the bridge.', [10])];

  it('needs at least two beliefs (configurable), and then writes a profile from them with their trends', async () => {
    const silent = new ScriptedLlm([]);
    expect(await reflect(silent, 'Rowan', beliefs.slice(0, 1))).toBe('');
    expect(await reflect(silent, 'Rowan', [])).toBe('');
    expect(silent.calls).toHaveLength(0);
    const llm = new ScriptedLlm(['{"summary": "Rowan guards the bridge and no longer trusts Kaël."}', { profile: 'Alias works.' }, '"A bare string."']);
    expect(await reflect(llm, 'Rowan', beliefs, { mission: 'remembers every debt', nowTurn: 100 })).toBe('Rowan guards the bridge and no longer trusts Kaël.');
    const [call] = llm.calls;
    expect(call?.schemaName).toBe('mental_model');
    expect(call?.messages[0]?.content).toMatch(/Base it only on the beliefs listed\. Invent nothing\./);
    expect(call?.messages[0]?.content).toContain('Memory style to follow (what matters about this subject): remembers every debt');
    expect(call?.messages[1]?.content).toContain('- [NEW, 3 facts] Rowan distrusts Kaël.');
    expect(call?.messages[1]?.content).toContain('- [STALE, 1 fact] Rowan guards the bridge.');
    expect(await reflect(llm, '', beliefs)).toBe('Alias works.');
    expect(llm.calls[1]?.messages[1]?.content).toContain('Subject: the world of the story');
    expect(await reflect(llm, 'Rowan', beliefs.slice(0, 1), { minBeliefs: 1 })).toBe('A bare string.');
  });

  it('yields "" on any failure without throwing', async () => {
    for (const failure of failures) expect(await reflect(new ScriptedLlm([failure]), 'Rowan', beliefs)).toBe('');
  });
});
