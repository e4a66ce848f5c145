// How a chunk's metadata is kept in its SQLite row: only the keys its columns do not already hold (saveId, turnId, chunkType, entryId).
import type { Metadata } from '../../core/types.js';

/** The columns of a chunk row that its metadata repeats. */
export interface ChunkColumns {
  saveId: string;
  turnId: number;
  chunkType: string;
  entryId: string | null;
}

/**
 * Marks a metadata column holding the whole metadata (JSON after this one character): metadata whose column keys
 * do not come last, in order, with the columns' values (an import of a file written by hand), so that
 * rebuilding it from the columns would change its key order or values.
 */
const WHOLE = '=';

/**
 * The text a chunk row keeps for its metadata. Metadata as Mnemo makes it (its own keys, then saveId, turnId,
 * chunkType and entryId when set, with the row's values) keeps its own keys only, as the JSON of an object
 * without its braces: `''` when it has none, else `"speaker":"Rowan"` (about 84 bytes less per chunk than the
 * whole JSON). Other metadata is kept whole (`=` then its JSON). A row written before this encoding holds the
 * whole JSON (it begins with `{`). `decodeChunkMetadata` gives back, for each, metadata whose JSON is the
 * original's text.
 *
 * @example
 * ```ts
 * encodeChunkMetadata({ speaker: 'Rowan', saveId: 's', turnId: 3, chunkType: 'narrative' }, { saveId: 's', turnId: 3, chunkType: 'narrative', entryId: null });
 * // '"speaker":"Rowan"'
 * ```
 */
export function encodeChunkMetadata(metadata: Metadata, columns: ChunkColumns): string {
  const keys = Object.keys(metadata);
  const own = keys.length - (columns.entryId === null ? 3 : 4);
  const derived =
    own >= 0 &&
    keys[own] === 'saveId' && metadata['saveId'] === columns.saveId &&
    keys[own + 1] === 'turnId' && metadata['turnId'] === columns.turnId &&
    keys[own + 2] === 'chunkType' && metadata['chunkType'] === columns.chunkType &&
    (columns.entryId === null || (keys[own + 3] === 'entryId' && metadata['entryId'] === columns.entryId));
  if (!derived) return WHOLE + JSON.stringify(metadata);
  if (own === 0) return '';
  // Each kept key's JSON, as JSON.stringify writes an object's (a key whose value JSON leaves out is left out).
  let json = '';
  for (let index = 0; index < own; index++) {
    const key = keys[index] as string;
    const value = JSON.stringify(metadata[key]) as string | undefined;
    if (value === undefined) continue;
    json += `${json === '' ? '' : ','}${JSON.stringify(key)}:${value}`;
  }
  return json;
}

/**
 * The metadata of a chunk row: its kept text (see `encodeChunkMetadata`) and its columns.
 *
 * @example
 * ```ts
 * decodeChunkMetadata('', { saveId: 's', turnId: 3, chunkType: 'narrative', entryId: null });
 * // { saveId: 's', turnId: 3, chunkType: 'narrative' }
 * ```
 */
export function decodeChunkMetadata(stored: string, columns: ChunkColumns): Metadata {
  if (stored.startsWith('{')) return JSON.parse(stored) as Metadata;
  if (stored.startsWith(WHOLE)) return JSON.parse(stored.slice(1)) as Metadata;
  const metadata: Metadata = stored === '' ? {} : (JSON.parse(`{${stored}}`) as Metadata);
  metadata['saveId'] = columns.saveId;
  metadata['turnId'] = columns.turnId;
  metadata['chunkType'] = columns.chunkType;
  if (columns.entryId !== null) metadata['entryId'] = columns.entryId;
  return metadata;
}

/**
 * The SQL expression of a row's kept metadata text once its save id is the bound parameter (a fork's copy): only
 * metadata kept whole, or written before the encoding, holds the save id. The new save id is the named parameter @newSaveId.
 */
export const METADATA_WITH_NEW_SAVE_ID = `CASE substr(metadata, 1, 1) WHEN '{' THEN json_set(metadata, '$.saveId', @newSaveId) WHEN '${WHOLE}' THEN '${WHOLE}' || json_set(substr(metadata, 2), '$.saveId', @newSaveId) ELSE metadata END`;
