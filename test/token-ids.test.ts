// Token ids: the cached, in-place scan of a text finds exactly the tokens `tokenize` finds, in order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenIds } from '../src/retrieval/token-ids.js';
import { tokenize } from '../src/retrieval/tokenize.js';

/** Ids in order of first appearance; a few words are dropped (negative), as stop words are. */
function resolver() {
  const known = new Map<string, number>();
  let calls = 0;
  const resolve = (token: string) => {
    calls++;
    if (token === 'the' || token === 'a1') return -1;
    let id = known.get(token);
    if (id === undefined) known.set(token, (id = known.size));
    return id;
  };
  return { resolve, known, calls: () => calls };
}

const expected = (texts: readonly string[]) => {
  const { resolve } = resolver();
  return texts.map((text) => tokenize(text).map(resolve).filter((id) => id >= 0));
};

const actual = (texts: readonly string[], limit?: number) => {
  const { resolve } = resolver();
  const table = new TokenIds(resolve, limit);
  let scratch: Int32Array = new Int32Array(2);
  return texts.map((text) => {
    const { ids, count } = table.idsOf(text, scratch);
    scratch = ids;
    return [...ids.subarray(0, count)];
  });
};

const pieces = ['The', 'the', 'THE', 'gate', 'Gate', 'a1', 'A1', '42', 'x_y', 'Kaël', 'kaël', 'Ka\u0065\u0308l', '東京', 'İstanbul', 'ǅ', 'ß', 'ﬁ', 'Ω', '😀', ' ', '  ', '.', ',', '-', "'", '\n', '\t', '_', '`', '[', '@', '{', '~', '\u007f', '\u0000'];

describe('TokenIds', () => {
  it('gives the ids of tokenize(text) for ASCII and other text, case and punctuation mixed', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 20 }).map((parts) => parts.join('')), { maxLength: 12 }), (texts) => {
        expect(actual(texts)).toEqual(expected(texts));
      }),
      { numRuns: 400, seed: 17 },
    );
  });

  it('restarts through tokenize at the first character beyond ASCII, resolving ids in the same order', () => {
    const texts = ['alpha beta gamma, delta Kaël', 'new1 new2 new3=\u0338 new4', 'zeta e\u0301ta theta', 'omega ωmega OMEGA', 'iota, kappa'];
    expect(actual(texts)).toEqual(expected(texts));
    expect(actual([texts[0] as string])).toEqual([[0, 1, 2, 3, 4]]);
  });

  it('grows its table and stops caching past its limit without changing an id', () => {
    const texts = Array.from({ length: 300 }, (_, index) => `Word${index} w${index % 7} THE word${(index * 13) % 300} ümlaut${index % 5}`);
    expect(actual(texts)).toEqual(expected(texts));
    expect(actual(texts, 10)).toEqual(expected(texts));
    const { resolve, calls } = resolver();
    const table = new TokenIds(resolve, 10);
    for (const text of texts) table.idsOf(text, new Int32Array(1));
    expect(table.size).toBe(10);
    expect(calls()).toBeGreaterThan(10);
  });

  it('resolves a token once while it is cached', () => {
    const { resolve, calls } = resolver();
    const table = new TokenIds(resolve);
    for (let round = 0; round < 3; round++) table.idsOf('The gate, the GATE; gatE and Kaël.', new Int32Array(0));
    expect(calls()).toBe(4);
    expect(table.size).toBe(4);
  });
});
