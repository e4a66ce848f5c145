// Narrative and lore hits as compact text for a model: one line per hit (turn, type, short id, text), scores only when asked.
import { oneLine, shortId } from '../core/one-line.js';
import type { Explanation, Hit } from '../core/types.js';
import type { LoreHit } from '../lore/lore-book.js';

/** How compact text is written. */
export interface CompactOptions {
  /** Add each hit's score and its rank in each arm (default false: a model rarely needs them, and they cost tokens). */
  scores?: boolean;
}

/** ` · score 0.832 (words #1, meaning #3)`, or '' when scores were not asked for. */
function scorePart(score: number, explanation: Explanation, options: CompactOptions): string {
  if (options.scores !== true) return '';
  const arms = [explanation.lexical === null ? null : `words #${explanation.lexical.rank}`, explanation.semantic === null ? null : `meaning #${explanation.semantic.rank}`].filter((arm) => arm !== null);
  return ` · score ${score.toFixed(3)}${arms.length > 0 ? ` (${arms.join(', ')})` : ''}`;
}

/**
 * Narrative hits, best first, one line each: `turn 12 · dialogue · 3f2a1b9c: Rowan says: "Mind the well."`.
 * The short id is the first 8 characters of the chunk's id; `No memory matched.` when there is none.
 *
 * @example
 * ```ts
 * compactHits(await memory.query('run-1', 'where is the key?'));
 * // turn 12 · narrative · 3f2a1b9c: Kaël hides the silver key under the third stone of the well.
 * compactHits(hits, { scores: true });
 * // turn 12 · narrative · 3f2a1b9c · score 1.912 (words #1, meaning #1): Kaël hides the silver key ...
 * ```
 */
export function compactHits(hits: readonly Hit[], options: CompactOptions = {}): string {
  if (hits.length === 0) return 'No memory matched.';
  return hits.map((hit) => `turn ${hit.turnId} · ${hit.chunkType} · ${shortId(hit.id)}${scorePart(hit.score, hit.explanation, options)}: ${oneLine(hit.text)}`).join('\n');
}

/**
 * Lore hits, best first, one line each: title, scope and short id, then the content.
 *
 * @example
 * ```ts
 * compactLoreHits(await memory.lore.search('Who founded Brackwater?', { tags: ['brackwater'] }));
 * // Founding of Brackwater · regional [brackwater] · 5d1e2f3a: Brackwater was founded by ...
 * ```
 */
export function compactLoreHits(hits: readonly LoreHit[], options: CompactOptions = {}): string {
  if (hits.length === 0) return 'No lore matched.';
  return hits
    .map((hit) => {
      const scope = hit.scopeTags.length === 0 ? hit.scopeLevel : `${hit.scopeLevel} [${hit.scopeTags.join(', ')}]`;
      return `${oneLine(hit.title)} · ${scope} · ${shortId(hit.entryId)}${scorePart(hit.score, hit.explanation, options)}: ${oneLine(hit.content)}`;
    })
    .join('\n');
}
