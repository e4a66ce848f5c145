// A worker killed with SIGKILL mid-queue, then restarted: no job is lost and none is done twice.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { ScriptedLlm } from '../src/llms/scripted/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { storyAnswer } from './story-llm.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
const TURNS = 24;
const text = (turn: number) => `Kaël walks ${turn} miles. Rowan counts ${turn} coins.${turn % 5 === 0 ? ' Mira sings.' : ''}`;

/** Runs the worker child; kills it with SIGKILL after `killAfter` committed stages (null: let it finish). */
function runChild(path: string, killAfter: number | null): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'living-worker-child.ts'), path], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => { stderr += data.toString(); });
    child.stdout.on('data', (data: Buffer) => {
      buffer += data.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      lines.push(...parts.filter((line) => line.startsWith('committed')));
      if (killAfter !== null && lines.length >= killAfter) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ lines, killed: true });
      else if (code === 0) resolve({ lines, killed: false });
      else reject(new Error(`worker child failed (${code}): ${stderr}`));
    });
  });
}

async function queueTurns(memory: Mnemo): Promise<void> {
  for (let turn = 1; turn <= TURNS; turn++) await memory.living.recordTurn({ saveId: 'camp', turnId: turn, text: text(turn) });
}

async function snapshot(memory: Mnemo) {
  const facts = await memory.living.facts('camp');
  const factName = new Map(facts.map((fact) => [fact.factId, fact.statement]));
  return {
    facts: facts.map((fact) => [fact.turnId, fact.statement]),
    beliefs: (await memory.living.beliefs('camp', { includeDeleted: true })).map((belief) => ({
      subject: belief.subject,
      statement: belief.statement,
      sources: belief.sources.map((source) => factName.get(source.factId)),
      history: belief.history.map((change) => [change.action, change.turnId, change.statement]),
    })),
    models: (await memory.living.models('camp')).map((model) => [model.subject, model.summary, model.createdTurnId, model.updatedTurnId]),
    jobs: await memory.store.living.countJobs('camp'),
  };
}

describe('living worker crash safety', () => {
  it('loses no job and does none twice across SIGKILLs and restarts', async () => {
    const path = join(dir, 'crash.db');
    const setup = await openMemory({ path, logger: silentLogger });
    await queueTurns(setup);
    await setup.close();

    const runs: { lines: string[]; killed: boolean }[] = [];
    let claimsLeftByTheDead = 0;
    for (const killAfter of [7, 23, 40, null]) {
      runs.push(await runChild(path, killAfter));
      const store = openSqliteStore({ path });
      claimsLeftByTheDead += (await store.living.listJobs({ status: 'running' })).length;
      await store.close();
    }
    expect(runs.map((run) => run.killed)).toEqual([true, true, true, false]);
    expect(claimsLeftByTheDead).toBeGreaterThan(0);
    const committed = runs.flatMap((run) => run.lines);
    expect(new Set(committed).size).toBe(committed.length);

    const store = openSqliteStore({ path });
    expect(store.integrityCheck()).toBe('ok');
    await store.close();

    const reference = await openMemory({ path: join(dir, 'reference.db'), logger: silentLogger, llm: new ScriptedLlm(storyAnswer), living: { autoStart: false, minBeliefs: 1 } });
    await queueTurns(reference);
    await reference.living.runPending();
    const expected = await snapshot(reference);
    await reference.close();

    const crashed = await openMemory({ path, logger: silentLogger });
    const actual = await snapshot(crashed);
    await crashed.close();
    expect(actual.jobs).toEqual({ pending: 0, running: 0, done: TURNS, failed: 0 });
    expect(actual.facts).toHaveLength(TURNS * 2 + Math.floor(TURNS / 5));
    expect(actual).toEqual(expected);
  });
});
