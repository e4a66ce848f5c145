// The metadata keys a search index reads from a chunk (its speaker, scene, time; or all, for filters), picked from stored metadata.
import type { Metadata } from './types.js';

/**
 * The given keys of a chunk's metadata (stored as JSON text, or as an object), those it holds, in the order asked.
 * JSON text is parsed only when it mentions one of the keys, so a save whose chunks carry none costs a substring
 * search per row. `'all'`: the whole metadata. Undefined when no keys are asked.
 *
 * @example
 * ```ts
 * pickMetadata('{"speaker":"Rowan","mood":"calm"}', ['speaker', 'scene']); // { speaker: 'Rowan' }
 * ```
 */
export function pickMetadata(stored: string | Metadata | null | undefined, keys: readonly string[] | 'all' | undefined): Metadata | undefined {
  if (keys === undefined || keys.length === 0) return undefined;
  if (keys === 'all') return stored === null || stored === undefined ? {} : typeof stored === 'string' ? (JSON.parse(stored) as Metadata) : stored;
  const picked: Metadata = {};
  if (stored === null || stored === undefined) return picked;
  let metadata: Metadata;
  if (typeof stored === 'string') {
    if (!keys.some((key) => stored.includes(JSON.stringify(key)))) return picked;
    metadata = JSON.parse(stored) as Metadata;
  } else {
    metadata = stored;
  }
  for (const key of keys) {
    const value = metadata[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}
