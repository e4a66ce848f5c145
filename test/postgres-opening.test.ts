// PostgreSQL beyond one process: two application processes on one database, openMemory({ url }), mnemo --db URL.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { Mnemo, openMemory } from '../src/open-memory.js';
import { openPostgresStore } from '../src/stores/postgres/index.js';
import { serverTarget, SERVER_SKIP_REASON, SERVER_URL } from './postgres-targets.js';
import { runCli } from './helpers.js';

const server = serverTarget();
const fixture = (name: string) => join(import.meta.dirname, 'fixtures', name);

/**
 * Starts writer processes on one schema; once every one has opened the store (migrating it together), tells
 * them all to go at once, and resolves with what each reports.
 */
function runWriters(schema: string, names: readonly string[], turns: number): Promise<{ name: string; writes: number }[]> {
  let ready = 0;
  const children = names.map((name) => spawn(process.execPath, ['--import', 'tsx', fixture('postgres-writer.ts'), SERVER_URL as string, schema, name, String(turns)], { stdio: ['pipe', 'pipe', 'pipe'] }));
  return Promise.all(children.map((child, index) => new Promise<{ name: string; writes: number }>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => {
      stdout += data.toString();
      if (data.toString().includes('ready') && ++ready === children.length) for (const each of children) each.stdin.write('go\n');
    });
    child.stderr.on('data', (data: Buffer) => { stderr += data.toString(); });
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(stdout.trim().split('\n').pop() as string)) : reject(new Error(`writer ${names[index]} exited with ${code}: ${stderr}`))));
  })));
}

