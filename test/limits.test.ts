// The bounds of LIMITS, enforced the same way by the library, the HTTP API and the MCP tools, and the defects they fixed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/core/limits.js';
import { requireJsonValue } from '../src/core/json-value.js';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import fc from 'fast-check';
import { TimeSlice } from '../src/core/time-slice.js';
import { FocusMatcher, focusMatches, matchHead } from '../src/retrieval/focus-boost.js';
import { createApi } from '../src/server/create-api.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import type { RunningHttpServer } from '../src/server/start-http-server.js';
import { TokenTable } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';
import { ApiClient } from './server-client.js';

const TOKEN = 'limits-token-0123456789';
const ADMIN = 'limits-admin-0123456789';
const dir = tempDir();
let memory: Mnemo;
let running: RunningHttpServer;
let api: ApiClient;

/** A value nested `depth` levels deep: [[[...]]]. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

beforeAll(async () => {
  memory = await openMemory({ path: join(dir, 'limits.db'), embedder: null, logger: silentLogger });
  await memory.add({ saveId: 'run-1', turnId: 1, text: 'Rowan wipes the bar of the Harvest Moon.' });
  const auth = new TokenTable([{ token: TOKEN, saves: ['run-1'] }, { token: ADMIN, admin: true, saves: '*' }]);
  running = await startHttpServer({ fetch: createApi({ memory, auth, logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
  api = new ApiClient(running.url, TOKEN);
});

afterAll(async () => {
  await running?.close();
  await memory?.close();
});

describe('focus terms', () => {
  it('match whole tokens in order, for one and for two tokens', () => {
    expect(focusMatches('Rowan wipes the bar of the Harvest Moon.', ['harvest moon', 'Tindel', 'rowan'])).toEqual(['harvest moon', 'rowan']);
    expect(focusMatches('the moon over the harvest', ['harvest moon'])).toEqual([]);
    expect(focusMatches('Kaël met Archmage_Tindel', ['kaël', 'TINDEL', 'arch'])).toEqual(['kaël', 'TINDEL']);
    const matcher = new FocusMatcher(['  ', '!!!']);
    expect(matcher.empty).toBe(true);
    expect(matcher.matches('anything')).toEqual([]);
  });

  it('match the same when read in slices, within a long text', async () => {
    const text = `${'salt toll bridge '.repeat(20_000)}Harvest Moon, said Rowan`;
    const matcher = new FocusMatcher(['harvest moon', 'rowan', 'tindel']);
    expect(await matcher.matchesSliced(text, new TimeSlice(0))).toEqual(matcher.matches(text));
    expect(matcher.matches(text)).toEqual(['harvest moon', 'rowan']);
  });

  it('boost exactly the head a full match would give, reading only the candidates that can reach it', async () => {
    const words = ['rowan', 'marta', 'salt', 'gull'];
    const candidate = fc.record({ score: fc.integer({ min: 0, max: 40 }), words: fc.array(fc.constantFrom(...words), { maxLength: 4 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(candidate, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 20 }), fc.constantFrom(1, 5, 100), async (candidates, head, boost) => {
        const ranked = candidates.map(({ score }, index) => [`c${index}`, score] as const).sort((a, b) => b[1] - a[1]);
        const textOf = new Map(candidates.map(({ words: said }, index) => [`c${index}`, said.join(' ')]));
        const matcher = new FocusMatcher(['Rowan', 'salt gull']);
        const read: string[] = [];
        const { matches } = await matchHead(matcher, ranked, boost, head, async (ids) => {
          read.push(...ids);
          return new Map(ids.map((id) => [id, textOf.get(id) as string]));
        });
        const order = (matched: (id: string) => string[]) => ranked
          .map(([id, score], position) => ({ id, position, final: score + (matched(id).length > 0 ? boost : 0) }))
          .sort((a, b) => b.final - a.final || a.position - b.position)
          .slice(0, head)
          .map(({ id }) => `${id}:${matched(id).join('|')}`);
        expect(order((id) => matches.get(id) ?? [])).toEqual(order((id) => matcher.matches(textOf.get(id) as string)));
        if (ranked.length > head + 64 && boost === 1 && new Set(ranked.map(([, score]) => score)).size > 30) expect(read.length).toBeLessThan(ranked.length);
      }),
      { seed: 19, numRuns: 300 },
    );
  });

  it('are bounded in number and length, in the library and over HTTP', async () => {
    const many = Array.from({ length: LIMITS.focusTerms + 1 }, (_, index) => `term ${index}`);
    await expect(memory.query('run-1', 'bar', { focusTerms: many })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'focusTerms', maximum: LIMITS.focusTerms, received: many.length } });
    await expect(memory.query('run-1', 'bar', { focusTerms: ['x'.repeat(LIMITS.focusTermChars + 1)] })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'focusTermChars' } });
    await expect(memory.lore.search('bar', { tags: [], focusTerms: many })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    // The issue's request: 100 long focus terms in a 20 KB body.
    const hundred = Array.from({ length: 100 }, (_, index) => `${'long '.repeat(38)}${index}`);
    const refused = await api.fails('/v1/saves/run-1/query', 400, 'LIMIT_EXCEEDED', { body: { query: 'bar', focusTerms: hundred } });
    expect(refused.message).toContain('limit focusTerms');
    expect(refused.details).toMatchObject({ limit: 'focusTerms' });
    await api.fails('/v1/saves/run-1/context', 400, 'LIMIT_EXCEEDED', { body: { character: 'Rowan', message: 'bar', tags: [], focusTerms: hundred.slice(0, LIMITS.focusTerms) } });
    const within = await api.call('/v1/saves/run-1/query', { body: { query: 'bar', focusTerms: ['Harvest Moon', ...hundred.slice(0, LIMITS.focusTerms - 1).map((term) => term.slice(0, LIMITS.focusTermChars))] } });
    expect(within.status).toBe(200);
    expect((within.json.hits as { explanation: { focusMatches: string[] } }[])[0]?.explanation.focusMatches).toEqual(['Harvest Moon']);
  });
});

describe('capPerSource, rerankTop and feedback', () => {
  it('refuses a cap over the bound with LIMIT_EXCEEDED, not a RangeError (500)', async () => {
    for (const capPerSource of [4294967296, 1e9, LIMITS.capPerSource + 1]) {
      await expect(memory.query('run-1', 'bar', { capPerSource })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'capPerSource' } });
      await api.fails('/v1/saves/run-1/query', 400, 'LIMIT_EXCEEDED', { body: { query: 'bar', capPerSource } });
    }
    await expect(memory.query('run-1', 'bar', { rerankTop: 1e9 })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'rerankTop' } });
    await expect(memory.query('run-1', 'bar', { feedback: { documents: 1e12, terms: 5, weight: 0.5 } })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'feedback' } });
    await expect(memory.lore.search('bar', { tags: [], capPerSource: 4294967296 })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(await memory.query('run-1', 'bar', { capPerSource: 0 })).toHaveLength(1);
  });
});

describe('JSON depth', () => {
  it('refuses a remembered value nested thousands of levels deep with 400, not a stack overflow (500)', async () => {
    expect(() => requireJsonValue(nested(5000))).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED', details: expect.objectContaining({ limit: 'jsonDepth' }) }));
    expect(requireJsonValue(nested(LIMITS.jsonDepth - 1))).toBeTruthy();
    const body = `{"scope":"run-1","key":"deep","value":${'['.repeat(3250)}${']'.repeat(3250)}}`;
    const answer = await api.call('/v1/remember', { raw: body, headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'jsonDepth' } });
    await expect(memory.add({ saveId: 'run-1', turnId: 2, text: 'x', metadata: { deep: nested(5000) as never } })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(await memory.recall.listScopes()).toEqual([]);
  });
});

describe('texts', () => {
  it('bounds chunk text and remembered values in the library as over HTTP', async () => {
    await expect(memory.add({ saveId: 'run-1', turnId: 3, text: 'x'.repeat(LIMITS.textChars + 1) })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'textChars' } });
    await api.fails('/v1/saves/run-1/chunks', 400, 'LIMIT_EXCEEDED', { body: { chunks: [{ turnId: 3, text: 'x'.repeat(LIMITS.textChars + 1) }] } });
    await expect(memory.recall.store('big', 'x'.repeat(LIMITS.memoryValueChars + 1), { scope: 'run-1' })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'memoryValueChars' } });
    await expect(memory.query('run-1', 'x'.repeat(LIMITS.queryChars + 1))).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'queryChars' } });
    expect(await memory.count('run-1')).toBe(1);
  });
});

describe('lore size', () => {
  it('refuses an entry over loreContentChars, naming the limit, and writes nothing', async () => {
    const entry = { source: 'big.yaml', title: 'Huge', content: 'word '.repeat(LIMITS.loreContentChars / 5 + 1), scopeLevel: 'continental' as const, scopeTags: [] };
    await expect(memory.lore.importEntries([entry])).rejects.toMatchObject({ code: 'LORE_INVALID', message: expect.stringContaining('limit loreContentChars') });
    const answer = await api.call('/v1/lore/import', { token: ADMIN, body: { entries: [entry] } });
    expect(answer.status).toBe(400);
    expect(await memory.lore.count()).toBe(0);
  });

  it('refuses a lore file over loreFileBytes, and a YAML alias bomb, as problems', async () => {
    const repository = join(dir, 'lore-big');
    mkdirSync(repository);
    writeFileSync(join(repository, 'index.yaml'), 'files: [big.yaml, bomb.yaml]\n');
    writeFileSync(join(repository, 'big.yaml'), `source: big.yaml\nentries: []\n# ${'x'.repeat(LIMITS.loreFileBytes)}\n`);
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [index, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h'].entries()) laughs.push(`${name}: &${name} [${Array(9).fill(`*${'abcdefgh'[index]}`).join(',')}]`);
    writeFileSync(join(repository, 'bomb.yaml'), `${laughs.join('\n')}\nsource: bomb.yaml\nentries: []\n`);
    const error = await memory.lore.importRepository(repository).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'LORE_INVALID' });
    expect((error as Error).message).toContain('limit loreFileBytes');
    expect((error as Error).message).toContain('bomb.yaml');
    expect((error as Error).message).toMatch(/alias/iu);
    expect(await memory.lore.count()).toBe(0);
  });
});

describe('HTTP paths', () => {
  it('reads turn ids up to 2^53-1 in paths as in bodies, and refuses a blank save id on reads too', async () => {
    const top = Number.MAX_SAFE_INTEGER;
    const answer = await api.call(`/v1/saves/run-1/turns/${top}`);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    await api.fails(`/v1/saves/run-1/turns/${top + 1}0`, 400, 'INVALID_INPUT');
    const admin = new ApiClient(running.url, ADMIN);
    await admin.fails('/v1/saves/%20/chunks', 400, 'INVALID_INPUT');
    await admin.fails('/v1/saves/%20/chunks', 400, 'INVALID_INPUT', { body: { chunks: [{ turnId: 1, text: 'x' }] } });
  });
});

describe('MCP arguments', () => {
  it('answers a bound crossed with a coded error, as the HTTP API does', async () => {
    const client = new Client({ name: 'limits-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      const many = Array.from({ length: 100 }, (_, index) => `term ${index}`);
      const result = (await client.callTool({ name: 'query_memory', arguments: { saveId: 'run-1', query: 'bar', focusTerms: many } })) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/^error LIMIT_EXCEEDED: .*limit focusTerms/u);
      const wrong = (await client.callTool({ name: 'rewind', arguments: { saveId: 'run-1', turnId: 'soon' } })) as { isError?: boolean; content: { text: string }[] };
      expect(wrong.isError).toBe(true);
      expect(wrong.content[0]?.text).toMatch(/^error INVALID_INPUT: .*turnId/u);
      const deep = (await client.callTool({ name: 'remember', arguments: { scope: 'run-1', key: 'deep', value: nested(200) } })) as { isError?: boolean; content: { text: string }[] };
      expect(deep.content[0]?.text).toMatch(/^error LIMIT_EXCEEDED: .*jsonDepth/u);
      const file = (await client.callTool({ name: 'import_save', arguments: { saveId: 'run-1', file: 'x'.repeat(LIMITS.mcpSaveFileChars + 1) } })) as { isError?: boolean; content: { text: string }[] };
      expect(file.content[0]?.text).toMatch(/^error LIMIT_EXCEEDED: .*limit mcpSaveFileChars/u);
      // Far past the bound (and deeper than zod's recursive JSON schema can walk: a stack overflow, uncoded): refused first.
      for (const [name, args] of [['remember', { scope: 'run-1', key: 'deeper', value: nested(3000) }], ['add_memory', { saveId: 'run-1', turnId: 1, text: 'x', metadata: { deep: nested(3000) } }]] as const) {
        const deeper = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
        expect(deeper.content[0]?.text, name).toMatch(/^error LIMIT_EXCEEDED: (value|metadata): .*limit jsonDepth/u);
      }
    } finally {
      await client.close();
    }
  });
});
