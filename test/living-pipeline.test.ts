// The background pipeline end to end with a scripted model: off the turn loop, durable, idempotent per turn,
// cancelled by rewinds, silent on model failures.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/logger.js';
import type { ScriptedAnswer, ScriptedCall } from '../src/llms/scripted/index.js';
import type { ScriptedLlm } from '../src/llms/scripted/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo, OpenMemoryOptions } from '../src/open-memory.js';
import { gate, narrativeOf, storyLlm } from './story-llm.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;
const opened: Mnemo[] = [];
afterEach(async () => {
  for (const memory of opened.splice(0)) await memory.close().catch(() => {});
});

async function open(options: OpenMemoryOptions & { file?: string } = {}): Promise<Mnemo> {
  const path = options.file ?? join(dir, `pipeline-${++counter}.db`);
  const memory = await openMemory({ logger: silentLogger, ...options, path, living: { pollMs: 20, retryBaseMs: 1000, minBeliefs: 1, ...options.living } });
  opened.push(memory);
  return memory;
}

const blockedOn = (llm: ScriptedLlm, text: string) => vi.waitFor(() => {
  if (!llm.calls.some((call) => call.schemaName === 'facts' && narrativeOf(call).includes(text))) throw new Error(`no call for ${text} yet`);
}, { timeout: 5000, interval: 5 });

