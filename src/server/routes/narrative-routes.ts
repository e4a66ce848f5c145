// Routes of narrative memory: saves, turns and chunks (paged), add, update a turn, query, rewind, fork.
import { z } from 'zod';
import { MnemoError } from '../../core/errors.js';
import type { Metadata } from '../../core/types.js';
import type { Mnemo } from '../../open-memory.js';
import type { DeleteChunksInput } from '../../saves/delete-chunks.js';
import type { ListChunksOptions } from '../../seams/chunk-store.js';
import { allowsSave, requireSave } from '../access.js';
import { listingExclusion, narrativeTypeFilter, requireLoreWriter } from '../lore-guard.js';
import { DEFAULT_PAGE, PAGE_TEXT_BYTES, defineRoute, nextOffset } from '../route.js';
import type { Route } from '../route.js';
import { addChunksBody, chunkPageQuery, deleteChunksBody, forkBody, pageQuery, queryBody, rewindBody, saveParams, turnParams, updateTurnBody } from '../schemas/requests.js';
import { chunkSchema, deleteChunksCountsSchema, deleteCountsSchema, factSchema, forkCountsSchema, hitSchema, nextOffsetSchema, rewindCountsSchema, saveOverviewSchema, turnSummarySchema } from '../schemas/responses.js';

/** A save's counts across layers; null when the save holds nothing in any layer. */
async function saveOverview(memory: Mnemo, saveId: string, summaries?: Awaited<ReturnType<Mnemo['listSaves']>>): Promise<z.infer<typeof saveOverviewSchema> | null> {
  const summary = (summaries ?? (await memory.listSaves())).find((save) => save.saveId === saveId);
  const [living] = await memory.living.status(saveId);
  if (living === undefined) return null;
  const empty = summary === undefined && living.facts + living.beliefs + living.models + Object.values(living.jobs).reduce((sum, count) => sum + count, 0) === 0;
  if (empty) return null;
  return { ...living, chunks: summary?.chunks ?? 0, turns: summary?.turns ?? 0, minTurnId: summary?.minTurnId ?? null, maxTurnId: summary?.maxTurnId ?? null, version: summary?.version ?? 0 };
}

/**
 * One page of a save's chunks: at most `limit` of them, ending with the chunk whose text brings the page to
 * PAGE_TEXT_BYTES (the next page then starts after it; a page so cut may be followed by an empty last one).
 */
async function chunkPage(memory: Mnemo, saveId: string, options: ListChunksOptions, offset: number, limit: number): Promise<{ chunks: Awaited<ReturnType<Mnemo['listChunks']>>; nextOffset: number | null }> {
  const chunks = await memory.listChunks(saveId, { ...options, offset, limit: limit + 1, maxTextBytes: PAGE_TEXT_BYTES });
  const page = chunks.slice(0, limit);
  const cut = chunks.length <= limit && page.reduce((bytes, chunk) => bytes + Buffer.byteLength(chunk.text), 0) >= PAGE_TEXT_BYTES;
  return { chunks: page, nextOffset: cut ? offset + page.length : nextOffset(chunks.length, offset, limit) };
}

const PAGE_TEXT_NOTE = `A page also ends with the chunk whose text brings it to ${PAGE_TEXT_BYTES.toLocaleString('en-US')} bytes (UTF-8): follow \`nextOffset\` until it is null.`;

const idsSchema = z.object({ ids: z.array(z.string()).describe('The UUIDs of the chunks written, in order.') });

