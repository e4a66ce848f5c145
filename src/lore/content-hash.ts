// The content hash of a lore entry: what decides whether an import re-embeds it.
import { createHash } from 'node:crypto';

/**
 * sha256 (hex) of the fields retrieval depends on: content, scope level and the sorted tags. Source and title are
 * the entry's identity, so they are not part of it; tag order never matters.
 *
 * @example
 * ```ts
 * loreContentHash({ content: 'The tide bell rings twice.', scopeLevel: 'local', scopeTags: ['brackwater_docks'] });
 * // '5f1c...' (64 hex digits)
 * ```
 */
export function loreContentHash(entry: { content: string; scopeLevel: string; scopeTags: readonly string[] }): string {
  const tags = [...new Set(entry.scopeTags)].sort();
  return createHash('sha256').update(JSON.stringify([entry.content, entry.scopeLevel, tags])).digest('hex');
}
