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
 * whatever a character may know), so without an admin token they are always left out: the filter becomes
 * `excludeChunkType: 'lore'`, asking for `chunkType: 'lore'` is FORBIDDEN, and so is excluding another type
 * instead (which would let lore chunks back in; ask for one `chunkType` instead).
 */
export function narrativeTypeFilter(principal: Principal, filter: Pick<ChunkFilter, 'chunkType' | 'excludeChunkType'>): Pick<ChunkFilter, 'chunkType' | 'excludeChunkType'> {
  if (principal.admin) return filter;
  if (filter.chunkType === LORE_CHUNK_TYPE) {
    throw new MnemoError('FORBIDDEN', 'chunkType: a save\'s lore chunks hold the whole lore book, so only an admin token may read them. Use POST /v1/lore/search with the character\'s tags.', { details: { field: 'chunkType' } });
  }
  if (filter.chunkType !== undefined) return { chunkType: filter.chunkType };
  if (filter.excludeChunkType !== undefined && filter.excludeChunkType !== LORE_CHUNK_TYPE) {
    throw new MnemoError('FORBIDDEN', `excludeChunkType: without an admin token lore chunks are always excluded, so another type (${JSON.stringify(filter.excludeChunkType)}) cannot be excluded instead. Ask for the type you want with chunkType.`, {
      details: { field: 'excludeChunkType' },
    });
  }
  return { excludeChunkType: LORE_CHUNK_TYPE };
}

/** The type a listing of chunks leaves out: `lore`, unless the caller is an admin. */
export function listingExclusion(principal: Principal): string | undefined {
  return principal.admin ? undefined : LORE_CHUNK_TYPE;
}
