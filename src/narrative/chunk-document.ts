// A save's chunks as the corpus index holds them: a chunk's turn is its position, its type its kind.
import type { ChunkFilter } from '../core/types.js';
import type { DocumentFilter, IndexDocument } from '../retrieval/corpus-index.js';
import type { IndexRow } from '../seams/index-row.js';

/**
 * The index document of a chunk (a stored row, or a chunk just written).
 *
 * @example
 * ```ts
 * chunkDocument({ id: 'c1', turnId: 4, chunkType: 'dialogue', text: 'Hello', embedding: null });
 * // { id: 'c1', position: 4, kind: 'dialogue', text: 'Hello', embedding: null, dimensions: undefined }
 * ```
 */
export function chunkDocument(chunk: IndexRow): IndexDocument {
  return { id: chunk.id, position: chunk.turnId, kind: chunk.chunkType, text: chunk.text, embedding: chunk.embedding, dimensions: chunk.dimensions };
}

/**
 * The document filter of a chunk filter: the turn window (the smaller of `maxTurnId` and `currentTurnId`) bounds
 * positions, `chunkType` and `excludeChunkType` keep or drop a kind.
 *
 * @example
 * ```ts
 * chunkDocumentFilter({ maxTurnId: 9, currentTurnId: 5, excludeChunkType: 'lore' }); // { maxPosition: 5, excludeKind: 'lore' }
 * ```
 */
export function chunkDocumentFilter(filter: ChunkFilter): DocumentFilter {
  const bounds = [filter.maxTurnId, filter.currentTurnId].filter((bound): bound is number => bound !== undefined);
  return {
    ...(bounds.length === 0 ? {} : { maxPosition: Math.min(...bounds) }),
    ...(filter.chunkType === undefined ? {} : { kind: filter.chunkType }),
    ...(filter.excludeChunkType === undefined ? {} : { excludeKind: filter.excludeChunkType }),
  };
}
