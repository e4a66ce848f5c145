// A save's chunks as the corpus index holds them: a chunk's turn is its position, its type its kind; its metadata roles its context; and the one resolution of a chunk filter.
import { MnemoError } from '../core/errors.js';
import { LORE_CHUNK_TYPE } from '../core/types.js';
import type { ChunkFilter, ChunkSearchFilter } from '../core/types.js';
import { resolveMetadataWhere } from '../core/metadata-filter.js';
import { optionalChunkType, optionalTurnId } from '../core/validate.js';
import type { DocumentFilter, IndexDocument } from '../retrieval/corpus-index.js';
import type { IndexRow } from '../seams/index-row.js';
import { contextFieldsOf, DEFAULT_METADATA_ROLES } from './metadata-roles.js';
import type { MetadataRoles } from './metadata-roles.js';

/**
 * The index document of a chunk (a stored row, or a chunk just written): its metadata as the fields a `where`
 * filter tests, and its speaker, scene and day read from them by `roles` (see `MetadataRoles`).
 *
 * @example
 * ```ts
 * chunkDocument({ id: 'c1', turnId: 4, chunkType: 'dialogue', text: 'Hello', embedding: null, metadata: { speaker: 'Ann' } });
 * // { id: 'c1', position: 4, kind: 'dialogue', text: 'Hello', embedding: null, dimensions: undefined, fields: { speaker: 'Ann' }, speaker: 'Ann' }
 * ```
 */
export function chunkDocument(chunk: IndexRow, roles: Required<MetadataRoles> = DEFAULT_METADATA_ROLES): IndexDocument {
  return { id: chunk.id, position: chunk.turnId, kind: chunk.chunkType, text: chunk.text, embedding: chunk.embedding, dimensions: chunk.dimensions, fields: chunk.metadata, ...contextFieldsOf(chunk.metadata, roles) };
}

/**
 * Validates a chunk search's filter options and resolves them into the filter every arm applies (the in-memory
 * index through `chunkDocumentFilter`, a store's vector search in SQL): the turn window becomes its smaller bound,
 * and a save's lore chunks are left out unless `chunkType: 'lore'` or `includeLore: true` asks for them.
 *
 * @example
 * ```ts
 * resolveChunkFilter({ maxTurnId: 9, currentTurnId: 5 }); // { maxTurnId: 5, excludeChunkTypes: ['lore'] }
 * resolveChunkFilter({ chunkType: 'lore' }); // { chunkType: 'lore', excludeChunkTypes: [] }
 * ```
 */
export function resolveChunkFilter(options: ChunkFilter): ChunkSearchFilter {
  const bounds = [optionalTurnId(options.maxTurnId, 'maxTurnId'), optionalTurnId(options.currentTurnId, 'currentTurnId')].filter((bound): bound is number => bound !== undefined);
  const chunkType = optionalChunkType(options.chunkType, 'chunkType');
  const excluded = optionalChunkType(options.excludeChunkType, 'excludeChunkType');
  if (options.includeLore !== undefined && typeof options.includeLore !== 'boolean') {
    throw new MnemoError('INVALID_INPUT', `includeLore: expected true or false, got ${JSON.stringify(options.includeLore)}. Pass true to let a save's lore chunks rank.`, { details: { field: 'includeLore' } });
  }
  const includeLore = options.includeLore === true || chunkType === LORE_CHUNK_TYPE;
  const excludeChunkTypes = [...new Set([...(excluded === undefined ? [] : [excluded]), ...(includeLore ? [] : [LORE_CHUNK_TYPE])])];
  const where = resolveMetadataWhere(options.where);
  return {
    ...(where === undefined ? {} : { where }),
    ...(bounds.length === 0 ? {} : { maxTurnId: Math.min(...bounds) }),
    ...(chunkType === undefined ? {} : { chunkType }),
    excludeChunkTypes,
  };
}

/**
 * The document filter of a resolved chunk filter: the turn bound bounds positions, `chunkType` keeps one kind,
 * `excludeChunkTypes` drop kinds and the `where` clauses test the fields.
 *
 * @example
 * ```ts
 * chunkDocumentFilter({ maxTurnId: 5, excludeChunkTypes: ['lore'] }); // { maxPosition: 5, excludeKinds: ['lore'] }
 * ```
 */
export function chunkDocumentFilter(filter: ChunkSearchFilter): DocumentFilter {
  return {
    ...(filter.maxTurnId === undefined ? {} : { maxPosition: filter.maxTurnId }),
    ...(filter.chunkType === undefined ? {} : { kind: filter.chunkType }),
    ...(filter.excludeChunkTypes === undefined || filter.excludeChunkTypes.length === 0 ? {} : { excludeKinds: filter.excludeChunkTypes }),
    ...(filter.where === undefined ? {} : { fields: filter.where }),
  };
}
