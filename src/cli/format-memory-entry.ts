// Renders a recalled MemoryEntry for people: rank, key, scope, score, when, and the value as JSON.
import type { MemoryEntry } from '../recall/memory-entry.js';

const MAX_VALUE = 300;

/**
 * Two lines per entry: rank, key, scope, score and when it was stored; then the value as JSON (shortened).
 *
 * @example
 * ```ts
 * formatMemoryEntry(entry, 1);
 * // 1. contract_type [LegalKnowledge] score 0.700 · stored 2024-01-01T00:00:00.000Z
 * //    "NDA"
 * ```
 */
export function formatMemoryEntry(entry: MemoryEntry, rank: number): string {
  const scope = typeof entry.metadata['scope'] === 'string' ? ` [${entry.metadata['scope']}]` : '';
  const expiry = entry.expiresAt === null ? '' : ` · expires ${new Date(entry.expiresAt * 1000).toISOString()}`;
  const value = JSON.stringify(entry.value);
  const shown = value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}… (${value.length} characters)` : value;
  return `${rank}. ${entry.key}${scope} score ${entry.score.toFixed(3)} · stored ${new Date(entry.timestamp * 1000).toISOString()}${expiry}\n   ${shown}`;
}
