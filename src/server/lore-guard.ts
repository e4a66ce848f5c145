// The rules that keep lore a character may not know out of every answer of the API and of the MCP tools.
import { MnemoError } from '../core/errors.js';
import type { ChunkFilter } from '../core/types.js';
import { LORE_CHUNK_TYPE } from '../lore/lore-book.js';
import type { Principal } from './access.js';
import { requireAdmin, requireTagsWithin } from './access.js';

/**
 * The lore tags a lore read runs with: the character's tags, required unless the caller is an admin (then
 * `undefined` means every entry). `ignoreScope` is for admins only. Tags outside the token's binding are FORBIDDEN.
 *
 * @example
 * ```ts
 * characterTags(gameToken, undefined, 'lore search'); // throws INVALID_INPUT: tags are required
 * characterTags(adminToken, undefined, 'lore search'); // undefined: every entry
 * ```
 */
export function characterTags(principal: Principal, tags: readonly string[] | undefined, what: string, ignoreScope = false): readonly string[] | undefined {
  if (ignoreScope) {
    requireAdmin(principal, `${what} with ignoreScope`);
    return undefined;
  }
  if (tags !== undefined) {
    requireTagsWithin(principal, tags);
    return tags;
  }
  if (principal.admin) return tags;
  throw new MnemoError('INVALID_INPUT', `tags: ${what} needs the character's lore tags (e.g. ["brackwater", "brackwater_docks"], or [] for continental lore only), got none. Only an admin token may read lore without them.`, {
    details: { field: 'tags' },
  });
}

/**
 * The chunk-type filter of a narrative read. A save may hold its lore as chunks of type `lore` (the whole book,
 * whatever a character may know); the library leaves them out of a search unless asked, and without an admin
 * token asking is FORBIDDEN (`chunkType: 'lore'` or `includeLore: true`): a character reaches lore only through
 * its tags (`POST /v1/lore/search`, the context builder).
 */
export function narrativeTypeFilter(principal: Principal, filter: Pick<ChunkFilter, 'chunkType' | 'excludeChunkType' | 'includeLore'>): Pick<ChunkFilter, 'chunkType' | 'excludeChunkType' | 'includeLore'> {
  if (principal.admin) return filter;
  if (filter.chunkType === LORE_CHUNK_TYPE || filter.includeLore === true) {
    const field = filter.chunkType === LORE_CHUNK_TYPE ? 'chunkType' : 'includeLore';
    throw new MnemoError('FORBIDDEN', `${field}: a save's lore chunks hold the whole lore book, so only an admin token may read them. Use POST /v1/lore/search with the character's tags.`, { details: { field } });
  }
  return { chunkType: filter.chunkType, excludeChunkType: filter.excludeChunkType, includeLore: false };
}

/**
 * Refuses a write of lore chunks (type `lore`) without an admin token: a save's lore is the book's, written by
 * `lore.syncToSave` or an admin, never forged by a game token (it would replace the synced lore of turn 0).
 *
 * @example
 * ```ts
 * requireLoreWriter(gameToken, 'lore', 'chunks[1].chunkType'); // throws FORBIDDEN (HTTP 403)
 * ```
 */
export function requireLoreWriter(principal: Principal, chunkType: string | undefined, field: string): void {
  if (principal.admin || chunkType !== LORE_CHUNK_TYPE) return;
  throw new MnemoError('FORBIDDEN', `${field}: chunks of type "lore" are the save's copy of the lore book, so only an admin token may write them. Write narrative chunks (another chunkType), and import lore with POST /v1/lore/import.`, {
    details: { field },
  });
}

/** The type a listing of chunks leaves out: `lore`, unless the caller is an admin. */
export function listingExclusion(principal: Principal): string | undefined {
  return principal.admin ? undefined : LORE_CHUNK_TYPE;
}
