// Routes of the lore book: import, status and wipe (admin), search and listings scoped by a character's tags.
import { z } from 'zod';
import { MnemoError } from '../../core/errors.js';
import { loreAccessible } from '../../core/lore-access.js';
import { requireAdmin } from '../access.js';
import { characterTags } from '../lore-guard.js';
import type { LoreEntry } from '../../seams/lore-store.js';
import type { Mnemo } from '../../open-memory.js';
import { DEFAULT_PAGE, PAGE_TEXT_BYTES, defineRoute } from '../route.js';
import type { Route } from '../route.js';
import { entryParams, loreEntriesQuery, loreEntryQuery, loreImportBody, loreSearchBody, loreWipeBody } from '../schemas/requests.js';
import { loreEntrySchema, loreHitSchema, loreImportReportSchema, loreStatusSchema, nextOffsetSchema } from '../schemas/responses.js';

/** An entry as the API shows it: everything but the vector. */
const withoutVector = <T extends object>(entry: T): T => {
  const { embedding: _embedding, ...rest } = entry as T & { embedding?: unknown };
  return rest as T;
};

/** Entries a page reads from the store at a time: a page reads at most PAGE_TEXT_BYTES of content plus one batch. */
const LORE_PAGE_BATCH = 50;

/**
 * One page of the lore listing: at most `limit` entries, ending with the entry whose content brings the page to
 * PAGE_TEXT_BYTES (UTF-8); the entries are read in batches, so a page of long entries reads few beyond it.
 */
async function lorePage(memory: Mnemo, filter: { tags: readonly string[] | undefined; source: string | undefined }, offset: number, limit: number): Promise<{ entries: LoreEntry[]; nextOffset: number | null }> {
  const entries: LoreEntry[] = [];
  let bytes = 0;
  for (;;) {
    const want = Math.min(LORE_PAGE_BATCH, limit + 1 - entries.length);
    const batch = await memory.lore.list({ ...filter, offset: offset + entries.length, limit: want });
    for (const entry of batch) {
      entries.push(entry);
      if (entries.length > limit) return { entries: entries.slice(0, limit), nextOffset: offset + limit };
      bytes += Buffer.byteLength(entry.content);
      if (bytes >= PAGE_TEXT_BYTES) return { entries, nextOffset: offset + entries.length };
    }
    if (batch.length < want) return { entries, nextOffset: null };
  }
}

export const loreRoutes: Route[] = [
  defineRoute({
    method: 'post',
    path: '/v1/lore/import',
    operationId: 'importLore',
    summary: 'Bring the lore book in line with these entries (admin tokens only)',
    description: 'Validates everything first (LORE_INVALID lists every problem; nothing is written), then creates, updates and re-embeds what changed and removes entries gone from the list, in one transaction. dryRun reports the plan only.',
    tag: 'lore',
    access: 'any',
    body: loreImportBody,
    response: loreImportReportSchema,
    async handle({ body, principal, memory }) {
      requireAdmin(principal, 'Importing lore');
      return memory.lore.importEntries(body.entries, { dryRun: body.dryRun === true });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/lore/status',
    operationId: 'loreStatus',
    summary: 'How many entries the book holds, its version, and where its live lore came from (admin tokens only)',
    description: 'origin is what the last import that wrote recorded: reader (folder, git or entries), location (a folder, or a git URL without credentials), ref, the resolved commit, and importedAt (ms since the epoch); null when the book was never imported or was wiped.',
    tag: 'lore',
    access: 'any',
    response: loreStatusSchema,
    async handle({ principal, memory }) {
      requireAdmin(principal, 'Reading where the lore came from');
      return memory.lore.status();
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/lore/search',
    operationId: 'searchLore',
    summary: 'Search the lore a character may know (continental, plus entries whose every tag it holds)',
    description: 'tags are required unless the token is an admin\'s; hidden entries, and entries whose metadata fails `where`, are filtered before ranking.',
    tag: 'lore',
    access: 'any',
    body: loreSearchBody,
    response: z.object({ hits: z.array(loreHitSchema) }),
    async handle({ body, principal, memory }) {
      const tags = characterTags(principal, body.tags, 'lore search', body.ignoreScope === true);
      return { hits: await memory.lore.search(body.query, { tags, ignoreScope: tags === undefined, k: body.k, where: body.where, focusTerms: body.focusTerms }) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/lore/entries',
    operationId: 'listLore',
    summary: 'The entries a character may know, by source and title (every entry for an admin token without tags), paged',
    description: `A page also ends with the entry whose content brings it to ${PAGE_TEXT_BYTES.toLocaleString('en-US')} bytes (UTF-8): follow \`nextOffset\` until it is null.`,
    tag: 'lore',
    access: 'any',
    query: loreEntriesQuery,
    response: z.object({ entries: z.array(loreEntrySchema), nextOffset: nextOffsetSchema }),
    async handle({ query, principal, memory }) {
      const tags = characterTags(principal, query.tags, 'lore listing');
      const { entries, nextOffset } = await lorePage(memory, { tags, source: query.source }, query.offset ?? 0, query.limit ?? DEFAULT_PAGE);
      return { entries: entries.map(withoutVector), nextOffset };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/lore/entries/:entryId',
    operationId: 'getLore',
    summary: 'One entry, if the character with these tags may know it (404 otherwise)',
    tag: 'lore',
    access: 'any',
    params: entryParams,
    query: loreEntryQuery,
    response: loreEntrySchema,
    async handle({ params, query, principal, memory }) {
      const tags = characterTags(principal, query.tags, 'reading a lore entry');
      const entry = await memory.lore.get(params.entryId);
      if (entry === null || (tags !== undefined && !loreAccessible(entry.scopeLevel, entry.scopeTags, new Set(tags)))) {
        throw new MnemoError('NOT_FOUND', `lore entry ${JSON.stringify(params.entryId)}: no such entry this character may know.`, { details: { entryId: params.entryId } });
      }
      return withoutVector(entry);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/lore/wipe',
    operationId: 'wipeLore',
    summary: 'Delete every lore entry (admin tokens only; an import restores them)',
    tag: 'lore',
    access: 'any',
    body: loreWipeBody,
    response: z.object({ removed: z.number() }),
    async handle({ principal, memory }) {
      requireAdmin(principal, 'Wiping the lore book');
      return { removed: await memory.lore.wipe() };
    },
  }),
];
