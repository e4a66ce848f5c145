// The focus-term boost: chunks mentioning the current scene (place, characters on stage) rise a little.
import { tokenize } from './tokenize.js';

/** The default additive boost for a chunk that mentions a focus term. */
export const FOCUS_BOOST = 0.005;

/** The boost under z-score fusion: half a standard deviation of one arm. */
export const FOCUS_BOOST_ZSCORE = 0.5;

/**
 * Which focus terms a text mentions. A term matches when its tokens appear consecutively in the text's tokens,
 * so "Harvest Moon" matches "the harvest moon inn" but not "moon harvest"; case and punctuation are ignored.
 *
 * @example
 * ```ts
 * focusMatches('Rowan wipes the bar of the Harvest Moon.', ['harvest moon', 'Tindel']); // ['harvest moon']
 * ```
 */
export function focusMatches(text: string, focusTerms: readonly string[]): string[] {
  if (focusTerms.length === 0) return [];
  const tokens = tokenize(text);
  const matches: string[] = [];
  for (const term of focusTerms) {
    const needle = tokenize(term);
    if (needle.length > 0 && containsSequence(tokens, needle)) matches.push(term);
  }
  return matches;
}

function containsSequence(haystack: readonly string[], needle: readonly string[]): boolean {
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let offset = 0; offset < needle.length; offset++) if (haystack[start + offset] !== needle[offset]) continue outer;
    return true;
  }
  return false;
}
