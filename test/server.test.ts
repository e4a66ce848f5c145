// The HTTP API end to end: a real server on 127.0.0.1 (port 0), a real fetch client, every endpoint and every security rule.
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MnemoError } from '../src/core/errors.js';
import { LIMITS } from '../src/core/limits.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { createApi } from '../src/server/create-api.js';
import { httpStatus } from '../src/server/http-status.js';
import { API_ROUTES } from '../src/server/routes/index.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import type { RunningHttpServer } from '../src/server/start-http-server.js';
import { TokenTable } from '../src/server/tokens.js';
import { ORSA_LORE } from '../src/testing/lore-fixture.js';
import { tempDir } from './helpers.js';
import { ApiClient } from './server-client.js';
import { MARTA, MARTA_TAGS, ORIEL_TAGS, SAVE, seedScene } from './serving-fixture.js';
import type { Scene } from './serving-fixture.js';

const FULL = 'full-token-0123456789';
const LIMITED = 'limited-token-0123456789';
const ADMIN = 'admin-token-0123456789';
const MAX_BODY = 64 * 1024;
const HIDDEN_FROM_MARTA = ['The Brackwater lantern house', 'The tidelines', 'Reading the tidelines', 'The drowned market', 'Mudlark safe houses', 'The Peat War'];

const dir = tempDir();
let memory: Mnemo;
let scene: Scene;
let running: RunningHttpServer;
let api: ApiClient;

