// The CLI end to end through main(): output, JSON, exit codes, and the demo's own checks.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const dir = tempDir();

describe('mnemo CLI', () => {
  const db = join(dir, 'cli.db');

  it('adds, queries with explanations, rewinds and reports stats', async () => {
    const added = await runCli('--db', db, 'add', 'camp', '1', 'The', 'ferryman', 'asks', 'for', 'a', 'copper', 'coin');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^[0-9a-f-]{36}$/);
    expect((await runCli('--db', db, 'add', 'camp', '2', 'The river is calm tonight', '--type', 'dialogue', '--metadata', '{"mood":"calm"}')).code).toBe(0);

    const query = await runCli('--db', db, 'query', 'camp', 'copper', 'coin?');
    expect(query.code).toBe(0);
    expect(query.out).toContain('1. [turn 1 · narrative] The ferryman asks for a copper coin');
    expect(query.out).toMatch(/words #1, bm25 \d+\.\d+/);

    const json = JSON.parse((await runCli('--db', db, 'query', 'camp', 'river', '--json', '--type', 'dialogue')).out) as { turnId: number; metadata: { mood: string } }[];
    expect(json).toHaveLength(1);
    expect(json[0]?.metadata.mood).toBe('calm');

    const stats = await runCli('--db', db, 'stats', '--json');
    expect(JSON.parse(stats.out).saves).toEqual([expect.objectContaining({ saveId: 'camp', chunks: 2, minTurnId: 1, maxTurnId: 2 })]);

    const rewind = await runCli('--db', db, 'rewind', 'camp', '1');
    expect(rewind.out).toBe('rewound camp to turn 1: 1 chunk removed');
    expect((await runCli('--db', db, 'rewind', 'nowhere', '1')).out).toContain('0 chunks removed');
  });

  it('filters a query by metadata with --where', async () => {
    const path = join(dir, 'where.db');
    await runCli('--db', path, 'add', 'camp', '1', 'The copper bell rings', '--metadata', '{"speaker":"Marta","level":1}');
    await runCli('--db', path, 'add', 'camp', '2', 'The copper coin falls', '--metadata', '{"speaker":"Rowan"}');
    await runCli('--db', path, 'add', 'camp', '3', 'The copper kettle sings');
    const turns = async (...where: string[]) => (JSON.parse((await runCli('--db', path, 'query', 'camp', 'copper', '--json', ...where.flatMap((flag) => ['--where', flag]))).out) as { turnId: number }[]).map((hit) => hit.turnId).sort();
    expect(await turns('speaker=Marta')).toEqual([1]);
    expect(await turns('speaker=Marta', 'speaker=Rowan')).toEqual([1, 2]);
    expect(await turns('level:=1')).toEqual([1]);
    expect(await turns('!speaker')).toEqual([3]);
    expect(await turns('speaker', '!level')).toEqual([2]);
    const bad = await runCli('--db', path, 'query', 'camp', 'copper', '--where', 'level:={oops');
    expect(bad).toMatchObject({ code: 2, err: expect.stringContaining('--where level:={oops: expected KEY:=JSON') });
  });

  it('deletes chunks by id or by entry after --yes', async () => {
    const path = join(dir, 'delete-chunks.db');
    const first = (await runCli('--db', path, 'add', 'camp', '1', 'The ferryman asks for a copper coin', '--entry-id', 'ferry')).out;
    await runCli('--db', path, 'add', 'camp', '2', 'The ferryman hums a copper song', '--entry-id', 'ferry');
    const other = (await runCli('--db', path, 'add', 'camp', '3', 'The copper bell rings')).out;
    const unconfirmed = await runCli('--db', path, 'delete', 'camp', '--chunk', other);
    expect(unconfirmed).toMatchObject({ code: 2, err: expect.stringContaining('this would remove 1 chunk id(s) of save "camp". Nothing was deleted') });
    expect(await runCli('--db', path, 'delete', 'camp', '--chunk', other, 'no-such-id', '--yes')).toMatchObject({ code: 0, out: 'deleted 1 chunks of camp' });
    expect(JSON.parse((await runCli('--db', path, 'delete', 'camp', '--entry-id', 'ferry', '--yes', '--json')).out)).toEqual({ saveId: 'camp', chunks: 2 });
    expect((await runCli('--db', path, 'delete', 'camp', '--chunk', first, '--entry-id', 'ferry', '--yes')).err).toContain('exactly one of ids and entryId');
    expect(JSON.parse((await runCli('--db', path, 'query', 'camp', 'copper', '--json')).out)).toEqual([]);
  });

  it('exits 2 with a clear message on bad input, and writes nothing', async () => {
    const path = join(dir, 'bad.db');
    const negative = await runCli('--db', path, 'add', 'camp', '-3', 'text');
    expect(negative.code).toBe(2);
    expect(negative.err).toContain('turnId: expected an integer >= 0, got -3');
    const notNumber = await runCli('--db', path, 'add', 'camp', 'three', 'text');
    expect(notNumber.code).toBe(2);
    expect(notNumber.err).toContain('turnId: expected an integer, got "three"');
    const badMetadata = await runCli('--db', path, 'add', 'camp', '1', 'x', '--metadata', '{oops');
    expect(badMetadata.err).toContain('--metadata: expected a JSON object');
    const hugeK = await runCli('--db', path, 'query', 'camp', 'x', '-k', '1000000');
    expect(hugeK.code).toBe(2);
    expect(hugeK.err).toContain('error LIMIT_EXCEEDED: k: at most 1,000 hits (limit k');
    expect(JSON.parse((await runCli('--db', path, 'stats', '--json')).out).saves).toEqual([]);
    expect((await runCli('--db', path, 'no-such-command')).code).toBe(2);
  });

  it('runs the demo, whose own rewind check holds', async () => {
    const demo = await runCli('demo');
    expect(demo.code).toBe(0);
    expect(demo.out).toContain('Ingested 50 turns');
    expect(demo.out).toContain('Rewind to turn 40: 10 chunks removed; 40 remain.');
    expect(demo.out).toContain('✓ Before the rewind the top 5 held turns after 40; after it none surfaces');
  });
});
