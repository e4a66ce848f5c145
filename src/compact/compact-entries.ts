// Remembered entries (remember / recall) as compact text for a model: one line per entry, the value as compact JSON.
import { oneLine } from '../core/one-line.js';
import type { MemoryEntry } from '../recall/memory-entry.js';
import type { CompactOptions } from './compact-hits.js';

/**
 * Recalled entries, best first, one line each: key, scope, the value as compact JSON (a string as it is), and when
 * it expires if it does. `Nothing remembered matched.` when there is none.
 *
 * @example
 * ```ts
 * compactEntries(await memory.recall.retrieve('debt', 5, 'notes'));
 * // debt [notes]: {"owed":3,"to":"Rowan"}
 * ```
 */
export function compactEntries(entries: readonly MemoryEntry[], options: CompactOptions = {}): string {
  if (entries.length === 0) return 'Nothing remembered matched.';
  return entries.map((entry) => compactEntry(entry, options)).join('\n');
}

/**
 * One entry as a line (see compactEntries).
 *
 * @example
 * ```ts
 * compactEntry(await memory.recall.store('mood', 'wary', { scope: 'marta' })); // 'mood [marta]: wary'
 * ```
 */
export function compactEntry(entry: MemoryEntry, options: CompactOptions = {}): string {
  const scope = typeof entry.metadata['scope'] === 'string' ? ` [${entry.metadata['scope']}]` : '';
  const score = options.scores === true ? ` · score ${entry.score.toFixed(3)}` : '';
  const expiry = entry.expiresAt === null ? '' : ` · expires ${new Date(entry.expiresAt * 1000).toISOString()}`;
  const value = typeof entry.value === 'string' ? oneLine(entry.value) : JSON.stringify(entry.value);
  return `${entry.key}${scope}${score}${expiry}: ${value}`;
}
