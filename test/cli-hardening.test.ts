// CLI defects of the adversarial pass: every failure is a documented exit code (2, 3, 4) with a coded message and no stack.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { runCli, tempDir } from './helpers.js';

const dir = tempDir();

/** Exit 2 with a coded message, never a stack trace. */
function refused(result: { code: number; err: string }, code = 'INVALID_INPUT'): void {
  expect(result.code, result.err).toBe(2);
  expect(result.err).toContain(`error ${code}:`);
  expect(result.err).not.toMatch(/\n\s+at /u);
}

describe('the CLI on hostile input', () => {
  it('refuses a --db that is not SQLite, or in a folder that does not exist, with exit 2', async () => {
    const notSqlite = join(dir, 'notes.txt');
    writeFileSync(notSqlite, 'These are my notes, not a database. '.repeat(40));
    refused(await runCli('--db', notSqlite, 'stats'), 'NOT_A_DATABASE');
    refused(await runCli('--db', join(dir, 'no-such-folder', 'game.db'), 'stats'), 'NOT_A_DATABASE');
    refused(await runCli('--db', dir, 'stats'), 'NOT_A_DATABASE');
  });

  it('refuses ports, body sizes and timeouts out of range before listening', async () => {
    const db = join(dir, 'serve.db');
    for (const port of ['99999999', '-1', '65536']) refused(await runCli('--db', db, 'serve', '--insecure-local', '--port', port));
    for (const bytes of ['-1', '0']) refused(await runCli('--db', db, 'serve', '--insecure-local', '--max-body', bytes));
    refused(await runCli('--db', db, 'serve', '--insecure-local', '--shutdown-timeout', '-1'));
    refused(await runCli('--db', db, 'mcp', '--saves', ''));
    refused(await runCli('--db', db, 'mcp', '--saves', ' , '));
  });

  it('refuses a value nested 20,000 levels deep, an entry id over 200 characters and a limit of 0, like the HTTP API', async () => {
    const db = join(dir, 'values.db');
    refused(await runCli('--db', db, 'remember', 'deep', `${'['.repeat(20_000)}${']'.repeat(20_000)}`, '--scope', 'notes'), 'LIMIT_EXCEEDED');
    refused(await runCli('--db', db, '--embedder', 'none', 'add', 'camp', '1', 'hello', '--entry-id', 'x'.repeat(201)));
    refused(await runCli('--db', db, 'facts', 'camp', '--limit', '0'));
    refused(await runCli('--db', db, 'beliefs', 'camp', '--limit', '1001'));
    const memory = await openMemory({ path: db, embedder: null, logger: silentLogger });
    expect(await memory.count('camp')).toBe(0);
    expect(await memory.recall.listScopes()).toEqual([]);
    await memory.close();
  });

  it('refuses a YAML alias bomb in lore import, listing it as a problem', async () => {
    const repository = join(dir, 'bomb');
    mkdirSync(repository);
    writeFileSync(join(repository, 'index.yaml'), 'files: [bomb.yaml]\n');
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [index, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) laughs.push(`${name}: &${name} [${Array(9).fill(`*${'abcdefgh'[index]}`).join(',')}]`);
    writeFileSync(join(repository, 'bomb.yaml'), `${laughs.join('\n')}\nsource: bomb.yaml\nentries: []\n`);
    const result = await runCli('--db', join(dir, 'lore.db'), '--embedder', 'none', 'lore', 'import', repository);
    refused(result, 'LORE_INVALID');
    expect(result.err).toContain('bomb.yaml');
  });

  it('refuses a missions line without a colon instead of wiping every mission; --clear clears', async () => {
    const db = join(dir, 'missions.db');
    expect((await runCli('--db', db, 'living', 'missions', '--set', 'Marta: remembers gossip\nRowan: remembers debts')).code).toBe(0);
    const bad = await runCli('--db', db, 'living', 'missions', '--set', 'Marta remembers gossip');
    refused(bad);
    expect(bad.err).toContain('"Marta remembers gossip"');
    refused(await runCli('--db', db, 'living', 'missions', '--set', ''));
    const kept = await runCli('--db', db, 'living', 'missions', '--json');
    expect(JSON.parse(kept.out).missions).toEqual({ Marta: 'remembers gossip', Rowan: 'remembers debts' });
    expect((await runCli('--db', db, 'living', 'missions', '--clear')).code).toBe(0);
    expect(JSON.parse((await runCli('--db', db, 'living', 'missions', '--json')).out).missions).toEqual({});
  });

  it('prints errors as JSON with --json, and says when a queried save holds nothing', async () => {
    const db = join(dir, 'json.db');
    const result = await runCli('--db', db, 'facts', 'camp', '--limit', '0', '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.err)).toMatchObject({ error: { code: 'INVALID_INPUT', category: 'USER', details: { field: 'limit' } } });
    const empty = await runCli('--db', db, '--embedder', 'none', 'query', 'no-such-save', 'anything');
    expect(empty.code).toBe(0);
    expect(empty.out).toContain('save "no-such-save" holds no chunks');
  });

  it('runs a read-only query while another process holds the write lock', async () => {
    const db = join(dir, 'locked.db');
    expect((await runCli('--db', db, '--embedder', 'none', 'add', 'camp', '1', 'The smith owes Kaël three silver.')).code).toBe(0);
    const foreign = new Database(db);
    foreign.exec('BEGIN IMMEDIATE');
    try {
      const query = await runCli('--db', db, '--embedder', 'none', 'query', 'camp', 'smith');
      expect(query.code, query.err).toBe(0);
      expect(query.out).toContain('three silver');
      const write = await runCli('--db', db, '--embedder', 'none', 'rewind', 'camp', '0');
      expect(write.code).toBe(3);
      expect(write.err).toContain('error STORE_BUSY:');
    } finally {
      foreign.exec('ROLLBACK');
      foreign.close();
    }
  });
});
