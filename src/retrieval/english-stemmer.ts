// The Snowball English (Porter2) stemmer, written out for speed: the same stems as snowball-stemmers' English.
//
// The algorithm is Snowball's `english.sbl` (snowballstem.org, BSD licence), the revision snowball-stemmers 0.6.0
// ships (exceptions 'gener', 'commun', 'arsen'; Step 1c's "not the first letter"). It is implemented here from its
// definition on plain strings: that package's generated code reads every field through a getter, and one stem
// there costs 15-30 µs, which an ingest of 20,000 distinct words paid as 0.6 s of CPU. test/english-stemmer.test.ts
// compares the two on the word table's 100,000 words and on seeded random words made of the suffixes.

/** Vowels of the algorithm (`v`): a e i o u y, lowercase only ('Y' is a consonant 'y'). */
const isVowel = (code: number) => code === 97 || code === 101 || code === 105 || code === 111 || code === 117 || code === 121;

/** `v_WXY`: the vowels, 'w', 'x' and 'Y'. */
const isVowelWXY = (code: number) => isVowel(code) || code === 119 || code === 120 || code === 89;

/** `valid_LI`: the letters an -li ending may follow to be removed (c d e g h k m n r t). */
const isValidLi = (code: number) => code === 99 || code === 100 || code === 101 || code === 103 || code === 104 || code === 107 || code === 109 || code === 110 || code === 114 || code === 116;

/** Words stemmed as a whole (exception1): the stem, the word itself for the invariant ones. */
const EXCEPTIONS1 = new Map<string, string>([
  ['skis', 'ski'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['idly', 'idl'],
  ['gently', 'gentl'],
  ['ugly', 'ugli'],
  ['early', 'earli'],
  ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', 'sky'],
  ['news', 'news'],
  ['howe', 'howe'],
  ['atlas', 'atlas'],
  ['cosmos', 'cosmos'],
  ['bias', 'bias'],
  ['andes', 'andes'],
]);

/** Words left as they are after Step 1a (exception2). */
const EXCEPTIONS2 = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);

/** Prefixes whose end is R1's start (instead of the first non-vowel after a vowel). */
const R1_PREFIXES = ['gener', 'commun', 'arsen'];

/**
 * Step 2's endings, longest first, with their replacements; `li` and `ogi` have conditions (see step2). Every
 * ending here that is a suffix of a longer one comes after it, so the first that matches is the longest.
 */
