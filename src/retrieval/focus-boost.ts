// The focus-term boost: chunks mentioning the current scene (place, characters on stage) rise a little.
import { TimeSlice } from '../core/time-slice.js';
import { TopK } from './top-k.js';
import { tokenize, wordPattern } from './tokenize.js';

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
    const scan = this.scan(text);
    while (!scan.step(Number.POSITIVE_INFINITY));
    return scan.found();
  }

  /**
   * The same as `matches`, giving the event loop back every few milliseconds (`slice`) within the text, so one
   * text of 100,000 characters does not hold the loop for its whole scan. Stops once every term is found.
   */
  async matchesSliced(text: string, slice: TimeSlice): Promise<string[]> {
    if (this.terms.length === 0) return [];
    const scan = this.scan(text);
    for (;;) {
      await slice.tick();
      if (scan.step(TOKENS_PER_STEP)) return scan.found();
    }
  }

  /** A scan of one text, read `step(n)` tokens at a time (true once the text is read or every key is found). */
  private scan(text: string): { step(tokens: number): boolean; found(): string[] } {
    const found = new Set<string>();
    const words = wordPattern();
    const lowered = text.normalize('NFC').toLowerCase();
    let previous: string | null = null;
    return {
      step: (tokens) => {
        for (let read = 0; read < tokens; read++) {
          const match = words.exec(lowered);
          if (match === null) return true;
          const token = match[0];
          if (this.wanted.has(token)) found.add(token);
          if (previous !== null && this.pairStarts.has(previous)) {
            const key = pair(previous, token);
            if (this.wanted.has(key)) found.add(key);
          }
          previous = token;
          if (found.size === this.wanted.size) return true;
        }
        return false;
      },
      found: () => this.terms.filter(({ keys }) => keys.every((key) => found.has(key))).map(({ term }) => term),
    };
  }
}

/** Tokens a sliced match reads between two yield checks (well under a millisecond of work). */
const TOKENS_PER_STEP = 2048;

/** Most candidates whose texts are read at once while matching a ranked list (the first read is the head's size). */
const TEXTS_PER_READ = 64;

/**
 * The focus terms of the candidates that can still reach the first `head` places once boosted. `ranked` is
 * sorted best first (ties in order); a candidate gains `boost` when it mentions a term. Candidates are matched in
 * order; once the head-th best boosted score so far is at least a candidate's score plus `boost`, neither it nor
 * any later one can enter the head (on a tie the earlier candidate stays ahead), so their texts are neither read
 * nor matched. Exact: the head is the one matching every candidate would give. Texts are read in batches and
 * matched in slices of a few milliseconds. Returns the matches of the candidates read and their texts.
 *
 * @example
 * ```ts
 * const { matches } = await matchHead(new FocusMatcher(['Rowan']), [['c1', 0.5], ['c2', 0.1]], 0.005, 1, loadTexts);
 * ```
 */
export async function matchHead(
  matcher: FocusMatcher,
  ranked: readonly (readonly [string, number])[],
  boost: number,
  head: number,
  loadTexts: (ids: readonly string[]) => Promise<Map<string, string>>,
): Promise<{ matches: Map<string, string[]>; texts: Map<string, string> }> {
  const matches = new Map<string, string[]>();
  const texts = new Map<string, string>();
  if (matcher.empty || head <= 0) return { matches, texts };
  const slice = new TimeSlice();
  const best = new TopK(head);
  const outOfReach = (score: number) => best.full && score + boost <= best.threshold;
  for (let start = 0, size = Math.min(head, TEXTS_PER_READ); start < ranked.length; start += size, size = Math.min(2 * size, TEXTS_PER_READ)) {
    const batch = ranked.slice(start, start + size);
    if (outOfReach(batch[0]?.[1] as number)) break;
    const read = await loadTexts(batch.map(([id]) => id));
    for (const [offset, [id, score]] of batch.entries()) {
      if (outOfReach(score)) return { matches, texts };
      const text = read.get(id);
      const found = text === undefined ? [] : await matcher.matchesSliced(text, slice);
      if (text !== undefined) texts.set(id, text);
      matches.set(id, found);
      best.push(start + offset, found.length > 0 ? score + boost : score);
    }
  }
  return { matches, texts };
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