export const narrativeRoutes: Route[] = [
  defineRoute({
    method: 'get',
    path: '/v1/saves',
    operationId: 'listSaves',
    summary: 'List the saves this token may use, with their counts in every layer',
    tag: 'narrative',
    access: 'any',
    query: pageQuery,
    response: z.object({ saves: z.array(saveOverviewSchema), total: z.number(), nextOffset: nextOffsetSchema }),
    async handle({ query, principal, memory }) {
      const summaries = (await memory.listSaves()).filter((save) => allowsSave(principal, save.saveId)).sort((a, b) => (a.saveId < b.saveId ? -1 : a.saveId > b.saveId ? 1 : 0));
      const offset = query.offset ?? 0;
      const limit = query.limit ?? DEFAULT_PAGE;
      const page = summaries.slice(offset, offset + limit);
      const saves = [];
      for (const save of page) saves.push(await saveOverview(memory, save.saveId, summaries));
      return { saves: saves.filter((save) => save !== null), total: summaries.length, nextOffset: offset + limit < summaries.length ? offset + limit : null };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId',
    operationId: 'getSave',
    summary: "A save's counts in every layer (chunks, facts, beliefs, models, jobs) and its turn range",
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    response: saveOverviewSchema,
    async handle({ params, memory }) {
      const overview = await saveOverview(memory, params.saveId);
      if (overview === null) throw new MnemoError('NOT_FOUND', `save ${JSON.stringify(params.saveId)} holds nothing. GET /v1/saves lists the saves.`, { details: { saveId: params.saveId } });
      return overview;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId/turns',
    operationId: 'listTurns',
    summary: "A save's turns in order, each with its chunk count and types (paged)",
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    query: chunkPageQuery,
    response: z.object({ turns: z.array(turnSummarySchema), nextOffset: nextOffsetSchema }),
    async handle({ params, query, principal, memory }) {
      const offset = query.offset ?? 0;
      const limit = query.limit ?? DEFAULT_PAGE;
      const turns = await memory.listTurns(params.saveId, { fromTurnId: query.fromTurnId, toTurnId: query.toTurnId, excludeChunkType: listingExclusion(principal), offset, limit: limit + 1 });
      return { turns: turns.slice(0, limit), nextOffset: nextOffset(turns.length, offset, limit) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId/turns/:turnId',
    operationId: 'getTurn',
    summary: "One turn: its chunks in order (paged) and the facts living memory drew from it",
    description: `The chunks are paged like every listing (\`offset\`, \`limit\`: 100 by default, at most 1,000). ${PAGE_TEXT_NOTE}`,
    tag: 'narrative',
    access: 'save',
    params: turnParams,
    query: pageQuery,
    response: z.object({ saveId: z.string(), turnId: z.number(), chunks: z.array(chunkSchema), nextOffset: nextOffsetSchema, facts: z.array(factSchema) }),
    async handle({ params, query, principal, memory }) {
      const offset = query.offset ?? 0;
      const page = await chunkPage(memory, params.saveId, { fromTurnId: params.turnId, toTurnId: params.turnId, excludeChunkType: listingExclusion(principal) }, offset, query.limit ?? DEFAULT_PAGE);
      const facts = await memory.living.facts(params.saveId, { turnId: params.turnId, limit: 10_000 });
      return { saveId: params.saveId, turnId: params.turnId, chunks: page.chunks, nextOffset: page.nextOffset, facts };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/saves/:saveId/turns/:turnId',
    operationId: 'updateTurn',
    summary: "Replace a turn's chunks of one type (default narrative) with new text, atomically",
    description: 'Chunks of type `lore` (a save\'s copy of the lore book) need an admin token.',
    tag: 'narrative',
    access: 'save',
    params: turnParams,
    body: updateTurnBody,
    response: idsSchema,
    async handle({ params, body, principal, memory }) {
      requireLoreWriter(principal, body.chunkType, 'chunkType');
      return { ids: await memory.updateTurn({ saveId: params.saveId, turnId: params.turnId, text: body.text, chunkType: body.chunkType }) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId/chunks',
    operationId: 'listChunks',
    summary: "A save's chunks in turn order, then insertion order (paged)",
    description: `Without an admin token the save's lore chunks (type \`lore\`) are left out. ${PAGE_TEXT_NOTE}`,
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    query: chunkPageQuery,
    response: z.object({ chunks: z.array(chunkSchema), nextOffset: nextOffsetSchema }),
    handle: ({ params, query, principal, memory }) =>
      chunkPage(memory, params.saveId, { fromTurnId: query.fromTurnId, toTurnId: query.toTurnId, excludeChunkType: listingExclusion(principal) }, query.offset ?? 0, query.limit ?? DEFAULT_PAGE),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/chunks',
    operationId: 'addChunks',
    summary: 'Add chunks (one turn, or several) in one transaction: all land, or none',
    description: 'Chunks of type `lore` (a save\'s copy of the lore book) need an admin token.',
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    body: addChunksBody,
    response: idsSchema,
    status: 201,
    async handle({ params, body, principal, memory }) {
      body.chunks.forEach((chunk, index) => requireLoreWriter(principal, chunk.chunkType, `chunks[${index}].chunkType`));
      return { ids: await memory.addMany(body.chunks.map((chunk) => ({ ...chunk, metadata: chunk.metadata as Metadata | undefined, saveId: params.saveId }))) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/chunks/delete',
    operationId: 'deleteChunks',
    summary: 'Delete chunks of a save by id, or every chunk of one entry, in one transaction (destructive); returns how many went',
    description: "Their vectors and search-index entries go with them; unknown ids count 0. Facts, beliefs and models distilled from their turns stay (they cite turns, not chunks). Without an admin token the save's lore chunks (type `lore`) are left in place.",
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    body: deleteChunksBody,
    response: deleteChunksCountsSchema,
    async handle({ params, body, principal, memory }) {
      // The library checks that exactly one of ids and entryId came (INVALID_INPUT otherwise, nothing deleted).
      return memory.deleteChunks({ ...body, saveId: params.saveId } as DeleteChunksInput, { excludeChunkType: listingExclusion(principal) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/query',
    operationId: 'queryMemory',
    summary: 'Hybrid search of a save (words and meaning), each hit with why it ranked',
    description: "Filters (turn window, chunk type) apply before ranking. The save's lore chunks are left out unless `chunkType: \"lore\"` or `includeLore` asks for them, which needs an admin token.",
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    body: queryBody,
    response: z.object({ hits: z.array(hitSchema) }),
    async handle({ params, body, principal, memory }) {
      const { query, chunkType, excludeChunkType, includeLore, ...options } = body;
      return { hits: await memory.query(params.saveId, query, { ...options, ...narrativeTypeFilter(principal, { chunkType, excludeChunkType, includeLore }) }) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/warm',
    operationId: 'warmSave',
    summary: "Build the save's search index now, so its first query does not wait for it; returns the chunks indexed",
    description: 'A save is otherwise indexed on its first query (about a second per 100,000 chunks). Call it when a session starts.',
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    response: z.object({ chunks: z.number().int() }),
    async handle({ params, memory }) {
      return { chunks: await memory.warm(params.saveId) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/rewind',
    operationId: 'rewind',
    summary: 'Delete everything after a turn, every layer in one transaction; returns what each layer lost',
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    body: rewindBody,
    response: rewindCountsSchema,
    async handle({ params, body, memory }) {
      return memory.rewindWithCounts(params.saveId, body.turnId);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/fork',
    operationId: 'fork',
    summary: 'Copy a save as of a turn into a new save, every layer, in one transaction',
    description: 'A limited token needs both saves in its list.',
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    body: forkBody,
    response: forkCountsSchema,
    status: 201,
    async handle({ params, body, principal, memory }) {
      requireSave(principal, body.newSaveId, 'newSaveId');
      return memory.fork(params.saveId, body.newSaveId, body.atTurn);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/saves/:saveId',
    operationId: 'deleteSave',
    summary: 'Remove a save, every layer, in one transaction (destructive; an unknown save gives zeros)',
    description: 'Chunks with their vectors, synced lore chunks, facts, beliefs, mental models and their versions, jobs and the search index. GET .../export first to keep a copy.',
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    response: deleteCountsSchema,
    async handle({ params, memory }) {
      return memory.deleteSave(params.saveId);
    },
  }),
];
