// Property: after any sequence of turns, consolidations, model refreshes, rewinds and forks, every save holds exactly
// what a fresh replay of its surviving history would hold, and every rollback invariant holds.
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsolidationAction, FactInput } from '../src/core/living-types.js';
import type { Store } from '../src/seams/store.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
const SUBJECTS = ['Kaël', 'Rowan', '', 'KAËL', 'Mira'] as const;

/** An action as logged: facts named by their statement, beliefs by the statement that created them. */
interface LoggedAction {
  kind: ConsolidationAction['kind'];
  statement: string;
  subject: string;
  belief: string | null;
  facts: string[];
}

type Entry =
  | { kind: 'facts'; turn: number; statements: string[] }
  | { kind: 'consolidate'; turn: number; actions: LoggedAction[] }
  | { kind: 'model'; turn: number; subject: string; summary: string; beliefs: string[] };

const actionSpec = fc.record({
  kind: fc.constantFrom('CREATE', 'CREATE', 'UPDATE', 'UPDATE', 'DELETE'),
  pick: fc.nat(),
  factPicks: fc.array(fc.nat(), { maxLength: 3 }),
  subject: fc.constantFrom(...SUBJECTS),
});

const operation = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), facts: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('consolidate' as const), actions: fc.array(actionSpec, { minLength: 1, maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('model' as const), subject: fc.constantFrom(...SUBJECTS), beliefs: fc.array(fc.nat(), { maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('rewind' as const), back: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fork' as const), back: fc.nat(4), switch: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('queue' as const) }) },
);

/** A save's state with ids replaced by names, so two saves (or a save and its replay) can be compared. */
async function canonical(store: Store, saveId: string) {
  const facts = await store.living.getFacts(saveId);
  const factName = new Map(facts.map((fact) => [fact.factId, fact.statement]));
  const beliefs = await store.living.getBeliefs(saveId, { includeDeleted: true });
  const beliefName = new Map(beliefs.map((belief) => [belief.beliefId, belief.history[0]?.statement ?? '?']));
  const name = (id: number) => factName.get(id) ?? `unknown fact ${id}`;
  return {
    facts: facts.map(({ turnId, statement, entities }) => ({ turnId, statement, entities })),
    beliefs: beliefs.map((belief) => ({
      key: beliefName.get(belief.beliefId),
      statement: belief.statement,
      subject: belief.subject,
      sources: belief.sources.map((source) => [name(source.factId), source.turnId]),
      history: belief.history.map((change) => ({ ...change, factIds: change.factIds.map(name) })),
      createdTurnId: belief.createdTurnId,
      updatedTurnId: belief.updatedTurnId,
      deletedTurnId: belief.deletedTurnId,
    })).sort((a, b) => String(a.key).localeCompare(String(b.key))),
    models: (await store.living.getModels(saveId)).map((model) => ({
      subject: model.subject.toLowerCase(),
      summary: model.summary,
      sources: model.sources.map((id) => beliefName.get(id) ?? `unknown belief ${id}`),
      createdTurnId: model.createdTurnId,
      updatedTurnId: model.updatedTurnId,
    })).sort((a, b) => a.subject.localeCompare(b.subject)),
    chunks: (await store.listChunks(saveId)).map((chunk) => [chunk.turnId, chunk.text]),
    jobs: (await store.living.listJobs({ saveId })).map((job) => job.turnId),
  };
}

/** Replays a log into a fresh in-memory store and returns its canonical state. */
async function replay(log: readonly Entry[], chunks: readonly [number, string][], jobs: readonly number[]) {
  const store = openInMemoryStore();
  const factIds = new Map<string, number>();
  const beliefIds = new Map<string, number>();
  for (const entry of log) {
    if (entry.kind === 'facts') {
      const inputs: FactInput[] = entry.statements.map((statement) => ({ statement, entities: ['Kaël'] }));
      await store.living.insertFacts('r', entry.turn, inputs);
      inputs.forEach((input) => factIds.set(input.statement, input.factId as number));
    } else if (entry.kind === 'consolidate') {
      const factTurnMap = new Map((await store.living.getFacts('r')).map((fact) => [fact.factId as number, fact.turnId as number]));
      const actions: ConsolidationAction[] = entry.actions.map((action) => ({
        kind: action.kind,
        statement: action.statement,
        subject: action.subject,
        beliefId: action.belief === null ? null : beliefIds.get(action.belief) ?? 987_654_321,
        sourceFactIds: action.facts.map((statement) => factIds.get(statement) ?? 987_654_321),
      }));
      await store.living.applyConsolidation('r', entry.turn, actions, factTurnMap);
      for (const belief of await store.living.getBeliefs('r', { includeDeleted: true })) beliefIds.set(belief.history[0]?.statement as string, belief.beliefId as number);
    } else {
      await store.living.upsertModel('r', entry.subject, entry.summary, entry.turn, entry.beliefs.map((key) => beliefIds.get(key) ?? 987_654_321));
    }
  }
  for (const [turn, text] of chunks) {
    await store.insertChunks([{ id: `${turn}-${text}`, saveId: 'r', turnId: turn, chunkType: 'narrative', text, entryId: null, metadata: {}, createdAt: 0, embedding: null }]);
  }
  for (const turn of jobs) await store.living.enqueueTurn('r', turn, {}, 0);
  return canonical(store, 'r');
}

/** The rollback invariants of a save rewound (or forked) to `turn`. */
async function checkInvariants(store: Store, saveId: string, turn: number) {
  for (const fact of await store.living.getFacts(saveId)) expect(fact.turnId).toBeLessThanOrEqual(turn);
  for (const belief of await store.living.getBeliefs(saveId, { includeDeleted: true })) {
    expect(belief.proofCount).toBe(belief.sources.length);
    expect(belief.createdTurnId).toBeLessThanOrEqual(turn);
    expect(belief.updatedTurnId).toBeLessThanOrEqual(turn);
    expect(belief.deletedTurnId ?? 0).toBeLessThanOrEqual(turn);
    for (const source of belief.sources) expect(source.turnId).toBeLessThanOrEqual(turn);
    for (const change of belief.history) expect(change.turnId).toBeLessThanOrEqual(turn);
  }
  for (const model of await store.living.getModels(saveId)) {
    expect(model.createdTurnId).toBeLessThanOrEqual(turn);
    expect(model.updatedTurnId).toBeLessThanOrEqual(turn);
  }
  for (const job of await store.living.listJobs({ saveId })) expect(job.turnId).toBeLessThanOrEqual(turn);
  for (const chunk of await store.listChunks(saveId)) expect(chunk.turnId).toBeLessThanOrEqual(turn);
}

interface Timeline {
  turn: number;
  log: Entry[];
  chunks: [number, string][];
  jobs: number[];
}

type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

async function run(store: Store, operations: Operation[]): Promise<void> {
  const timelines = new Map<string, Timeline>([['s0', { turn: 0, log: [], chunks: [], jobs: [] }]]);
  let current = 's0';
  let serial = 0;
  for (const op of operations) {
    const timeline = timelines.get(current) as Timeline;
    if (op.kind === 'turn') {
      timeline.turn++;
      const statements = Array.from({ length: op.facts }, () => `fact ${++serial} of turn ${timeline.turn}`);
      await store.living.insertFacts(current, timeline.turn, statements.map((statement) => ({ statement, entities: ['Kaël'] })));
      timeline.log.push({ kind: 'facts', turn: timeline.turn, statements });
      const text = `chunk ${++serial}`;
      await store.insertChunks([{ id: `c-${serial}-${current}`, saveId: current, turnId: timeline.turn, chunkType: 'narrative', text, entryId: null, metadata: {}, createdAt: 0, embedding: null }]);
      timeline.chunks.push([timeline.turn, text]);
    } else if (op.kind === 'consolidate') {
      const facts = await store.living.getFacts(current);
      const beliefs = await store.living.getBeliefs(current, { includeDeleted: true });
      const factTurnMap = new Map(facts.map((fact) => [fact.factId as number, fact.turnId as number]));
      const logged: LoggedAction[] = [];
      const actions: ConsolidationAction[] = op.actions.map((spec) => {
        const target = beliefs.length === 0 || spec.pick % (beliefs.length + 1) === beliefs.length ? null : beliefs[spec.pick % beliefs.length];
        const cited = spec.factPicks.map((pick) => facts[pick % Math.max(1, facts.length)]).filter((fact) => fact !== undefined);
        const statement = spec.kind === 'DELETE' ? '' : `belief ${++serial} said at turn ${timeline.turn}`;
        logged.push({ kind: spec.kind, statement, subject: spec.subject, belief: spec.kind === 'CREATE' ? null : target?.history[0]?.statement ?? 'no such belief', facts: cited.map((fact) => fact.statement) });
        return { kind: spec.kind, statement, subject: spec.subject, beliefId: spec.kind === 'CREATE' ? null : target?.beliefId ?? 987_654_321, sourceFactIds: cited.map((fact) => fact.factId as number) };
      });
      await store.living.applyConsolidation(current, timeline.turn, actions, factTurnMap);
      timeline.log.push({ kind: 'consolidate', turn: timeline.turn, actions: logged });
    } else if (op.kind === 'model') {
      const beliefs = await store.living.getBeliefs(current);
      const chosen = beliefs.length === 0 ? [] : [...new Set(op.beliefs.map((pick) => beliefs[pick % beliefs.length] as (typeof beliefs)[number]))];
      const summary = `profile ${++serial} at turn ${timeline.turn}`;
      await store.living.upsertModel(current, op.subject, summary, timeline.turn, chosen.map((belief) => belief.beliefId as number));
      timeline.log.push({ kind: 'model', turn: timeline.turn, subject: op.subject, summary, beliefs: chosen.map((belief) => belief.history[0]?.statement as string) });
    } else if (op.kind === 'queue') {
      await store.living.enqueueTurn(current, timeline.turn, {}, 0);
      if (!timeline.jobs.includes(timeline.turn)) timeline.jobs.push(timeline.turn);
    } else if (op.kind === 'rewind') {
      const target = Math.max(0, timeline.turn - op.back);
      await store.rewind(current, target);
      timeline.turn = target;
      timeline.log = timeline.log.filter((entry) => entry.turn <= target);
      timeline.chunks = timeline.chunks.filter(([turn]) => turn <= target);
      timeline.jobs = timeline.jobs.filter((turn) => turn <= target);
      await checkInvariants(store, current, target);
      expect(await canonical(store, current)).toEqual(await replay(timeline.log, timeline.chunks, timeline.jobs));
    } else {
      const at = Math.max(0, timeline.turn - op.back);
      const name = `s${timelines.size}`;
      const before = await canonical(store, current);
      try {
        await store.fork(current, name, at);
      } catch (error) {
        expect(error).toMatchObject({ code: 'NOT_FOUND' });
        expect(before.facts.length + before.beliefs.length + before.models.length + before.chunks.length + before.jobs.length).toBe(0);
        continue;
      }
      expect(await canonical(store, current)).toEqual(before);
      const branch: Timeline = {
        turn: at,
        log: timeline.log.filter((entry) => entry.turn <= at),
        chunks: timeline.chunks.filter(([turn]) => turn <= at),
        jobs: timeline.jobs.filter((turn) => turn <= at),
      };
      timelines.set(name, branch);
      await checkInvariants(store, name, at);
      expect(await canonical(store, name)).toEqual(await replay(branch.log, branch.chunks, branch.jobs));
      if (op.switch) current = name;
    }
  }
  for (const [saveId, timeline] of timelines) {
    expect(await canonical(store, saveId)).toEqual(await replay(timeline.log, timeline.chunks, timeline.jobs));
  }
}

describe('living memory under random histories (fast-check, fixed seed)', () => {
  it('in memory: every rewind and fork leaves exactly the replayed state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 5, maxLength: 45 }), async (operations) => {
        const store = openInMemoryStore();
        await run(store, operations);
        await store.close();
      }),
      { seed: 20_240_601, numRuns: 150 },
    );
  });

  it('in SQLite: the same, in real files', async () => {
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 5, maxLength: 35 }), async (operations) => {
        const store = openSqliteStore({ path: join(dir, `property-${++counter}.db`), durability: 'normal' });
        await run(store, operations);
        await store.close();
      }),
      { seed: 20_240_602, numRuns: 40 },
    );
  });
});
