// Fuzzing every surface (fast-check, fixed seeds, bounded runs): HTTP bodies, MCP arguments, CLI arguments and lore
// YAML. Whatever arrives: no 500 / INTERNAL, no stack trace, and nothing written when the input is refused.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { isMnemoError } from '../src/core/errors.js';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { createApi } from '../src/server/create-api.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import type { RunningHttpServer } from '../src/server/start-http-server.js';
import { TokenTable } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';

const TOKEN = 'fuzz-token-0123456789abc';
const RUNS = { seed: 19, numRuns: 60, interruptAfterTimeLimit: 60_000 };
const STACK = /\n\s+at [^\n]+:\d+:\d+/u;
const dir = tempDir();
let memory: Mnemo;
let running: RunningHttpServer;

/** What a refusal must leave untouched: every save's version and chunk count, the lore book, the recall scopes. */
async function state(): Promise<string> {
  return JSON.stringify([await memory.listSaves(), await memory.lore.count(), await memory.store.lore.version(), await memory.recall.listScopes()]);
}

/** Values a client might send: anything JSON, strings near the bounds, deep nesting, numbers at the edges. */
const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.string({ maxLength: 300 }),
  fc.constantFrom(-1, 0, 1.5, 2 ** 53, 4294967296, 1e308, -0, '', ' ', '\u0000', 'x'.repeat(10_001), null, [], {}),
  fc.integer({ min: 1, max: 3000 }).map((depth) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown),
);

/** A body for a route: known keys with hostile values, plus sometimes an unknown key. */
const body = (keys: readonly string[]) =>
  fc.tuple(fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })), hostile, { maxKeys: 6 }), keys.includes('where') ? fc.option(whereArbitrary) : fc.constant(null)).map(([fields, where]) => (where === null ? fields : { ...fields, where }));
type PropertySchema = { type?: string | string[]; enum?: unknown[]; items?: PropertySchema };
/** A value of a JSON schema property's type, near what callers send (the seeded save, small turns, short names). */
function typed(schema: PropertySchema): fc.Arbitrary<unknown> {
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') return fc.oneof(fc.constantFrom('run-1', 'run-2', 'Rowan', 'bar', ''), fc.string({ maxLength: 40 }));
  if (type === 'integer' || type === 'number') return fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -2, max: 2000 }));
  if (type === 'boolean') return fc.boolean();
  if (type === 'array') return fc.array(typed(schema.items ?? { type: 'string' }), { maxLength: 3 });
  return fc.constant({});
}
/**
 * Arguments shaped like a tool's input schema: its required keys always, a few of its other keys, each value of the
 * right type or (one time in eight) hostile; so calls reach the tool's handler, not only its schema's refusal.
 */
function shaped(schema: { properties?: Record<string, object>; required?: string[] }): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  const properties = Object.entries(schema.properties ?? {}).map(([key, property]) => {
    const value = [{ arbitrary: typed(property), weight: 7 }, { arbitrary: hostile, weight: 1 }];
    return [key, required.has(key) ? fc.oneof(...value) : fc.oneof({ arbitrary: fc.constant(undefined), weight: 16 }, ...value)] as const;
  });
  return fc.record(Object.fromEntries(properties)).map((args) => Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined)));
}

/** Metadata filters: the seeded keys, keys an object copy mishandles, conditions of every shape, hostile values. */
const whereKey = fc.oneof(fc.constantFrom('speaker', 'part', '__proto__', 'constructor', 'toString', 'hasOwnProperty'), fc.string({ maxLength: 8 }));
const whereScalar = fc.constantFrom<string | number | boolean>('Marta', 'Rowan', 1, 2, true, '1');
const whereCondition = fc.oneof(whereScalar, fc.record({ in: fc.array(whereScalar, { minLength: 1, maxLength: 3 }) }), fc.record({ exists: fc.boolean() }), hostile);
const whereArbitrary = fc.oneof(
  { arbitrary: fc.dictionary(whereKey, whereCondition, { maxKeys: 4 }), weight: 8 },
  fc.integer({ min: 15, max: 40 }).map((count) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 'x']))),
  fc.constant({ speaker: { in: Array.from({ length: 101 }, (_, index) => `name ${index}`) } }),
  fc.constant({ ['k'.repeat(201)]: 'x' }),
  fc.constant({ speaker: 'x'.repeat(1001) }),
  // Own "__proto__" keys, as JSON.parse makes them (an object copy by assignment, or a record schema, drops them).
  fc.constantFrom('{"__proto__":"Marta"}', '{"__proto__":{"exists":true}}', '{"speaker":"Rowan","__proto__":{"in":["Marta"]}}').map((text) => JSON.parse(text) as unknown),
  hostile,
);

