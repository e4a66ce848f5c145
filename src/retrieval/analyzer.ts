// Analyzers: the tokenizer plus optional stop-word removal and Snowball stemming, per language.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type snowballStemmers from 'snowball-stemmers';
import stopwords from 'stopword';
import { MnemoError } from '../core/errors.js';
import type { Analyzer } from './corpus-index.js';
import { stemEnglish } from './english-stemmer.js';
import { ENGLISH_STOP_WORDS } from './english-stop-words.js';
import { tokenize } from './tokenize.js';

/** Languages with both a Snowball stemmer and a stop-word list: the Snowball name and the stopword list code. */
export const ANALYZER_LANGUAGES = {
  english: 'eng',
  french: 'fra',
  german: 'deu',
  spanish: 'spa',
  italian: 'ita',
  portuguese: 'por',
  dutch: 'nld',
  russian: 'rus',
  swedish: 'swe',
  danish: 'dan',
  finnish: 'fin',
  hungarian: 'hun',
  romanian: 'ron',
  turkish: 'tur',
} as const;

export type AnalyzerLanguage = keyof typeof ANALYZER_LANGUAGES;

/** How text becomes index terms. */
export interface AnalyzerOptions {
  /** `none` keeps the tokenizer's words as they are; a language enables its stemmer and stop words. */
  language?: AnalyzerLanguage | 'none';
  /** Reduce words to their stem ("opens" and "opened" both become "open"); default true with a language. */
  stem?: boolean;
  /**
   * Drop stop words: `true` (default with a language) drops the language's list ("the", "was", "what"; English
   * uses Snowball's list of function words, see ENGLISH_STOP_WORDS), `false` keeps every word, and a list of
   * words drops exactly those (lowercased tokens, as `tokenize` makes them).
   */
  stopWords?: boolean | readonly string[];
}

/**
 * The revision of what analyzers make of a text (the tokenizer, the stemmers, the stop lists): part of every
 * analyzer's identity, so a persisted index made before a change is never used after it. Bump it with any change
 * that can change a term.
 */
const ANALYZER_REVISION = 1;

/** The default analyzer settings of narrative search: English stems and stop words (see docs/retrieval-quality.md). */
export const DEFAULT_ANALYZER: Required<AnalyzerOptions> = { language: 'english', stem: true, stopWords: true };

function stopWordsOf(language: AnalyzerLanguage, stopWords: boolean | readonly string[]): ReadonlySet<string> {
  if (Array.isArray(stopWords)) {
    if (!stopWords.every((word) => typeof word === 'string')) {
      throw new MnemoError('INVALID_INPUT', 'stopWords: expected true, false or a list of words (strings), got a list holding something else.', { details: { field: 'stopWords' } });
    }
    return new Set(stopWords.map((word) => word.normalize('NFC').toLowerCase()));
  }
  if (stopWords === false) return new Set();
  return language === 'english' ? ENGLISH_STOP_WORDS : new Set<string>(stopwords[ANALYZER_LANGUAGES[language]] ?? []);
}

/**
 * The stemmer of a language: English's own (english-stemmer.ts, the same stems as Snowball's, several times
 * faster), any other language's from snowball-stemmers, loaded when first asked for (868 KB of script that an
 * English analyzer never needs).
 */
function stemmerOf(language: AnalyzerLanguage): (word: string) => string {
  if (language === 'english') return stemEnglish;
  const snowball = createRequire(import.meta.url)('snowball-stemmers') as typeof snowballStemmers;
  const stemmer = snowball.newStemmer(language);
  return (word) => stemmer.stem(word);
}

/**
 * Builds an analyzer: Unicode tokens, then optionally without stop words, then optionally stemmed. Terms are
 * cached per analyzer, so repeated words cost a map lookup. Names and non-Latin words pass through whole when
 * the stemmer has nothing to strip ("Kaël" stays "kaël").
 *
 * @example
 * ```ts
 * createAnalyzer({ language: 'english' })('What opened the doors?'); // ['open', 'door']
 * createAnalyzer({ language: 'none' })('What opened the doors?');    // ['what', 'opened', 'the', 'doors']
 * ```
 */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const language = options.language ?? DEFAULT_ANALYZER.language;
  if (language === 'none') return tokenize;
  const code = ANALYZER_LANGUAGES[language];
  if (code === undefined) {
    throw new MnemoError('INVALID_INPUT', `language: expected "none" or one of ${Object.keys(ANALYZER_LANGUAGES).join(', ')}, got ${JSON.stringify(language)}.`, { details: { field: 'language' } });
  }
  const stop = stopWordsOf(language, options.stopWords ?? true);
  const stem = options.stem ?? true ? stemmerOf(language) : null;
  // token -> its term, or null for a stop word: one lookup per token once a word has been seen.
  const cache = new Map<string, string | null>();
  const termOf = (token: string): string | null => {
    let term = cache.get(token);
    if (term === undefined) {
      term = stop.has(token) ? null : stem === null ? token : stem(token);
      if (cache.size < 200_000) cache.set(token, term);
    }
    return term;
  };
  const analyze = (text: string): string[] => {
    const terms: string[] = [];
    for (const token of tokenize(text)) {
      const term = termOf(token);
      if (term !== null) terms.push(term);
    }
    return terms;
  };
  const stopIdentity = Array.isArray(options.stopWords)
    ? `list-${createHash('sha256').update([...stop].sort().join('\n')).digest('hex').slice(0, 16)}`
    : String(options.stopWords ?? true);
  const identity = `${language};stem=${stem !== null};stop=${stopIdentity};revision=${ANALYZER_REVISION}`;
  return Object.assign(analyze, { termOf, identity });
}
