// stemEnglish against snowball-stemmers' English stemmer: the same stem for every word of the shipped word
// table and for seeded random words built from the algorithm's endings, prefixes and marker letters.
import snowball from 'snowball-stemmers';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { loadStaticEmbedder } from '../src/embedders/static/index.js';
import { createAnalyzer } from '../src/retrieval/analyzer.js';
import { stemEnglish } from '../src/retrieval/english-stemmer.js';

const reference = snowball.newStemmer('english');

/** The words among `words` whose stems differ, with both stems (empty when all agree). */
function disagreements(words: Iterable<string>): string[] {
  const found: string[] = [];
  for (const word of words) {
    const expected = reference.stem(word);
    const actual = stemEnglish(word);
    if (actual !== expected) found.push(`${word}: snowball ${expected}, stemEnglish ${actual}`);
  }
  return found;
}

/** Pieces the random words are made of: every ending of every step, the R1 prefixes, vowels, y/Y, apostrophes, letters beyond ASCII. */
const PIECES = [
  'y', 'Y', 'e', 's', 'l', 'i', 'a', 'o', 'u', "'", "'s", "'s'", 'ed', 'eed', 'eedly', 'edly', 'ing', 'ingly', 'ies', 'ied', 'sses', 'ss', 'us',
  'ational', 'tional', 'ation', 'ization', 'izer', 'ator', 'alism', 'aliti', 'alli', 'fulness', 'ousli', 'ousness', 'iveness', 'iviti',
  'biliti', 'bli', 'ogi', 'fulli', 'lessli', 'li', 'enci', 'anci', 'abli', 'entli', 'alize', 'icate', 'iciti', 'ical', 'ful', 'ness', 'ative',
  'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion', 'sion',
  'bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt', 'at', 'bl', 'iz', 'gener', 'commun', 'arsen', 'c', 'd', 'g', 'h', 'k', 'm', 'n',
  'r', 't', 'w', 'x', 'b', 'p', 'z', 'q', 'j', 'v', 'f', 'é', 'ë', '東', '7', 'sky', 'news', 'inning', 'proceed',
];

describe('stemEnglish', () => {
  it('stems as Snowball English does, on examples of every step', () => {
    const examples = ['opened', 'doors', 'heavy', 'generously', 'communication', 'arsenal', 'skies', 'dying', 'news', 'inning', 'proceed', 'hopping', 'hoped', 'sized', 'agreed', 'feed', 'cries', 'ties', 'gas', 'kiwis', 'relational', 'rationalism', 'electricity', 'adjustment', 'possession', 'controll', 'rate', 'say', 'yelled', 'kaël', 'ab', "dog's"];
    expect(disagreements(examples)).toEqual([]);
    expect(stemEnglish('opened')).toBe('open');
    expect(stemEnglish('generously')).toBe('generous');
    expect(stemEnglish('kaël')).toBe('kaël');
  });
  it('agrees with snowball-stemmers on every word of the shipped word table', async () => {
    const { table } = await loadStaticEmbedder();
    expect(table.words.length).toBeGreaterThan(50_000);
    expect(disagreements(table.words)).toEqual([]);
  });
  it('agrees with snowball-stemmers on 200,000 seeded random words made of endings and markers', () => {
    const random = seededRandom(20);
    const words: string[] = [];
    for (let count = 0; count < 200_000; count++) {
      let word = '';
      for (let piece = 1 + Math.floor(random() * 5); piece > 0; piece--) word += PIECES[Math.floor(random() * PIECES.length)];
      words.push(word);
    }
    expect(disagreements(words)).toEqual([]);
  });
  it("is the English analyzer's stemmer (other languages keep Snowball's)", () => {
    expect(createAnalyzer()('The communities opened generously')).toEqual(['communiti', 'open', 'generous']);
    expect(createAnalyzer({ language: 'german' })('Häuser')).toEqual([snowball.newStemmer('german').stem('häuser')]);
  });
});
