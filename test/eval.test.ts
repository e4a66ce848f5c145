// `mnemo eval` against the LoCoMo scorer: on a fixture this test writes, both must print the same numbers.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MetricsAccumulator } from '../src/eval/metrics.js';
import { runCli, tempDir } from './helpers.js';
import { locomoScorer } from './shared-path.js';

const dir = tempDir();

const SPEAKERS = ['Ada', 'Bram'];
const TOPICS = ['sailing to the north cape', 'baking rye bread', 'a broken violin string', 'the chess club final', 'planting tulips', 'a lost grey cat', 'the night train to Vienna', 'learning to weld'];

function writeFixture() {
  const turns: object[] = [];
  const questions: object[] = [];
  for (const conv of ['conv-a', 'conv-b']) {
    let turn = 0;
    for (let session = 1; session <= 3; session++) {
      for (let index = 1; index <= 8; index++) {
        const topic = TOPICS[(index + session + (conv === 'conv-b' ? 3 : 0)) % TOPICS.length] as string;
        turns.push({ conv, id: `D${session}:${index}`, session, turn: turn++, speaker: SPEAKERS[index % 2], date: `${session} May 2023`, text: `I keep thinking about ${topic}, session ${session} line ${index}.` });
      }
    }
    TOPICS.forEach((topic, index) => {
      const evidence = (turns as { conv: string; id: string; text: string }[]).filter((row) => row.conv === conv && row.text.includes(topic)).map((row) => row.id).slice(0, 2);
      questions.push({ conv, qid: `${conv}:q${index}`, question: `When did they talk about ${topic}?`, answer: 'x', category: (index % 5) + 1, category_name: `cat${(index % 5) + 1}`, evidence });
    });
  }
  const turnsPath = join(dir, 'fixture.turns.jsonl');
  const qaPath = join(dir, 'fixture.qa.jsonl');
  writeFileSync(turnsPath, turns.map((row) => JSON.stringify(row)).join('\n') + '\n');
  writeFileSync(qaPath, questions.map((row) => JSON.stringify(row)).join('\n') + '\n');
  return { turnsPath, qaPath };
}

