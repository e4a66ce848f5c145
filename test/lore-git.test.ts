// Lore from a git repository: real git, a bare repository pushed to by the test, read by path, file:// and smart HTTP on loopback.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { gitLoreSource } from '../src/lore/sources/git-lore-source.js';
import { gitRemote } from '../src/lore/sources/git-remote.js';
import { Mnemo } from '../src/open-memory.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { countingEmbedder } from '../src/testing/counting-embedder.js';
import { loreRemote, serveGitHttp } from './git-fixture.js';
import type { GitHttpServer, LoreRemote } from './git-fixture.js';
import { runCli, tempDir } from './helpers.js';

const dir = tempDir('mnemo-lore-git-');
let counter = 0;

const entry = (title: string, content: string, level = 'regional', tags = '[brackwater]') => `  - title: ${title}\n    scope_level: ${level}\n    scope_tags: ${tags}\n    content: ${content}\n`;
const file = (source: string, ...entries: string[]) => `source: ${source}\nentries:\n${entries.join('')}`;
const WORLD = {
  'index.yaml': 'files: [world.yaml, town.yaml]\n',
  'world.yaml': file('world.yaml', entry('The Long Drowning', 'The sea rose over the old coast.', 'continental', '[]')),
  'town.yaml': file('town.yaml', entry('Founding', 'Brackwater was founded by eel fishers.'), entry('Salt Toll', 'Barges pay a toll in salt.')),
  'README.md': 'Lore of the world.\n',
};

function open(embedder = countingEmbedder(hashingEmbedder({ dimensions: 32 }))) {
  const path = join(dir, `book-${++counter}.db`);
  const store = openSqliteStore({ path });
  return { memory: new Mnemo({ store, embedder, reranker: null, logger: silentLogger }), embedder, path };
}

const cacheDir = () => join(dir, `cache-${++counter}`);
const titles = async (memory: Mnemo) => (await memory.lore.list()).map((item) => item.title);