/** Whether a hit's metadata satisfies a filter the way the API documents it (own keys only; types compared strictly). */
function satisfies(metadata: Record<string, unknown>, where: Record<string, unknown>): boolean {
  return Object.entries(where).every(([key, condition]) => {
    const value = Object.prototype.hasOwnProperty.call(metadata, key) ? metadata[key] : undefined;
    if (typeof condition === 'object' && condition !== null && 'exists' in condition) return (value !== undefined) === (condition as { exists: boolean }).exists;
    if (typeof condition === 'object' && condition !== null && 'in' in condition) return (condition as { in: unknown[] }).in.some((option) => option === value);
    return condition === value;
  });
}

/** The chunks a filter picks from: speakers, parts, both, neither. */
const FILTERED: { text: string; metadata: Record<string, string | number> }[] = [
  { text: 'Marta counts the salt.', metadata: { speaker: 'Marta', part: 1 } },
  { text: 'Rowan counts the salt.', metadata: { speaker: 'Rowan', part: 2 } },
  { text: 'The salt is counted.', metadata: { part: '1' } },
  { text: 'Salt, salt and more salt.', metadata: {} },
];

const POSTS: [string, readonly string[]][] = [
  ['/v1/saves/run-1/chunks', ['chunks', 'turnId', 'text']],
  ['/v1/saves/run-1/query', ['query', 'k', 'capPerSource', 'focusTerms', 'rerankTop', 'maxTurnId', 'fusion', 'weights', 'chunkType', 'where']],
  ['/v1/saves/run-1/chunks/delete', ['ids', 'entryId']],
  ['/v1/saves/run-1/import', ['file', 'settings']],
  ['/v1/saves/run-1/rewind', ['turnId']],
  ['/v1/saves/run-1/fork', ['newSaveId', 'atTurn']],
  ['/v1/saves/run-1/context', ['character', 'message', 'tags', 'budget', 'limits', 'template', 'variables', 'focusTerms', 'shares', 'where']],
  ['/v1/saves/run-1/living/turns', ['turnId', 'text', 'knownEntities']],
  ['/v1/remember', ['scope', 'key', 'value', 'metadata', 'decay']],
  ['/v1/recall', ['query', 'scope', 'k', 'exact']],
  ['/v1/lore/search', ['query', 'tags', 'k', 'focusTerms', 'ignoreScope']],
  ['/v1/lore/import', ['entries', 'dryRun']],
];

