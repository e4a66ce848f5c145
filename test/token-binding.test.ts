// Tokens bound to lore tags, characters and an expiry: a request outside its binding is 403, an expired token 401.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { createApi } from '../src/server/create-api.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import type { RunningHttpServer } from '../src/server/start-http-server.js';
import { parseTokenSpec, readTokensFile, TokenTable } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';
import { ApiClient } from './server-client.js';
import { MARTA, MARTA_TAGS, ORIEL_TAGS, SAVE, seedScene } from './serving-fixture.js';

const PLAYER = 'player-token-0123456789';
const TAGGED = 'tagged-token-0123456789';
const EXPIRED = 'expired-token-0123456789';
const OPEN = 'open-token-0123456789ab';
const dir = tempDir();
let memory: Mnemo;
let running: RunningHttpServer;
let api: ApiClient;

beforeAll(async () => {
  memory = await openMemory({ path: join(dir, 'binding.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
  await seedScene(memory);
  const file = join(dir, 'tokens.json');
  writeFileSync(file, JSON.stringify({
    tokens: [
      { name: 'marta-player', token: PLAYER, saves: [SAVE], characters: { [MARTA]: MARTA_TAGS }, expiresAt: '2999-01-01T00:00:00Z' },
      { name: 'old', token: EXPIRED, saves: [SAVE], expiresAt: '2001-01-01T00:00:00Z' },
    ],
  }));
  const grants = [...(await readTokensFile(file)), parseTokenSpec(`${TAGGED}:${SAVE};tags=${MARTA_TAGS.join(',')}`), { token: OPEN, saves: '*' as const }];
  running = await startHttpServer({ fetch: createApi({ memory, auth: new TokenTable(grants), logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
  api = new ApiClient(running.url, PLAYER);
});

afterAll(async () => {
  await running?.close();
  await memory?.close();
});

describe('a token bound to a character', () => {
  it('builds that character\'s context with its tags, and no other character\'s or tags', async () => {
    const ok = await api.call(`/v1/saves/${SAVE}/context`, { body: { character: MARTA, message: 'Who founded Brackwater?', tags: MARTA_TAGS } });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    await api.fails(`/v1/saves/${SAVE}/context`, 403, 'FORBIDDEN', { body: { character: 'Oriel', message: 'Who founded Brackwater?', tags: MARTA_TAGS } });
    const claimed = await api.fails(`/v1/saves/${SAVE}/context`, 403, 'FORBIDDEN', { body: { character: MARTA, message: 'tidelines', tags: [...MARTA_TAGS, ...ORIEL_TAGS] } });
    expect(claimed.message).toContain('tags');
  });

  it('searches and lists lore within the character\'s tags only', async () => {
    expect((await api.call('/v1/lore/search', { body: { query: 'tidelines', tags: MARTA_TAGS } })).status).toBe(200);
    await api.fails('/v1/lore/search', 403, 'FORBIDDEN', { body: { query: 'tidelines', tags: ORIEL_TAGS } });
    await api.fails(`/v1/lore/entries?tags=${ORIEL_TAGS.join(',')}`, 403, 'FORBIDDEN');
    expect((await api.call(`/v1/lore/entries?tags=${MARTA_TAGS.join(',')}`)).status).toBe(200);
  });

  it('shows its binding in /v1/access', async () => {
    const access = await api.call('/v1/access');
    expect(access.json).toMatchObject({ name: 'marta-player', admin: false, saves: [SAVE], tags: [...MARTA_TAGS].sort(), characters: { [MARTA]: [...MARTA_TAGS].sort() }, expiresAt: '2999-01-01T00:00:00.000Z' });
    expect((await new ApiClient(running.url, OPEN).call('/v1/access')).json).toEqual({ name: 'token #4', admin: false, saves: '*' });
  });
});

describe('a token bound to tags by its flag', () => {
  it('may claim those tags or fewer, for any character', async () => {
    const tagged = new ApiClient(running.url, TAGGED);
    expect((await tagged.call(`/v1/saves/${SAVE}/context`, { body: { character: 'Kaël', message: 'salt', tags: MARTA_TAGS.slice(0, 1) } })).status).toBe(200);
    await tagged.fails(`/v1/saves/${SAVE}/context`, 403, 'FORBIDDEN', { body: { character: 'Kaël', message: 'salt', tags: ORIEL_TAGS } });
  });
});

describe('an expired token', () => {
  it('gets 401 TOKEN_EXPIRED on every route, MCP included', async () => {
    const old = new ApiClient(running.url, EXPIRED);
    const refused = await old.fails('/v1/access', 401, 'TOKEN_EXPIRED');
    expect(refused.message).toContain('2001-01-01T00:00:00.000Z');
    await old.fails(`/v1/saves/${SAVE}/query`, 401, 'TOKEN_EXPIRED', { body: { query: 'salt' } });
    const mcp = await old.call('/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
    expect(mcp.status).toBe(401);
  });
});

describe('token specs', () => {
  it('parse bindings after the saves, and refuse malformed ones and bindings on admin tokens', () => {
    expect(parseTokenSpec('s3cr3t-s3cr3t-s3cr3t:run-1;tags=a,b;characters=Marta;expires=2030-01-01T00:00:00Z')).toEqual({ token: 's3cr3t-s3cr3t-s3cr3t', saves: ['run-1'], tags: ['a', 'b'], characters: ['Marta'], expiresAt: '2030-01-01T00:00:00Z' });
    expect(parseTokenSpec('s3cr3t-s3cr3t-s3cr3t:*;tags=a')).toMatchObject({ saves: '*', tags: ['a'] });
    expect(() => parseTokenSpec('s3cr3t-s3cr3t-s3cr3t;expires=soon')).toThrow(/expires=/u);
    expect(() => parseTokenSpec('s3cr3t-s3cr3t-s3cr3t;colour=blue')).toThrow(/tags=/u);
    expect(parseTokenSpec('s3cr3t-s3cr3t-s3cr3t;expires=2030-01-01T00:00:00Z', '--admin-token', true)).toMatchObject({ admin: true, expiresAt: '2030-01-01T00:00:00Z' });
    expect(() => parseTokenSpec('s3cr3t-s3cr3t-s3cr3t;tags=a', '--admin-token', true)).toThrow(/admin token/u);
    expect(() => new TokenTable([{ token: 's3cr3t-s3cr3t-s3cr3t', saves: '*', admin: true, tags: ['a'] }])).toThrow(/admin token/u);
  });
});