describe('loading', () => {
  it('never loads the pg package for a SQLite or in-memory Mnemo', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { openMemory, silentLogger } = await import(${JSON.stringify(join(import.meta.dirname, '..', 'src', 'index.ts'))});
      const memory = await openMemory({ path: ':memory:', embedder: 'hashing', logger: silentLogger });
      await memory.add({ saveId: 's', turnId: 1, text: 'a lantern' });
      await memory.query('s', 'lantern');
      await memory.close();
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => /[\\\\/]node_modules[\\\\/]pg[\\\\/]/.test(path));
      console.log(JSON.stringify(loaded));`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: join(import.meta.dirname, '..') });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout.trim())).toEqual([]);
  });

  it('refuses a PostgreSQL URL given as a path, and two targets at once', async () => {
    await expect(openMemory({ path: 'postgres://localhost/game' })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('`url`') });
    await expect(openMemory({ path: 'a.db', url: 'postgres://localhost/game' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe.skipIf(SERVER_SKIP_REASON !== null)(`PostgreSQL server${SERVER_SKIP_REASON === null ? '' : ` (${SERVER_SKIP_REASON})`}`, () => {
  it('takes two application processes writing to one save at once, without losing a write', async () => {
    const schema = server.newSchema();
    const turns = 60;
    const results = await runWriters(schema, ['alpha', 'beta'], turns);
    const writesPerProcess = turns * 2 + turns / 5;
    expect(results.map((result) => result.writes)).toEqual([writesPerProcess, writesPerProcess]);

    const store = await openPostgresStore({ url: SERVER_URL as string, schema });
    // Every write bumped the shared save's version exactly once: none was lost or merged.
    expect(await store.saveVersion('shared')).toBe(2 * (turns + turns / 5));
    expect(await store.saveVersion('alpha')).toBe(turns);
    const chunks = await store.listChunks('shared');
    expect(chunks).toHaveLength(2 * turns * 3);
    for (const name of ['alpha', 'beta']) {
      for (let turn = 0; turn < turns; turn++) {
        const texts = chunks.filter((chunk) => chunk.chunkType === name && chunk.turnId === turn).map((chunk) => chunk.text);
        const verb = turn % 5 === 4 ? 'rewrote' : 'writes';
        expect(texts).toEqual([0, 1, 2].map((part) => `${name} ${verb} part ${part} of turn ${turn}`));
      }
    }
    const [summary] = (await store.listSaves()).filter((save) => save.saveId === 'shared');
    expect(summary).toMatchObject({ chunks: 360, minTurnId: 0, maxTurnId: turns - 1 });
    // The writes really interleaved: in insertion order, the writer changes many times.
    const writers: string[] = [];
    await store.vectorSearch.scanChunks('shared', (row) => writers.push(row.chunkType));
    expect(writers.filter((name, index) => index > 0 && name !== writers[index - 1]).length).toBeGreaterThan(10);
    await store.close();
  });

  it('never hands one living-memory job to two workers claiming at once through separate pools', async () => {
    const schema = server.newSchema();
    const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url: SERVER_URL as string, schema, poolSize: 4 })));
    for (let save = 0; save < 30; save++) await stores[0]!.living.enqueueTurn(`save-${save}`, 1, { text: `turn of save ${save}` }, 1000);
    const claimed: number[] = [];
    await Promise.all(stores.flatMap((store, worker) => [0, 1, 2, 3].map(async (lane) => {
      for (;;) {
        const job = await store.living.claimJob({ workerId: `worker-${worker}-${lane}`, now: 2000, leaseMs: 60_000 });
        if (job === null) return;
        claimed.push(job.jobId);
      }
    })));
    expect(claimed).toHaveLength(30);
    expect(new Set(claimed).size).toBe(30);
    expect(await stores[1]!.living.countJobs()).toMatchObject({ running: 30, pending: 0 });
    for (const store of stores) await store.close();
  });

  it('keeps a long-lived process in step with another process writing (versions rebuild its index)', async () => {
    const schema = server.newSchema();
    const reader = new Mnemo({ store: await openPostgresStore({ url: SERVER_URL as string, schema }), embedder: hashingEmbedder({ dimensions: 16 }), reranker: null, logger: silentLogger });
    expect(await reader.query('shared', 'alpha writes part', { k: 5 })).toEqual([]);
    await runWriters(schema, ['alpha'], 10);
    const hits = await reader.query('shared', 'alpha rewrote part 2 of turn 9', { k: 3 });
    expect(hits[0]?.text).toBe('alpha rewrote part 2 of turn 9');
    await reader.close();
  });

  it('reads through a connection where every transaction is read-only (as on a hot standby)', async () => {
    const schema = server.newSchema();
    const writer = await openPostgresStore({ url: SERVER_URL as string, schema });
    await new Mnemo({ store: writer, embedder: hashingEmbedder({ dimensions: 16 }), reranker: null, logger: silentLogger }).add({ saveId: 's', turnId: 3, text: 'The tide turns at dawn.' });
    await writer.close();
    const replicaUrl = `${SERVER_URL}${(SERVER_URL as string).includes('?') ? '&' : '?'}options=${encodeURIComponent('-c default_transaction_read_only=on')}`;
    await expect(openPostgresStore({ url: replicaUrl, schema })).rejects.toMatchObject({ code: 'STORE_FAILURE', message: expect.stringContaining('read-only transaction') });
    const reader = new Mnemo({ store: await openPostgresStore({ url: replicaUrl, schema, readonly: true }), embedder: hashingEmbedder({ dimensions: 16 }), reranker: null, logger: silentLogger });
    expect((await reader.query('s', 'tide at dawn')).map((hit) => hit.turnId)).toEqual([3]);
    await reader.close();
  });

  it('opens with openMemory({ url }) in the mnemo schema', async () => {
    const memory = await openMemory({ url: SERVER_URL as string, embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger });
    const saveId = `open-${process.pid}`;
    try {
      expect(memory.store.provider).toBe('postgres');
      expect(memory.store.location).toMatch(/#mnemo$/);
      await memory.add({ saveId, turnId: 1, text: 'The beacon on the cliff is lit.' });
      expect((await memory.query(saveId, 'beacon cliff'))[0]?.text).toBe('The beacon on the cliff is lit.');
    } finally {
      await memory.rewind(saveId, 0);
      await memory.close();
    }
  });

  it('runs every mnemo command with --db postgres://', async () => {
    const db = SERVER_URL as string;
    const saveId = `cli-${process.pid}`;
    expect((await runCli('--db', db, 'add', saveId, '1', 'The ferryman asks for a copper coin')).code).toBe(0);
    expect((await runCli('--db', db, 'add', saveId, '2', 'The river is calm tonight', '--type', 'dialogue')).code).toBe(0);
    const query = await runCli('--db', db, 'query', saveId, 'copper', 'coin');
    expect(query.out).toContain('1. [turn 1 · narrative] The ferryman asks for a copper coin');
    const stats = JSON.parse((await runCli('--db', db, 'stats', '--json')).out) as { db: string; provider: string; saves: { saveId: string; chunks: number }[] };
    expect(stats.provider).toBe('postgres');
    expect(stats.saves).toContainEqual(expect.objectContaining({ saveId, chunks: 2 }));
    expect((await runCli('--db', db, 'rewind', saveId, '0')).out).toBe(`rewound ${saveId} to turn 0: 2 chunks removed`);
    // The other layers' commands through the same URL.
    expect((await runCli('--db', db, 'add', saveId, '3', 'The bell tolls at the harbour')).code).toBe(0);
    expect(JSON.parse((await runCli('--db', db, 'fork', saveId, `${saveId}-branch`, '3', '--json')).out)).toMatchObject({ chunks: 1 });
    expect((await runCli('--db', db, 'remember', 'tide', '"high at dawn"', '--scope', `S${process.pid}`)).code).toBe(0);
    expect((await runCli('--db', db, 'recall', 'tide', '--scope', `S${process.pid}`, '--json')).out).toContain('high at dawn');
    expect((await runCli('--db', db, 'forget', '--scope', `S${process.pid}`, '--yes')).code).toBe(0);
    for (const command of [['living', 'status', saveId], ['facts', saveId], ['lore', 'list'], ['reindex', '--json']]) {
      const result = await runCli('--db', db, ...command);
      expect(result.code, `${command.join(' ')}: ${result.err}`).toBe(0);
    }
    expect((await runCli('--db', db, 'rewind', `${saveId}-branch`, '0')).code).toBe(0);
    expect((await runCli('--db', db, 'rewind', saveId, '0')).code).toBe(0);
    const demo = await runCli('--db', db, 'demo');
    expect(demo.code).toBe(0);
    expect(demo.out).toContain('✓ Before the rewind');
    expect((await runCli('--db', db, 'rewind', 'lighthouse', '0')).code).toBe(0);
  });
});
