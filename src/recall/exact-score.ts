// The seed's substring scoring (exact retrieval) and the order every backend sorts by.

/** Score of an exact (case-insensitive) key match. */
export const EXACT_KEY_SCORE = 1.0;
/** Score of a key that contains the query. */
export const KEY_CONTAINS_SCORE = 0.7;
/** Score of a value that contains the query. */
export const VALUE_CONTAINS_SCORE = 0.4;

/**
 * The seed's InMemoryBackend scoring: 1.0 when the key equals the query, 0.7 when the key contains it, 0.4 when
 * the value's text contains it, else 0 (excluded). Case-insensitive; `foldedQuery` is already lowercased. The
 * first rule that holds wins.
 *
 * @example
 * ```ts
 * exactScore('contract_type', 'NDA', 'contract'); // 0.7
 * ```
 */
export function exactScore(key: string, valueText: string, foldedQuery: string): number {
  const foldedKey = key.toLowerCase();
  if (foldedKey === foldedQuery) return EXACT_KEY_SCORE;
  if (foldedKey.includes(foldedQuery)) return KEY_CONTAINS_SCORE;
  if (valueText.toLowerCase().includes(foldedQuery)) return VALUE_CONTAINS_SCORE;
  return 0;
}

/** What the result order reads of a candidate. */
export interface Ranked {
  score: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Position of first storage (kept when the entry is replaced). */
  seq: number;
}

/**
 * The seed's order: score descending, then newest first; entries stored at the same instant keep the order in
 * which they were first stored (as Python's stable sort over a dict does).
 *
 * @example
 * ```ts
 * candidates.sort(byScoreThenNewest);
 * ```
 */
export function byScoreThenNewest(a: Ranked, b: Ranked): number {
  return b.score - a.score || b.createdAt - a.createdAt || a.seq - b.seq;
}