describe('living pipeline', () => {
  it('distils recorded turns into facts, beliefs and mental models in the background', async () => {
    const memory = await open({ llm: storyLlm() });
    await memory.add({ saveId: 's', turnId: 1, text: 'Kaël meets Rowan at the bridge. Rowan lends Kaël a lantern.' });
    await memory.add({ saveId: 's', turnId: 1, text: 'Old lore about lanterns.', chunkType: 'lore' });
    await memory.living.recordTurn({ saveId: 's', turnId: 1, knownEntities: ['Kaël'] });
    await memory.living.recordTurn({ saveId: 's', turnId: 2, text: 'Kaël returns the lantern to Rowan.' });
    await memory.living.idle();

    const facts = await memory.living.facts('s');
    expect(facts.map((fact) => [fact.turnId, fact.statement])).toEqual([
      [2, 'Kaël returns the lantern to Rowan.'],
      [1, 'Rowan lends Kaël a lantern.'],
      [1, 'Kaël meets Rowan at the bridge.'],
    ]);
    const beliefs = await memory.living.beliefs('s');
    expect(beliefs.map((belief) => [belief.subject, belief.statement, belief.proofCount, belief.trend])).toEqual([
      ['Kaël', 'Kaël still remembers: Kaël returns the lantern to Rowan.', 2, 'NEW'],
      ['Rowan', 'Rowan remembers: Rowan lends Kaël a lantern.', 1, 'NEW'],
    ]);
    expect(beliefs[0]?.history.map((change) => [change.action, change.turnId])).toEqual([['CREATE', 1], ['UPDATE', 2]]);
    const models = await memory.living.models('s');
    expect(models.map((model) => [model.subject, model.summary, model.createdTurnId, model.updatedTurnId])).toEqual([
      ['Kaël', 'Kaël is shaped by 1 beliefs.', 1, 2],
      ['Rowan', 'Rowan is shaped by 1 beliefs.', 1, 1],
    ]);
    expect(await memory.store.living.countJobs('s')).toEqual({ pending: 0, running: 0, done: 2, failed: 0 });
    const [status] = await memory.living.status('s');
    expect(status).toEqual({ saveId: 's', facts: 3, beliefs: 2, models: 2, jobs: { pending: 0, running: 0, done: 2, failed: 0 }, latestTurnId: 2 });
  });

  it('returns from the turn loop while the model is still thinking', async () => {
    const hold = gate();
    const llm = storyLlm(async (call) => {
      if (call.schemaName === 'facts') await hold.promise;
      return undefined;
    });
    const memory = await open({ llm });
    await memory.add({ saveId: 's', turnId: 1, text: 'Kaël finds a map.' });
    const job = await memory.living.recordTurn({ saveId: 's', turnId: 1 });
    expect(job.status).toBe('pending');
    await blockedOn(llm, 'Kaël finds a map.');
    await memory.add({ saveId: 's', turnId: 2, text: 'Kaël reads the map aloud.' });
    await memory.living.recordTurn({ saveId: 's', turnId: 2 });
    expect((await memory.query('s', 'map', { k: 5 })).map((hit) => hit.turnId).sort()).toEqual([1, 2]);
    expect(await memory.living.countFacts('s')).toBe(0);
    expect(await memory.store.living.countJobs('s')).toMatchObject({ running: 1, pending: 1 });
    hold.release();
    await memory.living.idle();
    expect(await memory.living.countFacts('s')).toBe(2);
  });

  it('writes nothing and throws nothing when the model fails; retries with backoff, then marks the job failed', async () => {
    const failures: Record<string, (call: ScriptedCall) => ScriptedAnswer | Promise<ScriptedAnswer>> = {
      down: () => new Error('connect ECONNREFUSED 127.0.0.1:11434'),
      malformed: () => 'I would rather tell you a story.',
      'wrong shape': () => ({ facts: 'none' }),
      timeout: () => new Promise(() => {}),
    };
    for (const [kind, fail] of Object.entries(failures)) {
      const clock = manualClock(1_000_000);
      let healthy = false;
      const llm = storyLlm((call) => (healthy ? undefined : fail(call)));
      const memory = await open({ llm, clock: clock.now, living: { autoStart: false, timeoutMs: 20, maxAttempts: 3, retryBaseMs: 1000 } });
      await memory.living.recordTurn({ saveId: 's', turnId: 1, text: 'Kaël crosses the river.' });
      expect(await memory.living.runPending()).toBe(1);
      expect(await memory.living.runPending()).toBe(0);
      const [waiting] = await memory.store.living.listJobs();
      expect(waiting, kind).toMatchObject({ status: 'pending', stage: 'extract', attempts: 1, notBefore: 1_001_000 });
      expect(waiting?.lastError).toMatch(kind === 'down' ? /PROVIDER_FAILURE/ : kind === 'timeout' ? /PROVIDER_TIMEOUT/ : /PROVIDER_MALFORMED/);
      clock.advance(1000);
      expect(await memory.living.runPending()).toBe(1);
      clock.advance(2000);
      expect(await memory.living.runPending()).toBe(1);
      expect(await memory.store.living.countJobs(), kind).toEqual({ pending: 0, running: 0, done: 0, failed: 1 });
      expect(await memory.living.countFacts('s')).toBe(0);
      expect(await memory.living.beliefs('s')).toEqual([]);
      expect(llm.calls).toHaveLength(3);
      healthy = true;
      expect(await memory.living.retryFailed('s')).toBe(1);
      await memory.living.runPending();
      expect(await memory.living.countFacts('s')).toBe(1);
      expect(await memory.store.living.countJobs()).toMatchObject({ done: 1, failed: 0 });
    }
  });

  it('keeps committed stages when a later stage fails, and resumes at the failed stage', async () => {
    let consolidationDown = true;
    const llm = storyLlm((call) => (call.schemaName === 'consolidation' && consolidationDown ? new Error('overloaded') : undefined));
    const memory = await open({ llm, living: { autoStart: false, maxAttempts: 1 } });
    await memory.living.recordTurn({ saveId: 's', turnId: 1, text: 'Rowan sharpens a sword.' });
    await memory.living.runPending();
    expect(await memory.store.living.listJobs()).toEqual([expect.objectContaining({ status: 'failed', stage: 'consolidate', attempts: 1 })]);
    expect(await memory.living.countFacts('s')).toBe(1);
    expect(await memory.living.beliefs('s')).toEqual([]);
    consolidationDown = false;
    await memory.living.retryFailed();
    await memory.living.runPending();
    expect(llm.calls.filter((call) => call.schemaName === 'facts')).toHaveLength(1);
    expect(await memory.living.countFacts('s')).toBe(1);
    expect((await memory.living.beliefs('s')).map((belief) => belief.subject)).toEqual(['Rowan']);
  });

  it('cancels work on turns a rewind removed: the model call is aborted and nothing of it lands', async () => {
    const hold = gate();
    const llm = storyLlm(async (call) => {
      if (narrativeOf(call).includes('turn three')) await hold.promise;
      return undefined;
    });
    const memory = await open({ llm });
    for (const [turn, text] of [[1, 'Kaël wakes on turn one.'], [2, 'Kaël eats on turn two.'], [3, 'Kaël sleeps on turn three.'], [4, 'Kaël dreams on turn four.']] as const) {
      await memory.add({ saveId: 's', turnId: turn, text });
      await memory.living.recordTurn({ saveId: 's', turnId: turn });
    }
    await blockedOn(llm, 'turn three');
    const counts = await memory.rewindWithCounts('s', 2);
    expect(counts.chunks).toBe(2);
    expect(counts.living.jobsCancelled).toBe(2);
    const blocked = llm.calls.find((call) => narrativeOf(call).includes('turn three'));
    expect(blocked?.signal.aborted).toBe(true);
    hold.release();
    await memory.living.idle();
    expect((await memory.living.facts('s')).map((fact) => fact.turnId)).toEqual([2, 1]);
    expect(Math.max(...(await memory.living.beliefs('s', { includeDeleted: true })).flatMap((belief) => belief.sources.map((source) => source.turnId)))).toBe(2);
    expect(llm.calls.some((call) => narrativeOf(call).includes('turn four'))).toBe(false);
    expect(await memory.store.living.listJobs({ saveId: 's' })).toEqual([expect.objectContaining({ turnId: 1, status: 'done' }), expect.objectContaining({ turnId: 2, status: 'done' })]);
  });

  it('is idempotent per turn: recording a turn again leaves what a single recording of the new text would', async () => {
    const memory = await open({ llm: storyLlm() });
    await memory.living.recordTurn({ saveId: 's', turnId: 1, text: 'Kaël buys bread. Kaël pays two coins.' });
    await memory.living.recordTurn({ saveId: 's', turnId: 2, text: 'Rowan bakes bread.' });
    await memory.living.idle();
    await memory.living.recordTurn({ saveId: 's', turnId: 2, text: 'Rowan burns the bread.' });
    await memory.living.idle();
    await memory.living.recordTurn({ saveId: 'fresh', turnId: 1, text: 'Kaël buys bread. Kaël pays two coins.' });
    await memory.living.recordTurn({ saveId: 'fresh', turnId: 2, text: 'Rowan burns the bread.' });
    await memory.living.idle();
    const view = async (saveId: string) => ({
      facts: (await memory.living.facts(saveId)).map(({ turnId, statement }) => [turnId, statement]),
      beliefs: (await memory.living.beliefs(saveId, { includeDeleted: true })).map(({ subject, statement, proofCount, history, createdTurnId, updatedTurnId }) => ({ subject, statement, proofCount, createdTurnId, updatedTurnId, history: history.map((change) => [change.action, change.turnId, change.statement]) })),
      models: (await memory.living.models(saveId)).map(({ subject, summary, createdTurnId, updatedTurnId }) => [subject, summary, createdTurnId, updatedTurnId]),
    });
    const replayed = await view('s');
    expect(replayed).toEqual(await view('fresh'));
    expect(replayed.facts).toEqual([[2, 'Rowan burns the bread.'], [1, 'Kaël pays two coins.'], [1, 'Kaël buys bread.']]);
    expect(replayed.beliefs.map((belief) => belief.statement)).toEqual(['Rowan remembers: Rowan burns the bread.', 'Kaël remembers: Kaël pays two coins.', 'Kaël remembers: Kaël buys bread.']);
  });

  it('gives an in-flight job back on close, and a new process finishes it', async () => {
    const file = join(dir, `restart-${++counter}.db`);
    const hold = gate();
    const first = storyLlm(async () => {
      await hold.promise;
      return undefined;
    });
    const memory = await open({ file, llm: first });
    await memory.living.recordTurn({ saveId: 's', turnId: 1, text: 'Mira hides a letter.' });
    await blockedOn(first, 'Mira hides a letter.');
    await memory.close();
    hold.release();
    const again = await open({ file, llm: storyLlm() });
    await again.living.idle();
    expect((await again.living.facts('s')).map((fact) => fact.statement)).toEqual(['Mira hides a letter.']);
    expect(await again.store.living.countJobs()).toEqual({ pending: 0, running: 0, done: 1, failed: 0 });
  });

  it('refreshes models a rewind left stale, even when the next turn does not mention them', async () => {
    const memory = await open({ llm: storyLlm() });
    await memory.living.recordTurn({ saveId: 's', turnId: 1, text: 'Kaël lights a fire.' });
    await memory.living.recordTurn({ saveId: 's', turnId: 2, text: 'Kaël burns the map.' });
    await memory.living.idle();
    await memory.rewind('s', 1);
    expect((await memory.living.models('s'))[0]).toMatchObject({ subject: 'Kaël', stale: true, updatedTurnId: 1 });
    expect((await memory.living.beliefs('s'))[0]).toMatchObject({ statement: 'Kaël remembers: Kaël lights a fire.', stale: true });
    await memory.living.recordTurn({ saveId: 's', turnId: 2, text: 'Mira sings.' });
    await memory.living.idle();
    const kael = (await memory.living.models('s', { subject: 'Kaël' }))[0];
    expect(kael).toMatchObject({ stale: false, updatedTurnId: 2 });
  });

  it('forks a save with its queue: the branch goes on alone, the original is untouched', async () => {
    const memory = await open({ llm: storyLlm(), embedder: null }); // words only, so the last query's hits are exact
    for (const [turn, text] of [[1, 'Kaël enters the city.'], [2, 'Kaël meets the queen.'], [3, 'Kaël is banished.']] as const) {
      await memory.add({ saveId: 'main', turnId: turn, text });
      await memory.living.recordTurn({ saveId: 'main', turnId: turn });
    }
    await memory.living.idle();
    const before = await memory.living.beliefs('main', { includeDeleted: true });
    const counts = await memory.fork('main', 'branch', 2);
    expect(counts).toMatchObject({ chunks: 2, living: { facts: 2, beliefs: 1, jobs: 2 } });
    await memory.add({ saveId: 'branch', turnId: 3, text: 'Kaël is crowned.' });
    await memory.living.recordTurn({ saveId: 'branch', turnId: 3 });
    await memory.living.idle();
    expect((await memory.living.facts('branch')).map((fact) => fact.statement)).toEqual(['Kaël is crowned.', 'Kaël meets the queen.', 'Kaël enters the city.']);
    expect(await memory.living.beliefs('main', { includeDeleted: true })).toEqual(before);
    const branchHits = (await memory.query('branch', 'crowned banished', { k: 5 })).map((hit) => hit.text);
    expect(branchHits[0]).toBe('Kaël is crowned.');
    expect(branchHits).not.toContain('Kaël is banished.');
  });

  it('stops quietly when its store is closed under it, and idle() drains the queue when the loop is not running', async () => {
    const warnings: string[] = [];
    const memory = await openMemory({ path: join(dir, `closed-${++counter}.db`), llm: storyLlm(), logger: { info: () => {}, warn: (message) => warnings.push(message) }, living: { pollMs: 5 } });
    await memory.store.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(memory.living.worker?.isRunning).toBe(false);
    expect(warnings).toEqual([]);
    const manual = await open({ llm: storyLlm(), living: { autoStart: false } });
    await manual.living.recordTurn({ saveId: 's', turnId: 1, text: 'Kaël waits.' });
    await manual.living.idle();
    expect(await manual.living.countFacts('s')).toBe(1);
  });

  it('queues turns without a model, validates input, and says how to run the pipeline', async () => {
    const memory = await open();
    const job = await memory.living.recordTurn({ saveId: 's', turnId: 3, text: 'Queued for later.', whenHint: 'noon' });
    expect(job).toMatchObject({ turnId: 3, status: 'pending', payload: { text: 'Queued for later.', whenHint: 'noon' } });
    await expect(memory.living.runPending()).rejects.toMatchObject({ code: 'UNSUPPORTED' });
    await expect(memory.living.recordTurn({ saveId: '', turnId: 1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.living.recordTurn({ saveId: 's', turnId: -1 })).rejects.toThrow(/turnId: expected an integer >= 0/);
    await expect(memory.living.recordTurn({ saveId: 's', turnId: 1, text: '  ' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.living.recordTurn({ saveId: 's', turnId: 1, knownEntities: 'Kaël' as unknown as string[] })).rejects.toThrow(/knownEntities: expected an array of names/);
    await expect(memory.fork('s', 's2', -2)).rejects.toThrow(/atTurn: expected an integer >= 0/);
    expect(await memory.store.living.countJobs()).toEqual({ pending: 1, running: 0, done: 0, failed: 0 });
  });
});
