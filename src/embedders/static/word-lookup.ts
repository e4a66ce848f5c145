// How a token finds its word vector: exactly as written (lowercased, NFC), else with its accents removed.
import type { WordVectorTable } from './word-vector-table.js';

const MARKS = /\p{M}+/gu;

/**
 * The token without combining marks ("kaël" → "kael", "café" → "cafe"); the token itself when it has none.
 *
 * @example
 * ```ts
 * stripDiacritics('naïve'); // 'naive'
 * ```
 */
export function stripDiacritics(token: string): string {
  const stripped = token.normalize('NFD').replace(MARKS, '').normalize('NFC');
  return stripped === '' ? token : stripped;
}

/**
 * The table row of a token (already lowercased and NFC-normalised by the tokenizer): the exact word first,
 * then its form without diacritics; -1 when neither is known (the word is then skipped).
 *
 * @example
 * ```ts
 * lookupRow(table, 'kaël'); // the row of 'kaël' if GloVe has it, else of 'kael', else -1
 * ```
 */
export function lookupRow(table: WordVectorTable, token: string): number {
  const exact = table.rowOf(token);
  if (exact >= 0) return exact;
  const stripped = stripDiacritics(token);
  return stripped === token ? -1 : table.rowOf(stripped);
}
