// Tokens, the tokens file, --insecure-local and loopback rules, and how `mnemo serve` refuses an unsafe start.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { resolveAuth } from '../src/cli/server-options.js';
import type { ServerFlags } from '../src/cli/server-options.js';
import { isLoopbackHost, requireLoopbackRequest } from '../src/server/loopback.js';
import { parseTokenSpec, readTokensFile, TokenTable } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
const flags = (extra: Partial<ServerFlags> = {}): ServerFlags => ({ port: 0, host: '127.0.0.1', token: [], adminToken: [], maxBody: 1024, shutdownTimeout: 1000, ...extra });

describe('tokens', () => {
  it('parses SECRET and SECRET:save,save, refusing short secrets and empty saves', () => {
    expect(parseTokenSpec('abcdefghijklmnop')).toEqual({ token: 'abcdefghijklmnop', saves: '*', admin: false });
    expect(parseTokenSpec('abcdefghijklmnop:run-1, run-2')).toEqual({ token: 'abcdefghijklmnop', saves: ['run-1', 'run-2'] });
    expect(() => parseTokenSpec('short')).toThrow(/at least 16 characters/u);
    expect(() => parseTokenSpec('abcdefghijklmnop:run-1,,x')).toThrow(/non-empty save ids/u);
    expect(() => parseTokenSpec('abcdefghijklmnop:run-1', '--admin-token', true)).toThrow(/reaches every save/u);
  });

  it('authenticates bearer headers only, in constant time, to the principal of the token', () => {
    const table = new TokenTable([{ token: 'abcdefghijklmnop', saves: ['a'] }, { token: 'qrstuvwxyz012345', saves: '*', admin: true, name: 'author' }]);
    expect(table.authenticate('Bearer abcdefghijklmnop')).toEqual({ name: 'token #1', admin: false, saves: new Set(['a']) });
    expect(table.authenticate('bearer   qrstuvwxyz012345 ')).toEqual({ name: 'author', admin: true, saves: null });
    expect(table.authenticate('Bearer abcdefghijklmnoq')).toBeNull();
    expect(table.authenticate('abcdefghijklmnop')).toBeNull();
    expect(table.authenticate(undefined)).toBeNull();
    expect(() => new TokenTable([{ token: 'abcdefghijklmnop', saves: '*' }, { token: 'abcdefghijklmnop', saves: ['a'] }])).toThrow(/repeats/u);
  });

  it('reads a tokens file and reports every problem in it', async () => {
    const good = join(dir, 'tokens.json');
    writeFileSync(good, JSON.stringify({ tokens: [{ name: 'game', token: 'abcdefghijklmnop', saves: ['run-1'] }, { token: 'qrstuvwxyz012345', admin: true }] }));
    expect(await readTokensFile(good)).toEqual([{ name: 'game', token: 'abcdefghijklmnop', saves: ['run-1'], admin: false }, { token: 'qrstuvwxyz012345', saves: '*', admin: true }]);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tokens: [{ token: 'short', saves: [] }], extra: 1 }));
    await expect(readTokensFile(bad)).rejects.toThrow(/tokens\.0\.token: must be at least 16.*tokens\.0\.saves.*Unrecognized key/su);
    await expect(readTokensFile(join(dir, 'absent.json'))).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('ENOENT') });
  });
});

describe('resolving auth', () => {
  it('needs a token unless --insecure-local, and takes MNEMO_TOKEN when no flag names one', async () => {
    await expect(resolveAuth(flags(), {})).rejects.toThrow(/needs a bearer token/u);
    expect((await resolveAuth(flags(), { MNEMO_TOKEN: 'abcdefghijklmnop:run-1' }) as TokenTable).authenticate('Bearer abcdefghijklmnop')?.saves).toEqual(new Set(['run-1']));
    expect((await resolveAuth(flags({ token: ['qrstuvwxyz012345'] }), { MNEMO_TOKEN: 'abcdefghijklmnop' }) as TokenTable).size).toBe(1);
    expect((await resolveAuth(flags(), { MNEMO_ADMIN_TOKEN: 'qrstuvwxyz012345' }) as TokenTable).authenticate('Bearer qrstuvwxyz012345')?.admin).toBe(true);
  });

  it('allows --insecure-local on loopback only, and never with tokens', async () => {
    expect(await resolveAuth(flags({ insecureLocal: true }), {})).toBe('insecure-local');
    expect(await resolveAuth(flags({ insecureLocal: true, host: '::1' }), {})).toBe('insecure-local');
    await expect(resolveAuth(flags({ insecureLocal: true, host: '0.0.0.0' }), {})).rejects.toThrow(/not a loopback address/u);
    await expect(resolveAuth(flags({ insecureLocal: true, host: '192.168.1.20' }), {})).rejects.toThrow(/not a loopback address/u);
    await expect(resolveAuth(flags({ insecureLocal: true, token: ['abcdefghijklmnop'] }), {})).rejects.toThrow(/expected no tokens/u);
  });

  it('makes `mnemo serve` exit 2 before listening when the start is unsafe', async () => {
    const lines: string[] = [];
    const output = { out: (text: string) => lines.push(text), err: (text: string) => lines.push(text) };
    const db = join(dir, 'refused.db');
    expect(await main(['node', 'mnemo', '--db', db, 'serve', '--host', '0.0.0.0', '--insecure-local'], output)).toBe(2);
    expect(lines.join('\n')).toContain('--insecure-local: refused on --host 0.0.0.0');
    expect(await main(['node', 'mnemo', '--db', db, 'serve', '--port', '0'], output)).toBe(2);
    expect(lines.join('\n')).toContain('needs a bearer token');
  });
});

describe('loopback', () => {
  it('knows loopback names and addresses', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'api.localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1', '']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('checks the Host and Origin of a request without a token', () => {
    expect(() => requireLoopbackRequest('127.0.0.1:7420', undefined)).not.toThrow();
    expect(() => requireLoopbackRequest('[::1]:7420', 'http://localhost:3000')).not.toThrow();
    expect(() => requireLoopbackRequest('attacker.example:7420', undefined)).toThrow(/loopback name/u);
    expect(() => requireLoopbackRequest(undefined, undefined)).toThrow(/loopback name/u);
    expect(() => requireLoopbackRequest('localhost:7420', 'https://attacker.example')).toThrow(/other origins/u);
    expect(() => requireLoopbackRequest('localhost:7420', 'null')).toThrow(/opaque origins/u);
  });
});
