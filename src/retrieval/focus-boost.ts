// The focus-term boost: chunks mentioning the current scene (place, characters on stage) rise a little.
import { TimeSlice } from '../core/time-slice.js';
import { tokenize } from './tokenize.js';

/** The default additive boost for a chunk that mentions a focus term. */
export const FOCUS_BOOST = 0.005;

/** The boost under z-score fusion: half a standard deviation of one arm. */
export const FOCUS_BOOST_ZSCORE = 0.5;

/** What one focus term needs of a text: its tokens, and its adjacent token pairs ("harvest moon"). */
interface FocusTerm {
  term: string;
  keys: string[];
}

/** A pair of adjacent tokens as one key: tokens never hold a space, so "a b" is unambiguous. */
const pair = (first: string, second: string) => `${first} ${second}`;

/**
 * Matches a fixed set of focus terms against texts. The terms are tokenized once; each text is tokenized once and
 * read in one pass, so a match costs O(tokens of the text + tokens of the terms) whatever the number and length
 * of the terms (the previous scan cost terms x tokens x term length). A term of one token matches when the text
 * holds that token; a longer term when the text holds each of its adjacent token pairs, so "Harvest Moon" matches
 * "the harvest moon inn" but not "moon harvest" (exact for one and two tokens; a longer name could match its
 * pairs found apart, which for a small boost is harmless). Case and punctuation are ignored.
 *
 * @example
 * ```ts
 * const matcher = new FocusMatcher(['harvest moon', 'Tindel']);
 * matcher.matches('Rowan wipes the bar of the Harvest Moon.'); // ['harvest moon']
 * ```
 */
export class FocusMatcher {
  private readonly terms: FocusTerm[];
  /** Every key some term needs. */
  private readonly wanted = new Set<string>();
  /** Tokens that start a wanted pair (a pair key is made only after one of these). */
  private readonly pairStarts = new Set<string>();

  constructor(focusTerms: readonly string[]) {
    this.terms = [];
    for (const term of focusTerms) {
      const tokens = tokenize(term);
      if (tokens.length === 0) continue;
      const keys = tokens.length === 1 ? [tokens[0] as string] : tokens.slice(1).map((token, index) => pair(tokens[index] as string, token));
      tokens.slice(0, -1).forEach((token) => this.pairStarts.add(token));
      keys.forEach((key) => this.wanted.add(key));
      this.terms.push({ term, keys });
    }
  }

  /** True when no term can match anything (no terms, or only blank ones). */
  get empty(): boolean {
    return this.terms.length === 0;
  }

  /** The terms `text` mentions, in the order the terms were given. */
  matches(text: string): string[] {
    if (this.terms.length === 0) return [];
    const found = new Set<string>();
    let previous: string | null = null;
    for (const token of tokenize(text)) {
      if (this.wanted.has(token)) found.add(token);
      if (previous !== null && this.pairStarts.has(previous)) {
        const key = pair(previous, token);
        if (this.wanted.has(key)) found.add(key);
      }
      previous = token;
    }
    return this.terms.filter(({ keys }) => keys.every((key) => found.has(key))).map(({ term }) => term);
  }
}

/**
 * The focus terms each text mentions, by id, giving the event loop back every few milliseconds: matching the
 * candidates of a large query reads every candidate's text (up to k x 100,000 characters).
 *
 * @example
 * ```ts
 * const matches = await matchEach(new FocusMatcher(['Rowan']), new Map([['c1', 'Rowan waits.']])); // Map { 'c1' => ['Rowan'] }
 * ```
 */
export async function matchEach(matcher: FocusMatcher, texts: ReadonlyMap<string, string>): Promise<Map<string, string[]>> {
  const matches = new Map<string, string[]>();
  if (matcher.empty) return matches;
  const slice = new TimeSlice();
  for (const [id, text] of texts) {
    await slice.tick();
    matches.set(id, matcher.matches(text));
  }
  return matches;
}

/**
 * Which focus terms a text mentions (see FocusMatcher, which a caller matching many texts should make once).
 *
 * @example
 * ```ts
 * focusMatches('Rowan wipes the bar of the Harvest Moon.', ['harvest moon', 'Tindel']); // ['harvest moon']
 * ```
 */
export function focusMatches(text: string, focusTerms: readonly string[]): string[] {
  return new FocusMatcher(focusTerms).matches(text);
}
