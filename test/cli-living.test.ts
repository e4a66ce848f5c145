// The living-memory commands end to end: the CLI calls an OpenAI-compatible server (in process) through the real adapter.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedCall } from '../src/llms/scripted/index.js';
import { startChatServer } from './fake-chat-server.js';
import type { FakeChatServer } from './fake-chat-server.js';
import { storyAnswer } from './story-llm.js';
import { runCli, tempDir } from './helpers.js';

const dir = tempDir();
let server: FakeChatServer;

beforeAll(async () => {
  delete process.env['MNEMO_LLM_BASE_URL'];
  delete process.env['MNEMO_LLM_MODEL'];
  server = await startChatServer((request) => {
    const messages = request.body.messages.map(({ role, content }) => ({ role: role as 'system' | 'user', content }));
    const call = { kind: 'json', messages, schemaName: request.body.response_format?.json_schema?.name ?? null, prompt: messages.map((message) => message.content).join('\n\n'), signal: new AbortController().signal } as ScriptedCall;
    return { content: JSON.stringify(storyAnswer(call)) };
  });
});
afterAll(async () => {
  await server.close();
});

describe('mnemo living, facts, beliefs, models, fork', () => {
  const db = join(dir, 'living-cli.db');
  const llm = () => ['--llm-base-url', server.baseUrl, '--llm-model', 'test-model'];

  it('queues turns, runs them through a model, and shows facts, beliefs with trends, and models', async () => {
    expect((await runCli('--db', db, 'add', 'camp', '1', 'Kaël meets Rowan at the ford. Rowan asks for a toll.')).code).toBe(0);
    expect((await runCli('--db', db, 'living', 'record', 'camp', '1', '--known', 'Kaël,Rowan')).out).toMatch(/^queued turn 1 of camp \(job \d+, generation 1\)$/);
    expect((await runCli('--db', db, 'living', 'record', 'camp', '2', 'Kaël pays Rowan the toll.')).code).toBe(0);
    expect((await runCli('--db', db, 'living', 'status')).out).toBe('camp: 0 facts, 0 beliefs, 0 models; jobs 2 pending, 0 running, 0 done, 0 failed; latest turn 2');

    const worked = await runCli('--db', db, 'living', 'run', ...llm(), '--min-beliefs', '1');
    expect(worked.code).toBe(0);
    expect(worked.out).toBe('worked on 2 jobs with openai-compatible/test-model: 6 stages committed, 0 failures');
    expect(server.requests.length).toBeGreaterThanOrEqual(4);
    expect(server.requests[0]?.body.response_format?.json_schema?.name).toBe('facts');

    const facts = await runCli('--db', db, 'facts', 'camp', '--entity', 'rowan');
    expect(facts.out).toContain('[turn 2 · experience] Kaël pays Rowan the toll.');
    expect(facts.out).toContain('[turn 1 · experience] Rowan asks for a toll.');
    const beliefs = await runCli('--db', db, 'beliefs', 'camp', '--subject', 'Kaël');
    expect(beliefs.out).toMatch(/^#\d+ \[Kaël · NEW · 2 facts, turns 1-2\] Kaël still remembers: Kaël pays Rowan the toll\.\n {5}created turn 1, updated turn 2, 2 changes$/);
    const json = JSON.parse((await runCli('--db', db, 'beliefs', 'camp', '--json', '--now', '40')).out) as { trend: string }[];
    expect(json.map((belief) => belief.trend)).toEqual(['STALE', 'STALE']);
    expect((await runCli('--db', db, 'models', 'camp', '--subject', 'kaël')).out).toContain('Kaël (turns 1-2, from 1 belief)');
    expect((await runCli('--db', db, 'living', 'status', 'camp', '--json')).out).toContain('"done": 2');
  });

  it('forks and rewinds every layer, and reports what went', async () => {
    const fork = await runCli('--db', db, 'fork', 'camp', 'branch', '1');
    expect(fork.out).toBe('forked camp at turn 1 into branch: 1 chunks, 2 facts, 2 beliefs, 2 models, 1 jobs');
    expect((await runCli('--db', db, 'fork', 'camp', 'branch', '1')).code).toBe(2);
    const rewind = await runCli('--db', db, 'rewind', 'camp', '1');
    expect(rewind.out).toBe('rewound camp to turn 1: 0 chunks removed\n  living: 1 facts removed, beliefs 0 removed and 1 rolled back, models 0 removed and 1 rolled back, 1 queued jobs cancelled');
    expect((await runCli('--db', db, 'facts', 'branch')).out.split('\n').filter((line) => line.startsWith('#'))).toHaveLength(2);
  });

  it('sets missions, and explains what is missing', async () => {
    const badLine = await runCli('--db', db, 'living', 'missions', '--universe', 'Remember every debt.', '--set', 'Rowan: counts tolls\nbad line\nKaël: remembers: kindness');
    expect(badLine.code).toBe(2);
    expect(badLine.err).toContain('"bad line"');
    const missions = await runCli('--db', db, 'living', 'missions', '--universe', 'Remember every debt.', '--set', 'Rowan: counts tolls\n\nKaël: remembers: kindness');
    expect(missions.out).toBe('universe: Remember every debt.\nRowan: counts tolls\nKaël: remembers: kindness');
    const noModel = await runCli('--db', db, 'living', 'run');
    expect(noModel.code).toBe(2);
    expect(noModel.err).toContain('Pass --llm-base-url');
    const down = await runCli('--db', join(dir, 'down.db'), 'living', 'run', '--llm-base-url', 'not a url', '--llm-model', 'm');
    expect(down.err).toContain('baseUrl: expected an http(s) URL');
    expect((await runCli('--db', db, 'living', 'retry')).out).toBe('requeued 0 failed jobs');
  });
});
