// Counting one text's tokens only as far as a limit, resumable, giving the event loop back while it counts.
import type { TimeSlice } from '../core/time-slice.js';
import type { TokenCounter } from '../seams/token-counter.js';

/** Pieces counted between two yield checks. */
const PIECES_PER_CHECK = 256;

/**
 * The token count of one text, made lazily: `upTo(limit)` counts until the total passes `limit` (or the text
 * ends) and can be called again with a higher limit, resuming where it stopped. With a counter that counts piece
 * by piece (`TokenCounter.pieces`, as gptTokenCounter does) a long text is never counted further than asked, and
 * the count gives the event loop back every few milliseconds (`slice`); otherwise the text is counted in one call.
 *
 * @example
 * ```ts
 * const tally = new TokenTally(counter, longText);
 * if ((await tally.upTo(300, slice)) <= 300) keep(longText, tally.total); // exact when within the limit
 * ```
 */
export class TokenTally {
  private counted = 0;
  private iterator: Iterator<number> | null = null;
  private finished = false;

  constructor(
    private readonly counter: TokenCounter,
    private readonly text: string,
  ) {}

  /** The tokens counted so far: the text's count once `exact`, else a lower bound of it. */
  get total(): number {
    return this.counted;
  }

  /** True when the whole text has been counted. */
  get exact(): boolean {
    return this.finished;
  }

  /** Counts until the total passes `limit` or the text ends; returns the total (exact when it is <= limit). */
  async upTo(limit: number, slice: TimeSlice): Promise<number> {
    if (this.finished || this.counted > limit) return this.counted;
    if (this.counter.pieces === undefined) {
      await slice.tick();
      this.counted = this.counter.count(this.text);
      this.finished = true;
      return this.counted;
    }
    this.iterator ??= this.counter.pieces(this.text)[Symbol.iterator]();
    for (let pieces = 0; this.counted <= limit; pieces++) {
      if (pieces % PIECES_PER_CHECK === 0) await slice.tick();
      const next = this.iterator.next();
      if (next.done === true) {
        this.finished = true;
        this.iterator = null;
        break;
      }
      this.counted += next.value;
    }
    return this.counted;
  }

  /** The whole text's count (resumed from what was counted). */
  async all(slice: TimeSlice): Promise<number> {
    return this.upTo(Number.POSITIVE_INFINITY, slice);
  }
}

/**
 * Counts a whole text's tokens, giving the event loop back between pieces (see TokenTally).
 *
 * @example
 * ```ts
 * const tokens = await countTokens(counter, prompt, new TimeSlice());
 * ```
 */
export function countTokens(counter: TokenCounter, text: string, slice: TimeSlice): Promise<number> {
  return new TokenTally(counter, text).all(slice);
}
