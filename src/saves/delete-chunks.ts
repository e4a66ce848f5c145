// The owner of a delete of chunks: validates the selection, removes the chunks in the store's one transaction, then tells the index.
import { MnemoError } from '../core/errors.js';
import { LIMITS, limitExceeded } from '../core/limits.js';
import { describe, requireSaveId } from '../core/validate.js';
import type { ChunkSelection, ChunkStore, DeleteChunksOptions } from '../seams/chunk-store.js';
import type { SaveIndexes } from './save-operation.js';

/** Which chunks to delete: the ids of chunks of one save, or every chunk of one entry of it. */
export type DeleteChunksInput = { saveId: string; ids: readonly string[] } | { saveId: string; entryId: string };

/** What a delete of chunks removed. */
export interface DeleteChunksCounts {
  /** Chunks removed (with their vectors and index entries); unknown ids count 0. */
  chunks: number;
}

/** What a delete of chunks works with: the store's transaction, then the process's index cache. */
export interface DeleteChunksOperation {
  store: Pick<ChunkStore, 'deleteChunks'>;
  indexes: Pick<SaveIndexes, 'afterDeleteChunks'>;
}

function invalid(field: string, expected: string, received: unknown, fix: string): MnemoError {
  return new MnemoError('INVALID_INPUT', `${field}: expected ${expected}, got ${describe(received)}. ${fix}`, { details: { field, expected, received: describe(received) } });
}

/** Checks the input: a save, and exactly one of a non-empty, bounded list of ids or one entry id. */
function selectionOf(input: unknown): { saveId: string; selection: ChunkSelection } {
  if (typeof input !== 'object' || input === null) throw invalid('deleteChunks', '{ saveId, ids } or { saveId, entryId }', input, 'Name the save and the chunks.');
  const { saveId, ids, entryId } = input as { saveId?: unknown; ids?: unknown; entryId?: unknown };
  const save = requireSaveId(saveId);
  if ((ids === undefined) === (entryId === undefined)) {
    throw new MnemoError('INVALID_INPUT', `deleteChunks: expected exactly one of ids and entryId, got ${ids === undefined ? 'neither' : 'both'}. Pass the chunks' ids, or the entryId whose chunks go.`, { details: { field: 'ids' } });
  }
  if (entryId !== undefined) {
    if (typeof entryId !== 'string' || entryId === '' || entryId.length > 200) throw invalid('entryId', 'a non-empty string of at most 200 characters', entryId, 'Pass the entryId the chunks were added with.');
    return { saveId: save, selection: { entryId } };
  }
  if (!Array.isArray(ids) || ids.length === 0) throw invalid('ids', 'a non-empty array of chunk ids', ids, 'Pass the ids a query or a listing returned.');
  if (ids.length > LIMITS.deleteChunkIds) throw limitExceeded('ids', 'deleteChunkIds', ids.length, 'Delete in several calls, or by entryId.', 'ids');
  ids.forEach((id: unknown, position) => {
    if (typeof id !== 'string' || id === '' || id.length > 200) throw invalid(`ids[${position}]`, 'a non-empty string of at most 200 characters', id, 'Pass the ids a query or a listing returned.');
  });
  return { saveId: save, selection: { ids: [...new Set(ids as string[])] } };
}

/**
 * Removes chunks of one save, by id or by entry, in one store transaction (their vectors with them), then drops
 * them from the save's search index (in memory; the persisted copy is rewritten later and an older one is never
 * used). Returns how many went; ids the save does not hold count 0. Bad input is INVALID_INPUT or LIMIT_EXCEEDED
 * and writes nothing. Living memory is not touched: facts cite turns, not chunks (see docs/library.md).
 *
 * @example
 * ```ts
 * const { chunks } = await deleteChunks({ store, indexes: narrative }, { saveId: 'run-1', entryId: 'note-7' });
 * ```
 */
export async function deleteChunks(operation: DeleteChunksOperation, input: DeleteChunksInput, options: DeleteChunksOptions = {}): Promise<DeleteChunksCounts> {
  const { saveId, selection } = selectionOf(input);
  const result = await operation.store.deleteChunks(saveId, selection, options);
  operation.indexes.afterDeleteChunks(saveId, result.removed, result);
  return { chunks: result.removed.length };
}