describe('mnemo eval', () => {
  const scorer = locomoScorer();

  it.runIf(scorer !== null)('prints the same recall and hit table as the LoCoMo scorer reading its run file', async () => {
    const { turnsPath, qaPath } = writeFixture();
    for (const protocol of [[], ['--doc', 'full', '--include-adversarial', '--k', '1,3,5']]) {
      const runPath = join(dir, `run-${protocol.length}.jsonl`);
      const result = await runCli('--embedder', 'hashing', 'eval', '--turns', turnsPath, '--qa', qaPath, '--out', runPath, '--no-progress', ...protocol);
      expect(result.code).toBe(0);
      const ours = result.out.split('\n').filter((line) => /^(overall|\d )/.test(line));
      const scored = execFileSync(process.execPath, [scorer as string, '--turns', turnsPath, '--qa', qaPath, '--run', runPath, ...protocol.filter((flag) => flag !== '--doc' && flag !== 'full')], { encoding: 'utf8' });
      const theirs = scored.split('\n').filter((line) => /^(overall|\d )/.test(line));
      expect(ours.length).toBeGreaterThan(1);
      expect(ours).toEqual(theirs);
      const lines = readFileSync(runPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { qid: string; ranked: string[] });
      expect(lines[0]?.ranked[0]).toMatch(/^D\d:\d$/);
    }
  });

  it('passes the query techniques\' options through, and refuses malformed ones', async () => {
    const { turnsPath, qaPath } = writeFixture();
    const base = ['--embedder', 'hashing', 'eval', '--turns', turnsPath, '--qa', qaPath, '--no-progress'];
    const plainPath = join(dir, 'plain.jsonl');
    const techniquesPath = join(dir, 'techniques.jsonl');
    expect((await runCli(...base, '--out', plainPath, '--adaptive-weights', '0')).code).toBe(0);
    const result = await runCli(...base, '--out', techniquesPath, '--adaptive-weights', '0', '--scene-diversity', '100,20', '--profile-weight', '0.3', '--scaffolding', 'on');
    expect(result.code).toBe(0);
    // A step of 100 leaves one hit per session at the top: the rankings differ.
    expect(readFileSync(techniquesPath, 'utf8')).not.toBe(readFileSync(plainPath, 'utf8'));
    const diverse = readFileSync(techniquesPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { ranked: string[] });
    for (const { ranked } of diverse) expect(new Set(ranked.slice(0, 3).map((id) => id.split(':')[0])).size).toBe(3);
    for (const [flag, value, message] of [['--scene-diversity', 'x', '--scene-diversity: expected step[,head]'], ['--scene-diversity', '1,500', 'sceneDiversity: expected'], ['--adaptive-weights', '-1', 'adaptiveWeights'], ['--profile-weight', '-1', 'profileWeight']] as const) {
      const refused = await runCli(...base, flag, value);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(message);
    }
  });

  it('passes --reply-handoff and --length-signal through (no fixture turn asks: the handoff changes nothing) and refuses malformed values', async () => {
    const { turnsPath, qaPath } = writeFixture();
    const base = ['--embedder', 'hashing', 'eval', '--turns', turnsPath, '--qa', qaPath, '--no-progress'];
    const plainPath = join(dir, 'plain-handoff.jsonl');
    const handedPath = join(dir, 'handed.jsonl');
    expect((await runCli(...base, '--out', plainPath)).code).toBe(0);
    expect((await runCli(...base, '--out', handedPath, '--reply-handoff', '0.5,20')).code).toBe(0);
    expect(readFileSync(handedPath, 'utf8')).toBe(readFileSync(plainPath, 'utf8'));
    const lengthPath = join(dir, 'length.jsonl');
    expect((await runCli(...base, '--out', lengthPath, '--length-signal', '0.5,50')).code).toBe(0);
    expect((await runCli(...base, '--out', join(dir, 'prior.jsonl'), '--length-prior', '1')).code).toBe(0);
    expect(readFileSync(lengthPath, 'utf8').trim().split('\n')).toHaveLength(readFileSync(plainPath, 'utf8').trim().split('\n').length);
    for (const [flag, value, message] of [['--reply-handoff', 'x', '--reply-handoff: expected weight[,head]'], ['--reply-handoff', '1,500', 'replyHandoff: expected'], ['--reply-handoff', '-1', 'replyHandoff: expected'], ['--length-signal', 'x', '--length-signal: expected weight[,head]'], ['--length-signal', '1,500', 'lengthSignal: expected'], ['--length-prior', '-1', 'lengthPrior']] as const) {
      const refused = await runCli(...base, flag, value);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(message);
    }
  });

  it('passes --soft-tail through (the hashing embedder has no word table: nothing changes) and refuses malformed values', async () => {
    const { turnsPath, qaPath } = writeFixture();
    const base = ['--embedder', 'hashing', 'eval', '--turns', turnsPath, '--qa', qaPath, '--no-progress'];
    const plainPath = join(dir, 'plain-tail.jsonl');
    const tailPath = join(dir, 'tail.jsonl');
    expect((await runCli(...base, '--out', plainPath)).code).toBe(0);
    expect((await runCli(...base, '--out', tailPath, '--soft-tail', '200,10')).code).toBe(0);
    expect(readFileSync(tailPath, 'utf8')).toBe(readFileSync(plainPath, 'utf8'));
    expect((await runCli(...base, '--soft-tail', 'on')).code).toBe(0);
    for (const [value, message] of [['x', '--soft-tail: expected head[,keep]'], ['200,10,1', '--soft-tail: expected head[,keep]'], ['500', 'softTail: expected'], ['200,-1', 'softTail: expected']] as const) {
      const refused = await runCli(...base, '--soft-tail', value);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(message);
    }
  });

  it('builds the static embedder with SIF weights from a word-count file, and refuses static options for another embedder', async () => {
    const { turnsPath, qaPath } = writeFixture();
    const countsPath = join(dir, 'counts.txt');
    writeFileSync(countsPath, 'i 1000\nthe 900\nabout 300\nthinking 50\nkeep 60\n');
    const base = ['eval', '--turns', turnsPath, '--qa', qaPath, '--no-progress', '--conversations', 'conv-a'];
    const rank = await runCli('--embedder', 'static', ...base, '--out', join(dir, 'rank.jsonl'));
    const counted = await runCli('--embedder', 'static', ...base, '--word-counts', countsPath, '--out', join(dir, 'counted.jsonl'));
    expect(rank.code).toBe(0);
    expect(counted.code).toBe(0);
    expect(rank.out).toContain('static/glove-sg-100d-top100k-sif-rank,');
    expect(counted.out).toMatch(/static\/glove-sg-100d-top100k-sif-counts:counts\.txt-[0-9a-f]{8},/);
    const kept = await runCli('--embedder', 'static', ...base, '--word-counts', countsPath, '--common-component', 'off', '--sif-smoothing', '0.01');
    expect(kept.out).toMatch(/sif-counts:counts\.txt-[0-9a-f]{8}-a0\.01-nopc,/);
    for (const [args, message] of [
      [['--embedder', 'hashing', ...base, '--word-counts', countsPath], 'only the static embedder has a word table'],
      [['--embedder', 'static', ...base, '--common-component', 'maybe'], '--common-component: expected on or off'],
      [['--embedder', 'static', ...base, '--sif-smoothing', '0'], '--sif-smoothing: expected'],
      [['--embedder', 'static', ...base, '--word-counts', join(dir, 'no-such-counts.txt')], 'cannot read the word counts file'],
    ] as const) {
      const refused = await runCli(...args);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(message);
    }
  });

  it('refuses malformed dataset lines with the file and line number', async () => {
    const turnsPath = join(dir, 'bad.turns.jsonl');
    writeFileSync(turnsPath, '{"conv":"c","id":"D1:1","turn":0,"text":"hi"}\n{"conv":"c","id":"D1:2","turn":"one","text":"x"}\n');
    const qaPath = join(dir, 'bad.qa.jsonl');
    writeFileSync(qaPath, '');
    const result = await runCli('eval', '--turns', turnsPath, '--qa', qaPath, '--no-progress');
    expect(result.code).toBe(2);
    expect(result.err).toContain('bad.turns.jsonl:2: turn:');
  });

  it('computes recall as the share of evidence found and hit as any evidence found', () => {
    const metrics = new MetricsAccumulator([1, 3]);
    metrics.add(1, 'one', ['a', 'x', 'b'], ['a', 'b']);
    metrics.add(2, 'two', ['x', 'y', 'z'], ['a']);
    const overall = metrics.result().categories.at(-1);
    expect(overall).toMatchObject({ key: 'all', n: 2, recall: { 1: 0.25, 3: 0.5 }, hit: { 1: 0.5, 3: 0.5 } });
  });
});
