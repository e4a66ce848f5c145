// The Unicode tokenizer shared by indexing and querying: lowercased words, accents and scripts kept whole.

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * A fresh global copy of the word pattern `tokenize` uses, for a caller reading words one `exec` at a time.
 *
 * @example
 * ```ts
 * const words = wordPattern();
 * words.exec('kaël waits')?.[0]; // 'kaël'
 * ```
 */
export function wordPattern(): RegExp {
  return new RegExp(WORD.source, 'gu');
}

/**
 * Splits text into lowercased word tokens. Anything that is not a letter, a combining mark or a digit separates
 * words (punctuation, spaces, underscores, quotes, operators), so "Kaël" and "東京" stay whole and a query
 * full of symbols can never be a syntax error. Text is NFC-normalised first, so composed and decomposed
 * accents give the same token.
 *
 * @example
 * ```ts
 * tokenize('Kaël met the Archmage_Tindel!'); // ['kaël', 'met', 'the', 'archmage', 'tindel']
 * ```
 */
export function tokenize(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(WORD) ?? [];
}

/**
 * The distinct tokens of a text, in first-appearance order.
 *
 * @example
 * ```ts
 * uniqueTokens('the cat and the hat'); // ['the', 'cat', 'and', 'hat']
 * ```
 */
export function uniqueTokens(text: string): string[] {
  return [...new Set(tokenize(text))];
}