beforeAll(async () => {
  memory = await openMemory({ path: join(dir, 'fuzz.db'), embedder: null, logger: silentLogger });
  await memory.add({ saveId: 'run-1', turnId: 1, text: 'Rowan wipes the bar of the Harvest Moon.' });
  await memory.addMany(FILTERED.map((chunk, index) => ({ saveId: 'filtered', turnId: index + 1, ...chunk })));
  running = await startHttpServer({ fetch: createApi({ memory, auth: new TokenTable([{ token: TOKEN, saves: '*', admin: true }]), logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await running?.close();
  await memory?.close();
});

describe('fuzz', () => {
  it('HTTP bodies: never 500, never a stack trace, nothing written on a refusal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS).chain(([path, keys]) => fc.tuple(fc.constant(path), fc.oneof(body(keys), hostile))), async ([path, sample]) => {
        const before = await state();
        const response = await fetch(`${running.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(sample) });
        const text = await response.text();
        expect(response.status, text).toBeLessThan(500);
        expect(text).not.toMatch(STACK);
        expect(text).not.toContain('INTERNAL');
        if (response.status >= 400) expect(await state()).toBe(before);
      }),
      RUNS,
    );
  }, 120_000);

  it('metadata filters (HTTP query and context, MCP query_memory, mnemo query --where): refused with a coded 4xx / exit 2, or every hit satisfies them', async () => {
    const client = new Client({ name: 'fuzz-where', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      await fc.assert(
        fc.asyncProperty(whereArbitrary, async (where) => {
          const response = await fetch(`${running.url}/v1/saves/filtered/query`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'salt', k: 10, where }) });
          const answer = (await response.json()) as { hits?: { metadata: Record<string, unknown> }[]; error?: { code: string } };
          expect(response.status, JSON.stringify(answer)).toBeLessThan(500);
          if (response.status === 200) for (const hit of answer.hits ?? []) expect(satisfies(hit.metadata, where as Record<string, unknown>), JSON.stringify([where, hit.metadata])).toBe(true);
          const context = await fetch(`${running.url}/v1/saves/filtered/context`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ character: 'Rowan', message: 'salt', tags: [], where }) });
          expect(context.status === 200 ? 200 : Math.floor(context.status / 100), await context.text()).toBe(response.status === 200 ? 200 : 4);
          const result = (await client.callTool({ name: 'query_memory', arguments: { saveId: 'filtered', query: 'salt', k: 10, where } })) as { isError?: boolean; content: { text: string }[]; structuredContent?: { hits: { metadata: Record<string, unknown> }[] } };
          if (result.isError === true) expect(result.content.map((part) => part.text).join('\n')).toMatch(/^error [A-Z_]+: /u);
          else for (const hit of result.structuredContent?.hits ?? []) expect(satisfies(hit.metadata, where as Record<string, unknown>), JSON.stringify(['mcp', where, hit.metadata])).toBe(true);
          expect(result.isError === true, JSON.stringify(['mcp', where])).toBe(response.status !== 200);
          if (typeof where !== 'object' || where === null || Array.isArray(where)) return;
          // The CLI's --where: KEY=VALUE for strings, KEY:=JSON otherwise.
          const flags = Object.entries(where).map(([key, condition]) => (typeof condition === 'string' ? `${key}=${condition}` : `${key}:=${JSON.stringify(condition)}`));
          const out: string[] = [];
          const err: string[] = [];
          const code = await main(['node', 'mnemo', '--db', join(dir, 'fuzz.db'), '--embedder', 'none', 'query', 'filtered', 'salt', '--k', '10', '--json', ...flags.flatMap((flag) => ['--where', flag])], { out: (text) => out.push(text), err: (text) => err.push(text) });
          expect([0, 2], err.join('\n')).toContain(code);
          expect(err.join('\n')).not.toMatch(STACK);
          if (code === 0) for (const hit of JSON.parse(out.join('\n')) as { metadata: Record<string, unknown> }[]) expect(satisfies(hit.metadata, where as Record<string, unknown>), JSON.stringify(['cli', flags, hit.metadata])).toBe(true);
        }),
        { ...RUNS, numRuns: 80 },
      );
    } finally {
      await client.close();
    }
  }, 240_000);

  it('raw request bodies: malformed JSON and odd content types are coded 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), fc.constantFrom('application/json', 'text/plain', 'application/x+json', ''), async (raw, type) => {
        const before = await state();
        const response = await fetch(`${running.url}/v1/saves/run-1/chunks`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, ...(type === '' ? {} : { 'content-type': type }) }, body: raw });
        const text = await response.text();
        expect(response.status, text).toBeLessThan(500);
        expect(text).not.toMatch(STACK);
        if (response.status >= 400) expect(await state()).toBe(before);
      }),
      RUNS,
    );
  }, 120_000);

  it('MCP arguments: coded errors, never INTERNAL, nothing written on a refusal', async () => {
    const client = new Client({ name: 'fuzz', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      // Every tool the server lists, each with the keys of its own input schema: a new tool is fuzzed as it lands.
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['add_memory', 'build_context', 'delete_chunks', 'delete_save', 'export_save', 'fork_save', 'import_save', 'list_beliefs', 'list_facts', 'list_mental_models', 'list_saves', 'lore_search', 'query_memory', 'recall', 'remember', 'rewind']));
      const calls = fc.constantFrom(...tools).chain((tool) => fc.tuple(fc.constant(tool.name), fc.oneof(body(Object.keys(tool.inputSchema.properties ?? {})), shaped(tool.inputSchema))));
      await fc.assert(
        fc.asyncProperty(calls, async ([name, args]) => {
          const before = await state();
          const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
          const text = result.content.map((part) => part.text).join('\n');
          expect(text).not.toContain('INTERNAL');
          expect(text).not.toMatch(STACK);
          if (result.isError === true) {
            expect(text).toMatch(/^error [A-Z_]+: /u);
            expect(await state()).toBe(before);
          }
        }),
        { ...RUNS, numRuns: 240 },
      );
    } finally {
      await client.close();
    }
  }, 120_000);

  it('CLI arguments: exit 0, 2, 3 or 4, never a stack trace', async () => {
    const db = join(dir, 'cli.db');
    const word = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('-1', '0', '99999999', '1e9', '--json', '--limit', '--k', '--port', '--max-body', '', ' ', '{', '[[[[', '--type', 'run-1'));
    const commands = fc.constantFrom(['query', 'run-1'], ['add', 'run-1'], ['rewind', 'run-1'], ['facts', 'run-1'], ['beliefs', 'run-1'], ['remember', 'k'], ['recall'], ['living', 'missions', '--set'], ['lore', 'search'], ['fork', 'run-1'], ['query', 'run-1', 'bar', '--where'], ['delete', 'run-1', '--chunk'], ['delete', 'run-1', '--entry-id'], ['export', 'run-1'], ['import']);
    await fc.assert(
      fc.asyncProperty(commands, fc.array(word, { maxLength: 4 }), async (command, words) => {
        const err: string[] = [];
        const code = await main(['node', 'mnemo', '--db', db, '--embedder', 'none', ...command, ...words], { out: () => {}, err: (text) => err.push(text) });
        expect([0, 2, 3, 4], err.join('\n')).toContain(code);
        expect(err.join('\n')).not.toMatch(STACK);
        expect(err.join('\n')).not.toContain('INTERNAL');
      }),
      { ...RUNS, numRuns: 40 },
    );
  }, 180_000);

  it('lore YAML: any file is imported or refused as LORE_INVALID / LORE_EMPTY / LIMIT_EXCEEDED, writing nothing when refused', async () => {
    const yamlish = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.stringify(value)),
      fc.record({ title: hostile, content: hostile, scope_level: fc.constantFrom('continental', 'regional', 'bogus', 1), scope_tags: hostile }).map((entry) => `source: fuzz.yaml\nentries:\n  - ${JSON.stringify(entry)}\n`),
      fc.integer({ min: 1, max: 2000 }).map((depth) => `source: fuzz.yaml\nentries: ${'['.repeat(depth)}${']'.repeat(depth)}\n`),
      fc.constant('a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n'),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(yamlish, fc.boolean(), async (text, inManifest) => {
        const repository = join(dir, `lore-${run++}`);
        mkdirSync(repository);
        writeFileSync(join(repository, 'index.yaml'), inManifest ? text : 'files: [fuzz.yaml]\n');
        writeFileSync(join(repository, 'fuzz.yaml'), text);
        const before = await state();
        try {
          await memory.lore.importRepository(repository);
        } catch (error) {
          expect(isMnemoError(error), String(error)).toBe(true);
          expect(['LORE_INVALID', 'LORE_EMPTY', 'LIMIT_EXCEEDED', 'NOT_FOUND']).toContain((error as { code: string }).code);
          expect((error as Error).message).not.toMatch(STACK);
          expect(await state()).toBe(before);
        }
      }),
      { ...RUNS, numRuns: 80 },
    );
  }, 120_000);
});