beforeAll(async () => {
  memory = await openMemory({ path: join(dir, 'server.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
  scene = await seedScene(memory);
  await memory.add({ saveId: 'other', turnId: 1, text: 'In another save, the lighthouse keeper counts gulls.' });
  const auth = new TokenTable([
    { token: FULL, name: 'game', saves: '*' },
    { token: LIMITED, name: 'run-1 only', saves: [SAVE, 'notes'] },
    { token: ADMIN, name: 'author', saves: '*', admin: true },
  ]);
  running = await startHttpServer({ fetch: createApi({ memory, auth, maxBodyBytes: MAX_BODY, logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
  api = new ApiClient(running.url, FULL);
});

afterAll(async () => {
  await running?.close();
  await memory?.close();
});

const titles = (hits: unknown) => (hits as { title: string }[]).map((hit) => hit.title);

describe('HTTP API: meta', () => {
  it('serves /health and /openapi.json without a token; the document holds every route with its zod-made schemas', async () => {
    expect((await api.call('/health', { token: null })).json).toEqual({ ok: true });
    const document = (await api.call('/openapi.json', { token: null })).json as { openapi: string; paths: Record<string, Record<string, { requestBody?: { required: boolean; content: { 'application/json': { schema: { properties: Record<string, unknown>; required?: string[] } } } }; parameters: { name: string; in: string }[] }>> };
    expect(document.openapi).toBe('3.0.3');
    const validation = await new Validator().validate(document as never);
    expect(validation.errors ?? [], JSON.stringify(validation.errors)).toEqual([]);
    expect(validation.valid).toBe(true);
    for (const route of API_ROUTES) expect(document.paths[route.path.replace(/:(\w+)/gu, '{$1}')]?.[route.method], route.operationId).toBeDefined();
    const query = document.paths['/v1/saves/{saveId}/query']?.post;
    expect(query?.requestBody?.content['application/json'].schema.required).toEqual(['query']);
    expect(Object.keys(query?.requestBody?.content['application/json'].schema.properties ?? {})).toEqual(expect.arrayContaining(['k', 'currentTurnId', 'excludeChunkType', 'focusTerms']));
    expect(query?.parameters).toEqual([expect.objectContaining({ name: 'saveId', in: 'path', required: true })]);
    expect(document.paths['/v1/saves/{saveId}/chunks']?.get?.parameters.map((parameter) => parameter.name)).toEqual(['saveId', 'offset', 'limit', 'fromTurnId', 'toTurnId']);
    expect(document.paths['/mcp']).toBeDefined();
    expect(query?.requestBody).toMatchObject({ required: true });
    expect(document.paths['/v1/saves/{saveId}/living/retry']?.post?.requestBody).toMatchObject({ required: false });
  });

  it('reports what a token may do', async () => {
    expect(await api.ok('getAccess', '/v1/access')).toEqual({ name: 'game', admin: false, saves: '*' });
    expect(await api.ok('getAccess', '/v1/access', { token: LIMITED })).toEqual({ name: 'run-1 only', admin: false, saves: ['notes', SAVE] });
    expect(await api.ok('getAccess', '/v1/access', { token: ADMIN })).toMatchObject({ admin: true, saves: '*' });
  });
});

describe('HTTP API: narrative', () => {
  it('lists saves with counts in every layer, only those the token may use, a page at a time', async () => {
    const all = await api.ok('listSaves', '/v1/saves?limit=2');
    expect(all.total).toBeGreaterThanOrEqual(2);
    expect(all.saves).toEqual([
      expect.objectContaining({ saveId: 'other', chunks: 1 }),
      expect.objectContaining({ saveId: SAVE, chunks: 13, turns: 13, minTurnId: 0, maxTurnId: 12, facts: 4, beliefs: 3, models: 1, jobs: { pending: 0, running: 0, done: 0, failed: 0 } }),
    ]);
    expect(await api.ok('listSaves', '/v1/saves?limit=1')).toMatchObject({ saves: [{ saveId: 'other' }], nextOffset: 1 });
    expect(await api.ok('listSaves', '/v1/saves', { token: LIMITED })).toMatchObject({ total: 1, saves: [{ saveId: SAVE }] });
  });

  it('reads one save, 404 for a save holding nothing', async () => {
    expect(await api.ok('getSave', `/v1/saves/${SAVE}`)).toMatchObject({ saveId: SAVE, chunks: 13, latestTurnId: 12 });
    await api.fails('/v1/saves/nobody', 404, 'NOT_FOUND');
  });

  it('pages through turns and chunks in order; lore chunks only for an admin token', async () => {
    const first = await api.ok('listTurns', `/v1/saves/${SAVE}/turns?limit=5`);
    expect((first.turns as { turnId: number }[]).map((turn) => turn.turnId)).toEqual([1, 2, 3, 4, 5]);
    expect(first.nextOffset).toBe(5);
    const last = await api.ok('listTurns', `/v1/saves/${SAVE}/turns?offset=10&limit=5`);
    expect(last).toMatchObject({ turns: [{ turnId: 11, chunks: 1, chunkTypes: ['narrative'] }, { turnId: 12 }], nextOffset: null });
    expect((await api.ok('listTurns', `/v1/saves/${SAVE}/turns?limit=1`, { token: ADMIN })).turns).toEqual([{ turnId: 0, chunks: 1, chunkTypes: ['lore'] }]);

    const texts: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = await api.ok('listChunks', `/v1/saves/${SAVE}/chunks?limit=5&offset=${offset}`);
      texts.push(...(page.chunks as { text: string }[]).map((chunk) => chunk.text));
      offset = page.nextOffset as number | null;
    }
    expect(texts).toHaveLength(12);
    expect(texts[0]).toContain('orders eel pie');
    expect(texts.join(' ')).not.toContain('lantern house');
    const window = await api.ok('listChunks', `/v1/saves/${SAVE}/chunks?fromTurnId=0&toTurnId=1`, { token: ADMIN });
    expect((window.chunks as { chunkType: string }[]).map((chunk) => chunk.chunkType)).toEqual(['lore', 'narrative']);
  });

  it('reads one turn with its facts', async () => {
    const turn = await api.ok('getTurn', `/v1/saves/${SAVE}/turns/8`);
    expect(turn).toMatchObject({ saveId: SAVE, turnId: 8, chunks: [{ text: 'Marta hides the smuggled salt under the cellar stairs.' }], facts: [{ factId: scene.factIds[1], statement: 'Marta hid the smuggled salt under the cellar stairs.' }] });
  });

  it('ends a chunk page, and a page of one turn, at 1 MiB of text: nextOffset goes on from the chunk that reached it', async () => {
    // 12 chunks of 99,000 bytes in one turn: 10 make 990,000 bytes, the 11th reaches 1 MiB.
    await memory.addMany(Array.from({ length: 12 }, (_, index) => ({ saveId: 'wide', turnId: 3, text: `${index} `.padEnd(99_000, 'x') })));
    for (const [operation, path] of [['listChunks', '/v1/saves/wide/chunks'], ['getTurn', '/v1/saves/wide/turns/3']] as const) {
      const first = await api.ok(operation, `${path}?limit=1000`);
      expect([(first.chunks as unknown[]).length, first.nextOffset], path).toEqual([11, 11]);
      const second = await api.ok(operation, `${path}?limit=1000&offset=11`);
      expect([(second.chunks as { text: string }[]).map((chunk) => chunk.text.slice(0, 3)), second.nextOffset], path).toEqual([['11 '], null]);
    }
    expect(await api.ok('getTurn', '/v1/saves/wide/turns/3?limit=2&offset=1')).toMatchObject({ chunks: [{ text: expect.stringMatching(/^1 /) }, { text: expect.stringMatching(/^2 /) }], nextOffset: 3 });
  });

  it('adds chunks in one transaction, replaces a turn, queries, rewinds and forks', async () => {
    const added = await api.ok('addChunks', '/v1/saves/scratch/chunks', {
      body: { chunks: [{ turnId: 1, text: 'The gate opens at dawn.' }, { turnId: 2, text: 'Rowan says the gate is cursed.', chunkType: 'dialogue', metadata: { speaker: 'Rowan' } }, { turnId: 3, text: 'The gate closes.' }] },
    });
    expect(added.ids).toHaveLength(3);
    await api.fails('/v1/saves/scratch/chunks', 400, 'INVALID_INPUT', { body: { chunks: [{ turnId: 4, text: 'fine' }, { turnId: -1, text: 'bad' }] } });
    expect(await memory.count('scratch')).toBe(3);

    expect((await api.ok('updateTurn', '/v1/saves/scratch/turns/1', { body: { text: 'The gate stays shut at dawn.' } })).ids).toHaveLength(1);
    const hits = (await api.ok('queryMemory', '/v1/saves/scratch/query', { body: { query: 'gate dawn', k: 3, focusTerms: ['Rowan'] } })).hits as { text: string; explanation: { focusMatches: string[] } }[];
    expect(hits.map((hit) => hit.text)).toContain('The gate stays shut at dawn.');
    expect(hits.map((hit) => hit.text)).not.toContain('The gate opens at dawn.');
    expect(hits.some((hit) => hit.explanation.focusMatches.map((term) => term.toLowerCase()).includes('rowan'))).toBe(true);
    const window = (await api.ok('queryMemory', '/v1/saves/scratch/query', { body: { query: 'gate', k: 5, currentTurnId: 1 } })).hits as { turnId: number }[];
    expect(window.map((hit) => hit.turnId)).toEqual([1]);

    expect(await api.ok('warmSave', '/v1/saves/scratch/warm')).toEqual({ chunks: 3 });
    expect(await api.ok('fork', '/v1/saves/scratch/fork', { body: { newSaveId: 'scratch-branch', atTurn: 2 } })).toMatchObject({ chunks: 2 });
    await api.fails('/v1/saves/scratch/fork', 409, 'CONFLICT', { body: { newSaveId: 'scratch-branch', atTurn: 2 } });
    expect(await api.ok('rewind', '/v1/saves/scratch/rewind', { body: { turnId: 1 } })).toEqual({ chunks: 2, living: { facts: 0, beliefsDeleted: 0, beliefsUpdated: 0, modelsDeleted: 0, modelsUpdated: 0, jobsCancelled: 0 } });
    expect(await memory.count('scratch')).toBe(1);
    expect(await memory.count('scratch-branch')).toBe(2);

    const odd = "Kaël's run/2";
    await api.ok('addChunks', `/v1/saves/${encodeURIComponent(odd)}/chunks`, { body: { chunks: [{ turnId: 1, text: 'Odd names work.' }] } });
    expect(await api.ok('getSave', `/v1/saves/${encodeURIComponent(odd)}`)).toMatchObject({ saveId: odd, chunks: 1 });
  });
});

describe('HTTP API: living memory', () => {

  it('exports a save as JSON Lines (lore chunks for an admin token only) and imports it into a new save; a broken file writes nothing', async () => {
    const exported = await api.ok('exportSave', `/v1/saves/${SAVE}/export`);
    const lines = exported.lines as { type: string; chunkType?: string; counts?: Record<string, number> }[];
    expect(lines[0]).toMatchObject({ type: 'header', format: 'mnemo-save', version: 1, saveId: SAVE, embedder: { provider: 'hashing', dimensions: 64 } });
    expect(lines.at(-1)).toEqual({ type: 'end', counts: { chunks: 12, facts: 4, beliefs: 3, models: 1, modelVersions: expect.any(Number), jobs: 0 } });
    expect(lines.some((line) => line.chunkType === 'lore')).toBe(false);
    const admin = await api.call(`/v1/saves/${SAVE}/export?vectors=false`, { token: ADMIN });
    expect(admin.headers.get('content-type')).toContain('application/x-ndjson');
    expect(admin.text).toContain('"chunkType":"lore"');
    expect(admin.text).not.toContain('"vector"');
    await api.fails('/v1/saves/nobody/export', 404, 'NOT_FOUND');

    const file = lines.map((line) => JSON.stringify(line)).join('\n');
    expect(await api.ok('importSave', '/v1/saves/run-1-copy/import', { body: { file } })).toMatchObject({ saveId: 'run-1-copy', fromSaveId: SAVE, chunks: 12, vectors: 12, living: { facts: 4, beliefs: 3, models: 1 }, settings: false });
    // The copy holds no lore chunks (a non-admin export leaves them out), while the original's word statistics count
    // them: scores differ slightly, so the copy finds the same chunks with the same best hit, not every score's order.
    const question = { query: 'Where is the salt hidden?', k: 20 };
    const texts = async (saveId: string) => ((await api.ok('queryMemory', `/v1/saves/${saveId}/query`, { body: question })).hits as { text: string }[]).map((hit) => hit.text);
    const [copied, original] = [await texts('run-1-copy'), await texts(SAVE)];
    expect(copied).toHaveLength(12);
    expect(copied[0]).toBe(original[0]);
    expect([...copied].sort()).toEqual([...original].sort());
    await api.fails('/v1/saves/run-1-copy/import', 409, 'CONFLICT', { body: { file } });
    expect((await api.fails('/v1/saves/run-1-lore/import', 403, 'FORBIDDEN', { body: { file: admin.text } })).message).toContain('only an admin may import them');
    await api.fails('/v1/saves/run-1-settings/import', 403, 'FORBIDDEN', { body: { file, settings: true } });
    const truncated = await api.fails('/v1/saves/run-1-cut/import', 400, 'SAVE_FILE_INVALID', { body: { file: file.split('\n').slice(0, 4).join('\n') } });
    expect(truncated).toMatchObject({ details: { line: 5 } });
    expect(truncated.message).toContain('no end line: the file is truncated after line 4');
    await api.fails('/v1/saves/other/import', 403, 'FORBIDDEN', { token: LIMITED, body: { file } });
    for (const saveId of ['run-1-lore', 'run-1-settings', 'run-1-cut']) expect(await memory.store.saveVersion(saveId)).toBe(0);

    await api.fails('/v1/saves/other', 403, 'FORBIDDEN', { token: LIMITED, method: 'DELETE' });
    // An unknown query key is refused, as on every route, before anything is deleted.
    const unknownKey = await api.fails('/v1/saves/run-1-copy?force=true', 400, 'INVALID_INPUT', { method: 'DELETE' });
    expect(unknownKey.message).toContain('force');
    expect(await api.ok('deleteSave', '/v1/saves/run-1-copy')).toEqual({ chunks: 12, living: { facts: 4, beliefs: 3, models: 1, jobs: 0 } });
    expect(await api.ok('deleteSave', '/v1/saves/run-1-copy')).toEqual({ chunks: 0, living: { facts: 0, beliefs: 0, models: 0, jobs: 0 } });
    await api.fails('/v1/saves/run-1-copy', 404, 'NOT_FOUND');
    expect(await memory.count(SAVE)).toBe(13);
  });
  it('filters a query by metadata before ranking; a bad filter is a 400 naming the field', async () => {
    const chunks = [1, 2, 3, 4].map((turnId) => ({ turnId, text: `The harbour bell rings, note ${turnId}.`, metadata: { speaker: turnId % 2 === 0 ? 'Marta' : 'Rowan', level: turnId } }));
    await api.ok('addChunks', '/v1/saves/filters/chunks', { body: { chunks } });
    const turns = async (where: unknown) => ((await api.ok('queryMemory', '/v1/saves/filters/query', { body: { query: 'harbour bell', k: 10, where } })).hits as { turnId: number }[]).map((hit) => hit.turnId).sort();
    expect(await turns({ speaker: 'Marta' })).toEqual([2, 4]);
    expect(await turns({ speaker: { in: ['Marta', 'Rowan'] }, level: { in: [1, 2] } })).toEqual([1, 2]);
    expect(await turns({ level: { exists: false } })).toEqual([]);
    expect((await api.fails('/v1/saves/filters/query', 400, 'INVALID_INPUT', { body: { query: 'bell', where: { speaker: ['Marta'] } } })).message).toContain('where');
    await api.fails('/v1/saves/filters/query', 400, 'LIMIT_EXCEEDED', { body: { query: 'bell', where: Object.fromEntries(Array.from({ length: 17 }, (_, n) => [`k${n}`, n])) } });
  });

  it('deletes chunks by id or by entry (gone from the next query); a game token leaves lore chunks in place', async () => {
    const chunks = [
      { turnId: 1, text: 'The brass key hangs by the cellar door.', entryId: 'key' },
      { turnId: 1, text: 'A brass key opens the cellar.', entryId: 'key' },
      { turnId: 2, text: 'The brass bell rings at dusk.' },
    ];
    const ids = (await api.ok('addChunks', '/v1/saves/deletions/chunks', { body: { chunks } })).ids as string[];
    const [lore] = (await api.ok('addChunks', '/v1/saves/deletions/chunks', { token: ADMIN, body: { chunks: [{ turnId: 0, text: 'Brass is forged in Orsa.', chunkType: 'lore' }] } })).ids as string[];
    const brass = async () => ((await api.ok('queryMemory', '/v1/saves/deletions/query', { token: ADMIN, body: { query: 'brass', k: 10, includeLore: true } })).hits as { id: string }[]).map((hit) => hit.id).sort();
    expect(await brass()).toEqual([...ids, lore].sort());
    expect(await api.ok('deleteChunks', '/v1/saves/deletions/chunks/delete', { body: { ids: [ids[2], 'no-such-chunk', lore] } })).toEqual({ chunks: 1 });
    expect(await api.ok('deleteChunks', '/v1/saves/deletions/chunks/delete', { body: { entryId: 'key' } })).toEqual({ chunks: 2 });
    expect(await brass()).toEqual([lore]);
    expect((await api.fails('/v1/saves/deletions/chunks/delete', 400, 'INVALID_INPUT', { body: { ids: [lore], entryId: 'key' } })).message).toContain('exactly one of ids and entryId');
    await api.fails('/v1/saves/deletions/chunks/delete', 400, 'INVALID_INPUT', { body: {} });
    await api.fails('/v1/saves/deletions/chunks/delete', 400, 'INVALID_INPUT', { body: { ids: [] } });
    await api.fails('/v1/saves/other/chunks/delete', 403, 'FORBIDDEN', { token: LIMITED, body: { entryId: 'key' } });
    expect(await api.ok('deleteChunks', '/v1/saves/deletions/chunks/delete', { token: ADMIN, body: { ids: [lore] } })).toEqual({ chunks: 1 });
    expect(await memory.count('deletions')).toBe(0);
  });

  it('reports the status of every save and of one', async () => {
    const all = await api.ok('livingStatusAll', '/v1/living/status');
    expect((all.saves as { saveId: string }[]).map((save) => save.saveId)).toContain(SAVE);
    expect((await api.ok('livingStatusAll', '/v1/living/status', { token: LIMITED })).saves).toEqual([expect.objectContaining({ saveId: SAVE })]);
    expect(await api.ok('livingStatus', `/v1/saves/${SAVE}/living`)).toMatchObject({ saveId: SAVE, facts: 4, beliefs: 3, models: 1 });
  });

  it('lists facts (by turn, by entity), beliefs with trends, sources and history, and models', async () => {
    expect(((await api.ok('listFacts', `/v1/saves/${SAVE}/facts?turnId=8`)).facts as unknown[]).length).toBe(1);
    expect(((await api.ok('listFacts', `/v1/saves/${SAVE}/facts?entity=rowan`)).facts as { turnId: number }[]).map((fact) => fact.turnId)).toEqual([11, 3]);
    const beliefs = (await api.ok('listBeliefs', `/v1/saves/${SAVE}/beliefs?subject=Marta&nowTurn=12`)).beliefs as { beliefId: number; trend: string; sources: unknown[] }[];
    expect(beliefs.map((belief) => [belief.beliefId, belief.trend, belief.sources.length])).toEqual([[scene.beliefIds[1], 'NEW', 1], [scene.beliefIds[0], 'NEW', 3]]);
    expect((await api.ok('listModels', `/v1/saves/${SAVE}/models`)).models).toEqual([expect.objectContaining({ modelId: scene.modelId, subject: MARTA })]);
    await api.fails(`/v1/saves/${SAVE}/beliefs?includeDeleted=maybe`, 400, 'INVALID_INPUT');
  });

  it('queues a turn and retries failed jobs', async () => {
    const queued = await api.ok('recordTurn', '/v1/saves/queue/living/turns', { body: { turnId: 3, text: 'Kaël pays his debt.', knownEntities: ['Kaël'] } });
    expect(queued.job).toMatchObject({ saveId: 'queue', turnId: 3, stage: 'extract', status: 'pending' });
    expect(await api.ok('retryFailed', '/v1/saves/queue/living/retry')).toEqual({ retried: 0 });
    expect(await api.ok('getSave', '/v1/saves/queue')).toMatchObject({ chunks: 0, jobs: { pending: 1 } });
  });

  it('reads missions; only an admin sets them', async () => {
    expect(await api.ok('getMissions', '/v1/living/missions')).toEqual({ universe: '', characters: {} });
    await api.fails('/v1/living/missions', 403, 'FORBIDDEN', { method: 'PUT', body: { universe: 'Remember debts.' } });
    expect(await api.ok('setMissions', '/v1/living/missions', { token: ADMIN, body: { universe: 'Remember debts.', characters: { Marta: 'remembers every slight' } } })).toEqual({ universe: 'Remember debts.', characters: { Marta: 'remembers every slight' } });
  });
});

describe('HTTP API: lore', () => {
  it('searches only the lore the character may know; tags are required unless the token is an admin\'s', async () => {
    const question = 'lantern house tidelines Toll Bridge founding';
    const marta = (await api.ok('searchLore', '/v1/lore/search', { body: { query: question, tags: MARTA_TAGS, k: 20 } })).hits;
    expect(titles(marta)).toContain('Founding of Brackwater');
    for (const hidden of HIDDEN_FROM_MARTA) expect(titles(marta)).not.toContain(hidden);
    expect(titles((await api.ok('searchLore', '/v1/lore/search', { body: { query: question, tags: ORIEL_TAGS, k: 20 } })).hits)).toContain('The Brackwater lantern house');
    expect(titles((await api.ok('searchLore', '/v1/lore/search', { body: { query: question, tags: [], k: 20 } })).hits).every((title) => ['The Long Drowning', 'The Lantern Compact'].includes(title))).toBe(true);
    await api.fails('/v1/lore/search', 400, 'INVALID_INPUT', { body: { query: question } });
    await api.fails('/v1/lore/search', 403, 'FORBIDDEN', { body: { query: question, ignoreScope: true } });
    expect(titles((await api.ok('searchLore', '/v1/lore/search', { token: ADMIN, body: { query: question, k: 20 } })).hits)).toContain('Mudlark safe houses');
  });

  it('filters lore search on metadata (where) with the tags still applied; a bad filter is a coded 400', async () => {
    const question = 'salt toll market trade';
    const marta = (await api.ok('searchLore', '/v1/lore/search', { body: { query: question, tags: MARTA_TAGS, k: 20, where: { topic: 'trade' } } })).hits as { title: string; metadata: object }[];
    expect(marta).toEqual([expect.objectContaining({ title: 'The Salt Toll', metadata: { topic: 'trade', toll: true } })]);
    const admin = (await api.ok('searchLore', '/v1/lore/search', { token: ADMIN, body: { query: question, k: 20, where: { topic: { in: ['trade', 'magic'] }, toll: { exists: false } } } })).hits;
    expect(titles(admin).sort()).toEqual(['The drowned market', 'The tidelines']);
    await api.fails('/v1/lore/search', 400, 'INVALID_INPUT', { body: { query: question, tags: MARTA_TAGS, where: { topic: ['trade'] } } });
    await api.fails('/v1/lore/search', 400, 'LIMIT_EXCEEDED', { body: { query: question, tags: MARTA_TAGS, where: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`key${index}`, 1])) } });
  });

  it('lists and reads entries within the character\'s scope; a hidden entry is a 404', async () => {
    const entries = (await api.ok('listLore', `/v1/lore/entries?tags=${MARTA_TAGS.join(',')}`)).entries as { id: string; title: string; embedding?: unknown }[];
    expect(entries.map((entry) => entry.title).sort()).toEqual(['Founding of Brackwater', 'The Lantern Compact', 'The Long Drowning', 'The Salt Toll', 'The Sunken Bell']);
    expect(entries[0]).not.toHaveProperty('embedding');
    expect(entries.find((entry) => entry.title === 'The Salt Toll')).toMatchObject({ metadata: { topic: 'trade', toll: true } });
    expect(((await api.ok('listLore', '/v1/lore/entries?tags=')).entries as unknown[]).length).toBe(2);
    await api.fails('/v1/lore/entries', 400, 'INVALID_INPUT');
    const listing = await api.ok('listLore', '/v1/lore/entries', { token: ADMIN });
    const all = listing.entries as { id: string; title: string }[];
    expect(all).toHaveLength(ORSA_LORE.length);
    expect(listing.nextOffset).toBeNull();
    const first = await api.ok('listLore', '/v1/lore/entries?limit=2', { token: ADMIN });
    expect([(first.entries as { title: string }[]).map((entry) => entry.title), first.nextOffset]).toEqual([all.slice(0, 2).map((entry) => entry.title), 2]);
    const second = await api.ok('listLore', '/v1/lore/entries?limit=2&offset=2', { token: ADMIN });
    expect((second.entries as { title: string }[]).map((entry) => entry.title)).toEqual(all.slice(2, 4).map((entry) => entry.title));
    await api.fails('/v1/lore/entries?limit=1001', 400, 'INVALID_INPUT');
    const hidden = all.find((entry) => entry.title === 'The Brackwater lantern house') as { id: string };
    const visible = all.find((entry) => entry.title === 'The Sunken Bell') as { id: string };
    expect(await api.ok('getLore', `/v1/lore/entries/${visible.id}?tags=${MARTA_TAGS.join(',')}`)).toMatchObject({ title: 'The Sunken Bell' });
    await api.fails(`/v1/lore/entries/${hidden.id}?tags=${MARTA_TAGS.join(',')}`, 404, 'NOT_FOUND');
    await api.fails(`/v1/lore/entries/${hidden.id}`, 400, 'INVALID_INPUT');
    expect(await api.ok('getLore', `/v1/lore/entries/${hidden.id}`, { token: ADMIN })).toMatchObject({ title: 'The Brackwater lantern house' });
  });

  it('ends a lore page at 1 MiB of content: nextOffset goes on from the entry that reached it', async () => {
    // 60 entries of 20,000 bytes: 52 make 1,040,000 bytes, the 53rd reaches 1 MiB.
    const big = Array.from({ length: 60 }, (_, index) => ({ source: 'big.yaml', title: `Big ${String(index).padStart(2, '0')}`, scopeLevel: 'continental' as const, scopeTags: [], content: `${index} `.padEnd(LIMITS.loreContentChars, 'x') }));
    await memory.lore.importEntries([...ORSA_LORE, ...big]);
    try {
      const first = await api.ok('listLore', '/v1/lore/entries?source=big.yaml&limit=1000', { token: ADMIN });
      expect([(first.entries as unknown[]).length, first.nextOffset]).toEqual([53, 53]);
      const second = await api.ok('listLore', '/v1/lore/entries?source=big.yaml&limit=1000&offset=53', { token: ADMIN });
      expect([(second.entries as { title: string }[]).map((entry) => entry.title), second.nextOffset]).toEqual([big.slice(53).map((entry) => entry.title), null]);
      const few = await api.ok('listLore', '/v1/lore/entries?source=big.yaml&limit=3&offset=50', { token: ADMIN });
      expect([(few.entries as { title: string }[]).map((entry) => entry.title), few.nextOffset]).toEqual([['Big 50', 'Big 51', 'Big 52'], 53]);
    } finally {
      await memory.lore.importEntries(ORSA_LORE);
    }
  });

  it('keeps a save\'s lore chunks out of narrative reads without an admin token', async () => {
    await api.fails(`/v1/saves/${SAVE}/query`, 403, 'FORBIDDEN', { body: { query: 'lantern house', chunkType: 'lore' } });
    await api.fails(`/v1/saves/${SAVE}/query`, 403, 'FORBIDDEN', { body: { query: 'lantern house', includeLore: true } });
    const hits = (await api.ok('queryMemory', `/v1/saves/${SAVE}/query`, { body: { query: 'The Brackwater lantern house stands over tidelines', k: 20 } })).hits as { chunkType: string }[];
    expect(hits.every((hit) => hit.chunkType !== 'lore')).toBe(true);
    // Excluding another type leaves lore out all the same.
    const excluding = (await api.ok('queryMemory', `/v1/saves/${SAVE}/query`, { body: { query: 'The Brackwater lantern house stands over tidelines', k: 20, excludeChunkType: 'dialogue' } })).hits as { chunkType: string }[];
    expect(excluding.length).toBeGreaterThan(0);
    expect(excluding.every((hit) => hit.chunkType !== 'lore')).toBe(true);
    const adminDefault = (await api.ok('queryMemory', `/v1/saves/${SAVE}/query`, { token: ADMIN, body: { query: 'The Brackwater lantern house stands over tidelines', k: 20 } })).hits as { chunkType: string }[];
    expect(adminDefault.every((hit) => hit.chunkType !== 'lore')).toBe(true);
    const adminIncluding = (await api.ok('queryMemory', `/v1/saves/${SAVE}/query`, { token: ADMIN, body: { query: 'The Brackwater lantern house stands over tidelines', k: 20, includeLore: true } })).hits as { chunkType: string }[];
    expect(adminIncluding.some((hit) => hit.chunkType === 'lore')).toBe(true);
    const admin = (await api.ok('queryMemory', `/v1/saves/${SAVE}/query`, { token: ADMIN, body: { query: 'lantern house tidelines', chunkType: 'lore' } })).hits as { chunkType: string }[];
    expect(admin.map((hit) => hit.chunkType)).toEqual(['lore']);
    const turn = await api.ok('getTurn', `/v1/saves/${SAVE}/turns/0`);
    expect(turn.chunks).toEqual([]);
  });

  it("refuses writes of lore chunks without an admin token: the save's synced lore stays as it was", async () => {
    const lore = async () => (await memory.store.listChunks(SAVE, { fromTurnId: 0, toTurnId: 0 })).filter((chunk) => chunk.chunkType === 'lore').map((chunk) => chunk.id);
    const before = await lore();
    expect(before.length).toBeGreaterThan(0);
    const replaced = await api.fails(`/v1/saves/${SAVE}/turns/0`, 403, 'FORBIDDEN', { method: 'PUT', body: { text: 'Forged: the lantern house is open to all.', chunkType: 'lore' } });
    expect(replaced.details).toMatchObject({ field: 'chunkType' });
    const added = await api.fails(`/v1/saves/${SAVE}/chunks`, 403, 'FORBIDDEN', { body: { chunks: [{ turnId: 0, text: 'A harmless line.' }, { turnId: 0, text: 'Forged lore.', chunkType: 'lore' }] } });
    expect(added.details).toMatchObject({ field: 'chunks[1].chunkType' });
    await api.fails(`/v1/saves/${SAVE}/chunks`, 403, 'FORBIDDEN', { token: LIMITED, body: { chunks: [{ turnId: 0, text: 'Forged lore.', chunkType: 'lore' }] } });
    expect(await lore()).toEqual(before);
    expect(await memory.count(SAVE)).toBe(13);
    const written = await api.ok('addChunks', '/v1/saves/authored/chunks', { token: ADMIN, body: { chunks: [{ turnId: 0, text: 'An author adds a line of lore.', chunkType: 'lore' }] } });
    expect((written.ids as string[]).length).toBe(1);
    expect(await api.ok('updateTurn', '/v1/saves/authored/turns/0', { token: ADMIN, body: { text: 'The author rewrites it.', chunkType: 'lore' } })).toMatchObject({ ids: [expect.any(String)] });
    expect(await memory.count('authored', { chunkType: 'lore' })).toBe(1);
  });

  it('imports (admin only, dry run first), then wipes and restores the book', async () => {
    await api.fails('/v1/lore/import', 403, 'FORBIDDEN', { body: { entries: ORSA_LORE } });
    const dry = await api.ok('importLore', '/v1/lore/import', { token: ADMIN, body: { entries: [...ORSA_LORE, { source: 'new.yaml', title: 'The gull census', scopeLevel: 'continental', scopeTags: [], content: 'Every spring the keepers count the gulls.' }], dryRun: true } });
    expect(dry).toMatchObject({ dryRun: true, written: false, unchanged: ORSA_LORE.length, created: [{ title: 'The gull census' }] });
    const invalid = await api.fails('/v1/lore/import', 400, 'LORE_INVALID', { token: ADMIN, body: { entries: [{ source: 'x.yaml', title: 'Bad', scopeLevel: 'regional', scopeTags: [], content: 'No tags.' }] } });
    expect(invalid.message).toContain('needs at least one tag');
    await api.fails('/v1/lore/wipe', 403, 'FORBIDDEN', { body: { confirm: true } });
    await api.fails('/v1/lore/wipe', 400, 'INVALID_INPUT', { token: ADMIN, body: {} });
    await api.fails('/v1/lore/status', 403, 'FORBIDDEN');
    expect(await api.ok('loreStatus', '/v1/lore/status', { token: ADMIN })).toMatchObject({ entries: ORSA_LORE.length, origin: { reader: 'entries', location: null, commit: null, importedAt: expect.any(Number) } });
    expect(await api.ok('wipeLore', '/v1/lore/wipe', { token: ADMIN, body: { confirm: true } })).toEqual({ removed: ORSA_LORE.length });
    expect(await api.ok('loreStatus', '/v1/lore/status', { token: ADMIN })).toEqual({ entries: 0, version: expect.any(Number), origin: null });
    expect(await api.ok('importLore', '/v1/lore/import', { token: ADMIN, body: { entries: ORSA_LORE } })).toMatchObject({ written: true, created: expect.any(Array), origin: { reader: 'entries' }, previous: null });
    expect(await memory.lore.count()).toBe(ORSA_LORE.length);
  });
});

describe('HTTP API: remember / recall', () => {
  it('remembers, recalls, lists scopes and forgets; a limited token keeps to its scopes', async () => {
    const stored = await api.ok('remember', '/v1/remember', { body: { scope: 'notes', key: 'contract_summary', value: { parties: ['Acme', 'Beta'], risk: 0.35 }, metadata: { source: 'test' }, decay: '1h' } });
    expect(stored.entry).toMatchObject({ key: 'contract_summary', value: { parties: ['Acme', 'Beta'], risk: 0.35 }, metadata: { source: 'test', scope: 'notes' }, expiresAt: expect.any(Number) });
    await api.ok('remember', '/v1/remember', { token: LIMITED, body: { scope: 'notes', key: 'contract_type', value: 'NDA' } });
    await api.ok('remember', '/v1/remember', { body: { scope: 'elsewhere', key: 'weather', value: 'rain' } });
    await api.fails('/v1/remember', 400, 'INVALID_INPUT', { body: { scope: 'notes', key: 'x', value: 1, decay: 'soon' } });
    await api.fails('/v1/remember', 403, 'FORBIDDEN', { token: LIMITED, body: { scope: 'elsewhere', key: 'x', value: 1 } });

    const recalled = (await api.ok('recall', '/v1/recall', { body: { query: 'contract', scope: 'notes', k: 5 } })).entries as { key: string }[];
    expect(recalled.map((entry) => entry.key).sort()).toEqual(['contract_summary', 'contract_type']);
    expect(((await api.ok('recall', '/v1/recall', { body: { query: 'contract_type', exact: true } })).entries as { key: string; score: number }[])[0]).toMatchObject({ key: 'contract_type', score: 1 });
    await api.fails('/v1/recall', 403, 'FORBIDDEN', { token: LIMITED, body: { query: 'weather' } });

    expect((await api.ok('listScopes', '/v1/recall/scopes')).scopes).toEqual(expect.arrayContaining([{ scope: 'notes', entries: 2 }, { scope: 'elsewhere', entries: 1 }]));
    expect((await api.ok('listScopes', '/v1/recall/scopes', { token: LIMITED })).scopes).toEqual([{ scope: 'notes', entries: 2 }]);
    await api.fails('/v1/forget', 403, 'FORBIDDEN', { token: LIMITED, body: {} });
    expect(await api.ok('forget', '/v1/forget', { token: LIMITED, body: { scope: 'notes' } })).toEqual({ removed: 2 });
    expect(await api.ok('forget', '/v1/forget', { body: {} })).toEqual({ removed: 1 });
  });
});

describe('HTTP API: context', () => {
  it('builds a character\'s context with sources, within the budget, never with lore it may not know', async () => {
    const body = { character: MARTA, message: 'Tell me about the lantern house, the tidelines and the salt under your stairs', tags: MARTA_TAGS, currentTurnId: 12, budget: 3000, limits: { lore: 20 } };
    const context = await api.ok('buildContext', `/v1/saves/${SAVE}/context`, { body });
    expect(context.tokens).toMatchObject({ budget: 3000, used: expect.any(Number) });
    expect((context.tokens as { used: number }).used).toBeLessThanOrEqual(3000);
    const variables = context.variables as Record<string, string>;
    expect(variables.mental_model).toContain(`[model ${scene.modelId}, turn 11]`);
    expect(variables.facts).toContain('cellar stairs');
    for (const hidden of HIDDEN_FROM_MARTA) expect(context.prompt).not.toContain(hidden);
    expect(context.prompt).not.toMatch(/lantern house|tidelines/iu);
    const admin = await api.ok('buildContext', `/v1/saves/${SAVE}/context`, { token: ADMIN, body });
    expect(admin.prompt).toBe(context.prompt);
    const oriel = await api.ok('buildContext', `/v1/saves/${SAVE}/context`, { body: { ...body, character: 'Oriel', tags: ORIEL_TAGS } });
    expect(oriel.prompt).toContain('The Brackwater lantern house');
    const failure = await api.fails(`/v1/saves/${SAVE}/context`, 400, 'INVALID_INPUT', { body: { ...body, template: '{lore_context} {mood}' } });
    expect(failure.message).toContain('unknown placeholder {mood}');
    await api.fails(`/v1/saves/${SAVE}/context`, 400, 'INVALID_INPUT', { body: { character: MARTA, message: 'hi' } });
  });
});

describe('HTTP API: security', () => {
  it('needs a known bearer token on every /v1 route and on /mcp', async () => {
    const missing = await api.call(`/v1/saves/${SAVE}`, { token: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="mnemo"');
    expect(missing.json.error?.code).toBe('UNAUTHENTICATED');
    await api.fails('/v1/saves', 401, 'UNAUTHENTICATED', { token: 'not-a-known-token-at-all' });
    await api.fails('/v1/saves', 401, 'UNAUTHENTICATED', { token: null, headers: { authorization: `Basic ${Buffer.from(`x:${FULL}`).toString('base64')}` } });
    await api.fails('/mcp', 401, 'UNAUTHENTICATED', { token: null, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    for (const route of API_ROUTES) {
      const path = route.path.replace(':saveId', SAVE).replace(':turnId', '1').replace(':entryId', 'x');
      expect((await api.call(path, { method: route.method.toUpperCase(), token: null })).status, route.operationId).toBe(401);
    }
  });

  it('refuses a token limited to save A on save B (403), for reads, writes, context and forks', async () => {
    for (const [path, body] of [
      ['/v1/saves/other', undefined],
      ['/v1/saves/other/chunks', undefined],
      ['/v1/saves/other/turns', undefined],
      ['/v1/saves/other/facts', undefined],
      ['/v1/saves/other/query', { query: 'gulls' }],
      ['/v1/saves/other/chunks', { chunks: [{ turnId: 1, text: 'intrusion' }] }],
      ['/v1/saves/other/rewind', { turnId: 0 }],
      ['/v1/saves/other/context', { character: MARTA, message: 'gulls', tags: [] }],
      [`/v1/saves/${SAVE}/fork`, { newSaveId: 'other-fork', atTurn: 1 }],
    ] as const) {
      const error = await api.fails(path, 403, 'FORBIDDEN', { token: LIMITED, body });
      expect(error.message).toContain('this token may use');
    }
    expect(await memory.count('other')).toBe(1);
    await api.ok('queryMemory', `/v1/saves/${SAVE}/query`, { token: LIMITED, body: { query: 'salt' } });
  });

  it('answers 413 to a body over the limit, announced or streamed, and writes nothing', async () => {
    const chunks = Array.from({ length: 200 }, (_, index) => ({ turnId: 1, text: `${'x'.repeat(400)} ${index}` }));
    const announced = await api.call('/v1/saves/big/chunks', { body: { chunks } });
    expect(announced.status).toBe(413);
    expect(announced.json.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { maxBytes: MAX_BODY } });
    const bytes = new TextEncoder().encode(JSON.stringify({ chunks }));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let start = 0; start < bytes.length; start += 8192) controller.enqueue(bytes.slice(start, start + 8192));
        controller.close();
      },
    });
    await api.fails('/v1/saves/big/chunks', 413, 'PAYLOAD_TOO_LARGE', { raw: stream, headers: { 'content-type': 'application/json' } });
    expect(await memory.count('big')).toBe(0);
    expect((await api.call('/health')).status).toBe(200);
  });

  it('answers 400 MALFORMED_JSON to broken JSON and 415 to a body that is not JSON', async () => {
    const error = await api.fails(`/v1/saves/${SAVE}/query`, 400, 'MALFORMED_JSON', { raw: '{"query": "salt", "k": }', headers: { 'content-type': 'application/json' } });
    expect(error.message).toContain('not valid JSON');
    expect(error.details).toMatchObject({ location: 'body' });
    await api.fails(`/v1/saves/${SAVE}/query`, 415, 'UNSUPPORTED_MEDIA_TYPE', { raw: 'query=salt', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  });

  it('answers 400 INVALID_INPUT listing every problem of the body, the query string and the path', async () => {
    const error = await api.fails(`/v1/saves/${SAVE}/query`, 400, 'INVALID_INPUT', { body: { query: 7, k: 0, surprise: true } });
    expect(error.details).toMatchObject({ location: 'body', field: 'query' });
    expect((error.details.issues as string[]).length).toBe(3);
    expect(error.message).toMatch(/query: .*; k: .*Unrecognized key/su);
    await api.fails(`/v1/saves/${SAVE}/chunks?limit=lots`, 400, 'INVALID_INPUT');
    await api.fails(`/v1/saves/${SAVE}/chunks?colour=red`, 400, 'INVALID_INPUT');
    await api.fails(`/v1/saves/${SAVE}/turns/minus-one`, 400, 'INVALID_INPUT');
    await api.fails(`/v1/saves/${'s'.repeat(201)}`, 400, 'INVALID_INPUT');
    await api.fails('/v1/nowhere', 404, 'NOT_FOUND');
  });

  it('maps errors by category and never sends a stack trace', async () => {
    expect(httpStatus('INVALID_INPUT', 'USER')).toBe(400);
    expect(httpStatus('CONFIRMATION_REQUIRED', 'USER')).toBe(409);
    expect(httpStatus('INTERNAL', 'SYSTEM')).toBe(500);
    expect(httpStatus('PROVIDER_TIMEOUT', 'THIRD_PARTY')).toBe(502);
    const original = memory.listSaves.bind(memory);
    try {
      memory.listSaves = async () => { throw new Error('boom in /secret/path.ts:12'); };
      const internal = await api.fails('/v1/saves', 500, 'INTERNAL');
      expect(internal.message).toContain(internal.requestId);
      expect(JSON.stringify(internal)).not.toContain('boom');
      memory.listSaves = async () => { throw new MnemoError('PROVIDER_FAILURE', 'The embedder answered 503.'); };
      await api.fails('/v1/saves', 502, 'PROVIDER_FAILURE');
    } finally {
      memory.listSaves = original;
    }
  });
});

describe('HTTP API: coverage', () => {
  it('has exercised every route with a successful call', () => {
    expect(API_ROUTES.map((route) => route.operationId).filter((id) => !api.covered.has(id))).toEqual([]);
  });
});

describe('--insecure-local', () => {
  let local: RunningHttpServer;
  beforeAll(async () => {
    local = await startHttpServer({ fetch: createApi({ memory, auth: 'insecure-local', logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => local.close());

  const raw = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${local.url}/v1/access`, { headers }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });

  it('answers loopback requests without a token, as the owner', async () => {
    expect(await new ApiClient(local.url, null).ok('getAccess', '/v1/access')).toEqual({ name: 'insecure-local', admin: true, saves: '*' });
    expect(await raw({ host: `localhost:${local.port}` })).toBe(200);
  });

  it('refuses other Host names (DNS rebinding) and pages of other origins', async () => {
    expect(await raw({ host: 'evil.example' })).toBe(403);
    expect(await raw({ host: `127.0.0.1:${local.port}`, origin: 'https://evil.example' })).toBe(403);
    expect(await raw({ host: `127.0.0.1:${local.port}`, origin: `http://localhost:${local.port}` })).toBe(200);
  });
});