describe('lore from a git repository by path and file://', () => {
  let remote: LoreRemote;
  let first: string;
  beforeAll(() => {
    remote = loreRemote(dir, 'world');
    first = remote.commit(WORLD, 'the world');
  });

  it('imports a branch read without a checkout, records the commit, and a re-import writes nothing', async () => {
    const { memory, embedder } = open();
    const git = { url: remote.bare, ref: 'main', cacheDir: cacheDir() };
    const report = await memory.lore.importRepository({ git });
    expect(report).toMatchObject({ entries: 3, files: ['world.yaml', 'town.yaml'], written: true, previous: null, origin: { reader: 'git', location: remote.bare, ref: 'main', commit: first } });
    const status = await memory.lore.status();
    expect(status).toMatchObject({ entries: 3, version: 1, origin: { reader: 'git', location: remote.bare, ref: 'main', commit: first } });
    expect(status.origin?.importedAt).toBeGreaterThan(0);
    embedder.reset();
    const again = await memory.lore.importRepository({ git });
    expect(again).toMatchObject({ written: false, embedded: 0, version: 1, previous: { commit: first }, origin: { commit: first } });
    expect(embedder.calls).toBe(0);
    const [cached, ...others] = readdirSync(git.cacheDir);
    expect(others).toEqual([]);
    expect(cached).toMatch(/^[0-9a-f]{24}\.git$/);
    expect(readFileSync(join(git.cacheDir, cached ?? '', 'config'), 'utf8')).toMatch(/bare = true/);
    expect(existsSync(join(git.cacheDir, cached ?? '', 'index.yaml'))).toBe(false);
    await memory.close();
  });

  it('dry-runs the range between the live commit and a new push, then imports it; a push that changes no lore moves only the commit', async () => {
    const { memory, embedder } = open();
    const git = { url: `file://${remote.bare}`, cacheDir: cacheDir() };
    const live = await memory.lore.importRepository({ git });
    expect(live.origin).toMatchObject({ location: `file://${remote.bare}`, ref: 'HEAD', commit: first });
    const second = remote.commit({ 'town.yaml': file('town.yaml', entry('Founding', 'Brackwater was founded by eel fishers and salt panners.'), entry('Bell', 'The Sunken Bell rings at low tide.')) }, 'edit the town');
    embedder.reset();
    const dry = await memory.lore.importRepository({ git }, { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, written: false, previous: { commit: first }, origin: { commit: second } });
    expect(dry.created.map((item) => item.title)).toEqual(['Bell']);
    expect(dry.updated.map((item) => [item.title, item.changes])).toEqual([['Founding', ['content']]]);
    expect(dry.removed.map((item) => item.title)).toEqual(['Salt Toll']);
    expect(embedder.calls).toBe(0);
    expect((await memory.lore.status()).origin?.commit).toBe(first);
    const applied = await memory.lore.importRepository({ git });
    expect(applied).toMatchObject({ written: true, version: 2, embedded: 2, created: dry.created, updated: dry.updated, removed: dry.removed });
    expect((await memory.lore.status()).origin?.commit).toBe(second);
    const third = remote.commit({ 'README.md': 'Lore of the world, edited.\n' }, 'readme only');
    embedder.reset();
    const moved = await memory.lore.importRepository({ git });
    expect(moved).toMatchObject({ written: true, version: 2, embedded: 0, unchanged: 3, created: [], updated: [], removed: [] });
    expect(await memory.lore.status()).toMatchObject({ version: 2, origin: { commit: third } });
    await memory.close();
  });

  it('imports a tag and a commit id, and refuses a ref that does not exist, writing nothing', async () => {
    const { memory } = open();
    const cache = cacheDir();
    remote.tag('v1', first);
    expect((await memory.lore.importRepository({ git: { url: remote.bare, ref: 'v1', cacheDir: cache } })).origin).toMatchObject({ ref: 'v1', commit: first });
    expect(await titles(memory)).toEqual(['Founding', 'Salt Toll', 'The Long Drowning']);
    const head = (await gitLoreSource({ url: remote.bare, cacheDir: cache }).snapshot()).origin.commit ?? '';
    expect((await memory.lore.importRepository({ git: { url: remote.bare, ref: head, cacheDir: cache } })).origin).toMatchObject({ ref: head, commit: head });
    const before = await memory.lore.status();
    await expect(memory.lore.importRepository({ git: { url: remote.bare, ref: 'no-such-branch', cacheDir: cache } })).rejects.toMatchObject({
      code: 'NOT_FOUND', message: expect.stringContaining('git ref "no-such-branch": no branch, tag or commit of that name'),
    });
    await expect(memory.lore.importRepository({ git: { url: remote.bare, ref: 'f'.repeat(40), cacheDir: cache } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(memory.lore.importRepository({ git: { url: remote.bare, ref: '--upload-pack=touch pwned', cacheDir: cache } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await memory.lore.status()).toEqual(before);
    await memory.close();
  });

  it('refuses a push that breaks validation, a repository without index.yaml and symbolic links, keeping the live book', async () => {
    const { memory } = open();
    const broken = loreRemote(dir, `broken-${++counter}`);
    const good = broken.commit(WORLD, 'good');
    const git = { url: broken.bare, ref: 'main', cacheDir: cacheDir() };
    await memory.lore.importRepository({ git });
    const before = { status: await memory.lore.status(), entries: await memory.lore.list() };
    broken.commit({ 'town.yaml': file('town.yaml', entry('Founding', 'Words.', 'city')) }, 'a bad level');
    await expect(memory.lore.importRepository({ git })).rejects.toMatchObject({ code: 'LORE_INVALID', message: expect.stringContaining('scope_level must be one of continental, regional, local, faction, got "city"') });
    broken.commit({ 'town.yaml': WORLD['town.yaml'], 'index.yaml': null }, 'no manifest');
    await expect(memory.lore.importRepository({ git })).rejects.toMatchObject({ code: 'LORE_INVALID', message: expect.stringContaining('index.yaml: not found') });
    broken.commit({ 'index.yaml': WORLD['index.yaml'] }, 'manifest back');
    broken.link('town.yaml', '/etc/passwd');
    broken.commit({}, 'a symbolic link');
    const linked = (await memory.lore.importRepository({ git }).catch((error: unknown) => error)) as Error;
    expect(linked).toMatchObject({ code: 'LORE_INVALID', message: expect.stringContaining('files[1] town.yaml is a symbolic link; lore is read only from files inside the repository') });
    expect(linked.message).not.toContain('root:');
    expect({ status: await memory.lore.status(), entries: await memory.lore.list() }).toEqual(before);
    expect(before.status.origin?.commit).toBe(good);
    await memory.close();
  });

  it('follows a force-push: the rewritten branch is imported, entries of the dropped commit removed', async () => {
    const { memory } = open();
    const forced = loreRemote(dir, `forced-${++counter}`);
    const base = forced.commit(WORLD, 'base');
    const dropped = forced.commit({ 'town.yaml': file('town.yaml', entry('Founding', 'Brackwater was founded by eel fishers.'), entry('Salt Toll', 'Barges pay a toll in salt.'), entry('Dropped', 'An entry that is pushed over.')) }, 'to be dropped');
    const git = { url: forced.bare, ref: 'main', cacheDir: cacheDir() };
    expect((await memory.lore.importRepository({ git })).origin.commit).toBe(dropped);
    const rewritten = forced.forcePush(base, { 'town.yaml': file('town.yaml', entry('Founding', 'Brackwater was founded by eel fishers.'), entry('Rewritten', 'The history as it now stands.')) }, 'rewritten');
    const dry = await memory.lore.importRepository({ git }, { dryRun: true });
    expect(dry).toMatchObject({ previous: { commit: dropped }, origin: { commit: rewritten } });
    expect(dry.removed.map((item) => item.title).sort()).toEqual(['Dropped', 'Salt Toll']);
    await memory.lore.importRepository({ git });
    expect(await titles(memory)).toEqual(['Founding', 'Rewritten', 'The Long Drowning']);
    expect((await memory.lore.status()).origin?.commit).toBe(rewritten);
    await memory.close();
  });

  it('refuses transports that run commands, and a url that git would read as an option', async () => {
    const { memory } = open();
    const marker = join(dir, 'ext-ran');
    await expect(memory.lore.importRepository({ git: { url: `ext::sh -c touch% ${marker}`, cacheDir: cacheDir(), timeoutMs: 10_000 } })).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining("transport 'ext' not allowed") });
    expect(existsSync(marker)).toBe(false);
    await expect(memory.lore.importRepository({ git: { url: '--upload-pack=touch x', cacheDir: cacheDir() } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.lore.importRepository({ git: { url: 'gopher://host/lore', cacheDir: cacheDir() } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await memory.lore.status()).toMatchObject({ entries: 0, origin: null });
    await memory.close();
  });

  it('imports from the command line: --git and --ref, the commit range in the dry run, and lore status', async () => {
    const cli = loreRemote(dir, `cli-${++counter}`);
    const one = cli.commit(WORLD, 'one');
    const db = join(dir, `cli-${counter}.db`);
    const cache = cacheDir();
    const imported = await runCli('--db', db, '--embedder', 'hashing', 'lore', 'import', '--git', cli.bare, '--ref', 'main', '--git-cache', cache);
    expect(imported.code).toBe(0);
    expect(imported.out).toContain(`Source: git ${cli.bare} at main; commits none from this repository -> ${one}.`);
    const two = cli.commit({ 'world.yaml': file('world.yaml', entry('The Long Drowning', 'The sea rose over the old coast, twice.', 'continental', '[]')) }, 'two');
    const dry = await runCli('--db', db, '--embedder', 'hashing', 'lore', 'import', '--git', cli.bare, '--ref', 'main', '--git-cache', cache, '--dry-run');
    expect(dry.out).toContain(`commits ${one} -> ${two}.`);
    expect(dry.out).toContain('  ~ world.yaml: The Long Drowning (content)');
    const status = await runCli('--db', db, 'lore', 'status');
    expect(status.out).toContain(`live lore: git ${cli.bare} at main (commit ${one})`);
    const fromEnvironment = { ...process.env };
    process.env.MNEMO_LORE_GIT_URL = cli.bare;
    process.env.MNEMO_LORE_GIT_REF = 'main';
    process.env.MNEMO_LORE_GIT_CACHE = cache;
    try {
      expect((await runCli('--db', db, '--embedder', 'hashing', 'lore', 'import')).out).toContain(`commits ${one} -> ${two}.`);
    } finally {
      process.env = fromEnvironment;
    }
    const json = JSON.parse((await runCli('--db', db, 'lore', 'status', '--json')).out) as { origin: { commit: string } };
    expect(json.origin.commit).toBe(two);
    expect((await runCli('--db', db, 'lore', 'import', '--git', cli.bare, join(dir, 'x'))).code).toBe(2);
    expect((await runCli('--db', db, 'lore', 'import', '--git', cli.bare, '--ref', 'nope', '--git-cache', cache)).err).toContain('error NOT_FOUND: git ref "nope"');
  });
});

describe('lore from a git repository over smart HTTP on loopback', () => {
  let remote: LoreRemote;
  let server: GitHttpServer;
  let commit: string;
  const auth = { user: 'lore-bot', password: 'tok-3f9a7c1e5d' };
  beforeAll(async () => {
    remote = loreRemote(dir, 'served');
    commit = remote.commit(WORLD, 'served world');
    server = await serveGitHttp(remote.root, { auth });
  });
  afterAll(() => server.close());

  it('sends credentials from the environment, never records or shows them', async () => {
    const { memory, path } = open();
    const url = `${server.url}/served.git`;
    const environment = { ...process.env, MNEMO_LORE_GIT_TOKEN: auth.password, MNEMO_LORE_GIT_USERNAME: auth.user };
    const report = await memory.lore.importRepository({ git: { url, ref: 'main', cacheDir: cacheDir(), environment } });
    expect(report.origin).toEqual({ reader: 'git', location: url, ref: 'main', commit });
    expect(server.authorizations.some((header) => header === `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`)).toBe(true);
    const inUrl = await memory.lore.importRepository({ git: { url: url.replace('http://', `http://${auth.user}:${auth.password}@`), ref: 'main', cacheDir: cacheDir() } });
    expect(inUrl.origin.location).toBe(url);
    await memory.close();
    const bytes = readFileSync(path).toString('latin1');
    expect(bytes).toContain(url);
    expect(bytes).not.toContain(auth.password);
  });

  it('refuses wrong or missing credentials with a hint, without echoing them, writing nothing', async () => {
    const { memory } = open();
    const wrong = `${server.url.replace('http://', 'http://lore-bot:wrong-secret-9@')}/served.git`;
    const error = (await memory.lore.importRepository({ git: { url: wrong, ref: 'main', cacheDir: cacheDir() } }).catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('The remote asked for credentials: set MNEMO_LORE_GIT_TOKEN') });
    expect(JSON.stringify({ message: error.message, details: (error as { details?: unknown }).details })).not.toContain('wrong-secret-9');
    const none = await memory.lore.importRepository({ git: { url: `${server.url}/served.git`, cacheDir: cacheDir(), environment: { ...process.env, MNEMO_LORE_GIT_TOKEN: '' } } }).catch((caught: unknown) => caught);
    expect(none).toMatchObject({ code: 'PROVIDER_FAILURE' });
    expect(await memory.lore.status()).toMatchObject({ entries: 0, origin: null });
    await memory.close();
  });

  it('gives up on a stalled server within its bound, and reports a dropped connection, writing nothing', async () => {
    const { memory } = open();
    const environment = { ...process.env, MNEMO_LORE_GIT_TOKEN: auth.password, MNEMO_LORE_GIT_USERNAME: auth.user };
    const git = { url: `${server.url}/served.git`, ref: 'main', cacheDir: cacheDir(), environment };
    await memory.lore.importRepository({ git });
    const before = { status: await memory.lore.status(), entries: await memory.lore.list() };
    remote.commit({ 'town.yaml': file('town.yaml', entry('Founding', 'Changed while the server stalls.')) }, 'unseen');
    try {
      server.options.mode = 'stall';
      await expect(memory.lore.importRepository({ git: { ...git, timeoutMs: 1500 } })).rejects.toMatchObject({ code: 'PROVIDER_TIMEOUT', message: expect.stringContaining('git timed out after 1500 ms fetching') });
      server.options.mode = 'drop';
      await expect(memory.lore.importRepository({ git: { ...git, timeoutMs: 20_000 } })).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('Empty reply from server') });
    } finally {
      server.options.mode = 'serve';
    }
    expect({ status: await memory.lore.status(), entries: await memory.lore.list() }).toEqual(before);
    await memory.close();
  });
});

describe('git remotes', () => {
  it('strips credentials from the location and keeps them out of the command line', () => {
    const remote = gitRemote('https://bot:p%40ss@git.example/lore.git', {});
    expect(remote.location).toBe('https://git.example/lore.git');
    expect(remote.config).toEqual([['http.https://git.example/lore.git.extraHeader', `Authorization: Basic ${Buffer.from('bot:p@ss').toString('base64')}`]]);
    expect(remote.secrets).toContain('p@ss');
    expect(gitRemote('https://git.example/lore.git', { MNEMO_LORE_GIT_TOKEN: 'ghp_x1' }).config[0]?.[1]).toBe(`Authorization: Basic ${Buffer.from('x-access-token:ghp_x1').toString('base64')}`);
    expect(gitRemote('ssh://git:pw12@host/lore.git', {}).location).toBe('ssh://git@host/lore.git');
    expect(gitRemote('git@host:world/lore.git', {}).location).toBe('git@host:world/lore.git');
    expect(gitRemote('relative/lore.git', {}).location).toBe(join(process.cwd(), 'relative/lore.git'));
  });
});
