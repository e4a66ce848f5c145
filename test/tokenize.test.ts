import { describe, expect, it } from 'vitest';
import { tokenize, uniqueTokens } from '../src/retrieval/tokenize.js';

describe('tokenize', () => {
  it('lowercases and splits on anything that is not a letter, mark or digit', () => {
    expect(tokenize('Hello, World! It\'s 3pm_now')).toEqual(['hello', 'world', 'it', 's', '3pm', 'now']);
  });
  it('keeps accented and non-Latin words whole', () => {
    expect(tokenize('Kaël met Zoë in 東京 — Привет!')).toEqual(['kaël', 'met', 'zoë', 'in', '東京', 'привет']);
  });
  it('gives the same token for composed and decomposed accents', () => {
    expect(tokenize('Kae\u0308l')).toEqual(tokenize('Ka\u00ebl'));
  });
  it('turns quotes, operators and punctuation into nothing at all', () => {
    expect(tokenize('"" AND OR NOT * ( ) : ^ ~ -- \' ?')).toEqual(['and', 'or', 'not']);
    expect(tokenize('?!,;')).toEqual([]);
  });
  it('dedupes in first-appearance order', () => {
    expect(uniqueTokens('b a b c a')).toEqual(['b', 'a', 'c']);
  });
});
