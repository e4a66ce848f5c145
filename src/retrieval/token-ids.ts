// A text's tokens as cached ids: tokenize + one lookup per token, with a scan for ASCII text that makes no strings.
import { tokenize } from './tokenize.js';

const EMPTY = '';

/** FNV-style hash step over one UTF-16 code unit. */
const step = (hash: number, code: number) => Math.imul(hash ^ code, 0x01000193);

/** Final mix, so that the low bits (the table position) depend on every code unit. */
const mix = (hash: number) => {
  const mixed = Math.imul(hash ^ (hash >>> 16), 0x45d9f3b);
  return mixed ^ (mixed >>> 16);
};

/**
 * Maps the tokens of texts (as `tokenize` makes them) to ids, each token resolved once by `resolve` and cached.
 * ASCII text (most of it) is scanned in place: letters and digits lowercased as they are hashed and compared,
 * so a token already seen costs no string; at the first character beyond ASCII the text starts again through
 * `tokenize`. Both find the same tokens: for ASCII, NFC changes nothing and `tokenize`'s words are the runs of
 * [a-z0-9] once lowercased. The tokens met before the restart are the first ones `tokenize` finds too (each
 * ended at an ASCII separator, which later characters cannot change), so ids are resolved in the same order.
 * At most `limit` tokens are cached; later new ones are resolved every time.
 *
 * @example
 * ```ts
 * const ids = new TokenIds((token) => (token === 'the' ? -1 : terms.termId(token)));
 * const scratch = new Int32Array(64);
 * const count = ids.idsOf('The gate opens', scratch); // scratch[0..count) holds gate's and opens' ids
 * ```
 */
export class TokenIds {
  private keys: string[] = new Array<string>(1024).fill(EMPTY);
  private hashes = new Int32Array(1024);
  private values = new Int32Array(1024);
  private count = 0;

  /** `resolve` gives a token's id, or a negative number to drop it (a stop word). */
  constructor(private readonly resolve: (token: string) => number, private readonly limit = 200_000) {}

  /** Tokens cached. */
  get size(): number {
    return this.count;
  }

  /**
   * Writes the ids of `text`'s tokens, in order and without the dropped ones, into `target` from 0, growing it
   * when too short (the array written is returned with the count).
   */
  idsOf(text: string, target: Int32Array): { ids: Int32Array; count: number } {
    // A text has no more tokens than characters.
    const ids = target.length >= text.length ? target : new Int32Array(text.length);
    let written = 0;
    const length = text.length;
    let index = 0;
    while (index < length) {
      let code = text.charCodeAt(index);
      if (!(code >= 97 ? code <= 122 : code >= 65 ? code <= 90 : code >= 48 && code <= 57)) {
        if (code >= 128) return this.idsOfTokens(tokenize(text), target);
        index++;
        continue;
      }
      const start = index;
      let hash = 0x811c9dc5;
      do {
        if (code >= 65 && code <= 90) code += 32;
        hash = step(hash, code);
        code = ++index < length ? text.charCodeAt(index) : 0;
      } while (code >= 97 ? code <= 122 : code >= 65 ? code <= 90 : code >= 48 && code <= 57);
      if (code >= 128) return this.idsOfTokens(tokenize(text), target);
      const id = this.lookupRange(text, start, index, mix(hash));
      if (id >= 0) ids[written++] = id;
    }
    return { ids, count: written };
  }

  private idsOfTokens(tokens: readonly string[], target: Int32Array): { ids: Int32Array; count: number } {
    const ids = target.length >= tokens.length ? target : new Int32Array(tokens.length);
    let written = 0;
    for (const token of tokens) {
      let hash = 0x811c9dc5;
      for (let index = 0; index < token.length; index++) hash = step(hash, token.charCodeAt(index));
      const id = this.lookupToken(token, mix(hash));
      if (id >= 0) ids[written++] = id;
    }
    return { ids, count: written };
  }

  /** The id of the token text[start..end) lowercased (ASCII), resolved and cached when new. */
  private lookupRange(text: string, start: number, end: number, hash: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    const size = end - start;
    let position = hash & mask;
    for (;;) {
      const key = keys[position] as string;
      if (key === EMPTY) break;
      if (this.hashes[position] === hash && key.length === size) {
        let same = true;
        for (let offset = 0; offset < size; offset++) {
          let code = text.charCodeAt(start + offset);
          if (code >= 65 && code <= 90) code += 32;
          if (key.charCodeAt(offset) !== code) {
            same = false;
            break;
          }
        }
        if (same) return this.values[position] as number;
      }
      position = (position + 1) & mask;
    }
    return this.insert(text.slice(start, end).toLowerCase(), hash, position);
  }

  /** The id of a token made by `tokenize`, resolved and cached when new. */
  private lookupToken(token: string, hash: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    let position = hash & mask;
    for (;;) {
      const key = keys[position] as string;
      if (key === EMPTY) break;
      if (this.hashes[position] === hash && key === token) return this.values[position] as number;
      position = (position + 1) & mask;
    }
    return this.insert(token, hash, position);
  }

  /** Resolves a new token and caches it at `position` (its free place), growing the table at half full. */
  private insert(token: string, hash: number, position: number): number {
    const id = this.resolve(token);
    if (this.count >= this.limit) return id;
    this.keys[position] = token;
    this.hashes[position] = hash;
    this.values[position] = id;
    this.count++;
    if (this.count * 2 > this.keys.length) this.rehash(this.keys.length * 2);
    return id;
  }

  private rehash(capacity: number): void {
    const keys = this.keys;
    const hashes = this.hashes;
    const values = this.values;
    this.keys = new Array<string>(capacity).fill(EMPTY);
    this.hashes = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let index = 0; index < keys.length; index++) {
      if (keys[index] === EMPTY) continue;
      let position = (hashes[index] as number) & mask;
      while (this.keys[position] !== EMPTY) position = (position + 1) & mask;
      this.keys[position] = keys[index] as string;
      this.hashes[position] = hashes[index] as number;
      this.values[position] = values[index] as number;
    }
  }
}