const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'],
  ['ization', 'ize'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['iveness', 'ive'],
  ['tional', 'tion'],
  ['biliti', 'ble'],
  ['lessli', 'less'],
  ['entli', 'ent'],
  ['ation', 'ate'],
  ['alism', 'al'],
  ['aliti', 'al'],
  ['ousli', 'ous'],
  ['iviti', 'ive'],
  ['fulli', 'ful'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['abli', 'able'],
  ['izer', 'ize'],
  ['ator', 'ate'],
  ['alli', 'al'],
  ['bli', 'ble'],
  ['ogi', 'og'],
  ['li', ''],
];

/** Step 3's endings, longest first; `ative` needs R2 as well. */
const STEP3: readonly (readonly [string, string])[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['alize', 'al'],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ative', ''],
  ['ical', 'ic'],
  ['ness', ''],
  ['ful', ''],
];

/** Step 4's endings, longest first (deleted in R2; `ion` only after s or t). */
const STEP4 = ['ement', 'ment', 'able', 'ible', 'ance', 'ence', 'ate', 'iti', 'ion', 'ism', 'ive', 'ize', 'ous', 'ant', 'ent', 'al', 'er', 'ic'];

/** The word after the first non-vowel that follows a vowel at or after `from` (the algorithm's R1 and R2 starts). */
function regionAfter(word: string, from: number): number {
  let index = from;
  while (index < word.length && !isVowel(word.charCodeAt(index))) index++;
  while (index < word.length && isVowel(word.charCodeAt(index))) index++;
  return index < word.length ? index + 1 : word.length;
}

/**
 * A short syllable ending at `end` (exclusive): non-v_WXY after a vowel after a non-vowel, or, at the word's
 * start, a non-vowel after a vowel.
 */
function shortSyllableAt(word: string, end: number): boolean {
  if (end >= 3 && !isVowelWXY(word.charCodeAt(end - 1)) && isVowel(word.charCodeAt(end - 2)) && !isVowel(word.charCodeAt(end - 3))) return true;
  return end === 2 && !isVowel(word.charCodeAt(1)) && isVowel(word.charCodeAt(0));
}

/** True when a vowel is among word[0..end). */
function hasVowelBefore(word: string, end: number): boolean {
  for (let index = 0; index < end; index++) if (isVowel(word.charCodeAt(index))) return true;
  return false;
}

/** Step 1a: possessives, plurals (-sses, -ied/-ies, -s). */
function step1a(word: string): string {
  if (word.endsWith("'s'")) word = word.slice(0, -3);
  else if (word.endsWith("'s")) word = word.slice(0, -2);
  else if (word.endsWith("'")) word = word.slice(0, -1);
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ied') || word.endsWith('ies')) return word.length - 3 >= 2 ? word.slice(0, -2) : word.slice(0, -1);
  if (word.endsWith('us') || word.endsWith('ss')) return word;
  if (word.endsWith('s')) return hasVowelBefore(word, word.length - 2) ? word.slice(0, -1) : word;
  return word;
}

/** Step 1b: -eed(ly) to -ee in R1; -ed, -edly, -ing, -ingly removed after a vowel, then the end tidied. */
function step1b(word: string, p1: number): string {
  const eed = word.endsWith('eedly') ? 5 : word.endsWith('eed') ? 3 : 0;
  if (eed > 0) return word.length - eed >= p1 ? word.slice(0, word.length - eed) + 'ee' : word;
  const ending = word.endsWith('ingly') ? 5 : word.endsWith('edly') ? 4 : word.endsWith('ing') ? 3 : word.endsWith('ed') ? 2 : 0;
  if (ending === 0 || !hasVowelBefore(word, word.length - ending)) return word;
  const stem = word.slice(0, word.length - ending);
  const last = stem.charCodeAt(stem.length - 1);
  const before = stem.charCodeAt(stem.length - 2);
  if (stem.length >= 2) {
    const pair = stem.slice(-2);
    if (pair === 'at' || pair === 'bl' || pair === 'iz') return stem + 'e';
    // bb dd ff gg mm nn pp rr tt: the last letter goes.
    if (last === before && (last === 98 || last === 100 || last === 102 || last === 103 || last === 109 || last === 110 || last === 112 || last === 114 || last === 116)) return stem.slice(0, -1);
  }
  return stem.length === p1 && shortSyllableAt(stem, stem.length) ? stem + 'e' : stem;
}

/** Step 1c: a final y or Y after a non-vowel that is not the first letter becomes i. */
function step1c(word: string): string {
  const length = word.length;
  const last = word.charCodeAt(length - 1);
  if ((last === 121 || last === 89) && length > 2 && !isVowel(word.charCodeAt(length - 2))) return word.slice(0, -1) + 'i';
  return word;
}

/** Step 2: derivational endings in R1. */
function step2(word: string, p1: number): string {
  for (const [ending, replacement] of STEP2) {
    if (!word.endsWith(ending)) continue;
    const start = word.length - ending.length;
    if (start < p1) return word;
    if (ending === 'ogi') return start >= 1 && word.charCodeAt(start - 1) === 108 ? word.slice(0, start) + replacement : word;
    if (ending === 'li') return start >= 1 && isValidLi(word.charCodeAt(start - 1)) ? word.slice(0, start) : word;
    return word.slice(0, start) + replacement;
  }
  return word;
}

/** Step 3: more derivational endings in R1 (-ative in R2). */
function step3(word: string, p1: number, p2: number): string {
  for (const [ending, replacement] of STEP3) {
    if (!word.endsWith(ending)) continue;
    const start = word.length - ending.length;
    if (start < p1 || (ending === 'ative' && start < p2)) return word;
    return word.slice(0, start) + replacement;
  }
  return word;
}

/** Step 4: endings deleted in R2. */
function step4(word: string, p2: number): string {
  for (const ending of STEP4) {
    if (!word.endsWith(ending)) continue;
    const start = word.length - ending.length;
    if (start < p2) return word;
    if (ending === 'ion') {
      const before = start >= 1 ? word.charCodeAt(start - 1) : 0;
      return before === 115 || before === 116 ? word.slice(0, start) : word;
    }
    return word.slice(0, start);
  }
  return word;
}

/** Step 5: a final e (in R2, or in R1 after no short syllable) and a final ll in R2. */
function step5(word: string, p1: number, p2: number): string {
  const start = word.length - 1;
  const last = word.charCodeAt(start);
  if (last === 101) return start >= p2 || (start >= p1 && !shortSyllableAt(word, start)) ? word.slice(0, start) : word;
  if (last === 108) return start >= p2 && start >= 1 && word.charCodeAt(start - 1) === 108 ? word.slice(0, start) : word;
  return word;
}

/**
 * Stems an English word (lowercased, as `tokenize` makes tokens) as Snowball's English stemmer does.
 *
 * @example
 * ```ts
 * stemEnglish('opened'); // 'open'
 * stemEnglish('generously'); // 'generous'
 * stemEnglish('kaël'); // 'kaël'
 * ```
 */
export function stemEnglish(input: string): string {
  const exception = EXCEPTIONS1.get(input);
  if (exception !== undefined) return exception;
  if (input.length < 3) return input;
  let word = input.charCodeAt(0) === 39 ? input.slice(1) : input;
  // Prelude: a 'y' at the start or after a vowel is a consonant, marked 'Y' until the end.
  let marked = false;
  if (word.includes('y')) {
    let made = '';
    let previous = 0;
    for (let index = 0; index < word.length; index++) {
      let code = word.charCodeAt(index);
      if (code === 121 && (index === 0 || isVowel(previous))) {
        code = 89;
        marked = true;
      }
      made += String.fromCharCode(code);
      previous = code;
    }
    word = made;
  }
  const prefix = R1_PREFIXES.find((candidate) => word.startsWith(candidate));
  const p1 = prefix !== undefined ? prefix.length : regionAfter(word, 0);
  const p2 = regionAfter(word, p1);
  word = step1a(word);
  if (!EXCEPTIONS2.has(word)) {
    word = step1b(word, p1);
    word = step1c(word);
    word = step2(word, p1);
    word = step3(word, p1, p2);
    word = step4(word, p2);
    word = step5(word, p1, p2);
  }
  return marked ? word.replaceAll('Y', 'y') : word;
}
