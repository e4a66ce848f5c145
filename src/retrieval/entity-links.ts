// Entity links: the proper nouns of the fused head's texts, searched again with BM25 and fused in as a further arm.
import { MnemoError } from '../core/errors.js';
import type { Bm25Corpus, Bm25Index } from './bm25.js';

/** Entity link settings (see `QueryOptions.entityLinks`). */
export interface EntityLinkOptions {
  /** The link arm's weight in z-score fusion. */
  weight: number;
  /** How many of the first fused candidates' texts give proper nouns. */
  head: number;
  /** At most this many link terms, the rarest first. */
  terms: number;
}

/** The head when a caller gives only a weight. */
export const ENTITY_LINK_HEAD = 5;
/** The link terms when a caller gives only a weight. */
export const ENTITY_LINK_TERMS = 5;
/** The longest head entity links may read (its texts are loaded). */
export const MAX_ENTITY_LINK_HEAD = 50;
/** The most link terms a query may search. */
export const MAX_ENTITY_LINK_TERMS = 50;
/** A proper noun held by more than this share of the documents links nothing (a month in every dated turn). */
export const ENTITY_LINK_MAX_SHARE = 0.05;

/**
 * Checks entity link settings as a caller gives them (`{ weight, head?, terms? }`; null: off; undefined:
 * `defaults`), filling the head (5) and terms (5) left out; a clear INVALID_INPUT for anything else. Weight 0 is off.
 *
 * @example
 * ```ts
 * optionalEntityLinks({ weight: 0.3 }, null); // { weight: 0.3, head: 5, terms: 5 }
 * ```
 */
export function optionalEntityLinks(value: unknown, defaults: EntityLinkOptions | null): EntityLinkOptions | undefined {
  if (value === null) return undefined;
  if (value === undefined) return defaults ?? undefined;
  const given = value as Partial<EntityLinkOptions>;
  const head = given.head ?? ENTITY_LINK_HEAD;
  const terms = given.terms ?? ENTITY_LINK_TERMS;
  const weight = given.weight;
  const count = (number: unknown, most: number): boolean => typeof number === 'number' && Number.isSafeInteger(number) && number >= 1 && number <= most;
  if (typeof value !== 'object' || typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || !count(head, MAX_ENTITY_LINK_HEAD) || !count(terms, MAX_ENTITY_LINK_TERMS)) {
    throw new MnemoError(
      'INVALID_INPUT',
      `entityLinks: expected { weight: a number >= 0, head?: an integer from 1 to ${MAX_ENTITY_LINK_HEAD}, terms?: an integer from 1 to ${MAX_ENTITY_LINK_TERMS} } or null, got ${JSON.stringify(value)}. Pass null to turn it off.`,
      { details: { field: 'entityLinks' } },
    );
  }
  return weight === 0 ? undefined : { weight, head, terms };
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/** What ends a sentence or opens a quotation, a bracket or a list: the word after it is capitalised anyway. */
const OPENERS = new Set(['.', '!', '?', '"', '“', '‘', '(', '[', ':', ';', '…', '-', '–', '—', '*', '\n']);

/**
 * The words of a text written with a capital inside a sentence (not its first word, not after a quotation mark,
 * a bracket or a colon), two letters or longer: names of people, places, works and brands, in order, each once
 * (as written). A heuristic for languages that capitalise names; a text without capitals gives none.
 *
 * @example
 * ```ts
 * properNouns('Yesterday we drove to Rome with Ana. Then we ate.'); // ['Rome', 'Ana']
 * ```
 */
export function properNouns(text: string): string[] {
  const found = new Set<string>();
  const words = new RegExp(WORD.source, 'gu');
  const normal = text.normalize('NFC');
  for (let match = words.exec(normal); match !== null; match = words.exec(normal)) {
    const word = match[0];
    if (word.length < 2 || !/^\p{Lu}/u.test(word) || /^\p{N}/u.test(word)) continue;
    let before = match.index - 1;
    while (before >= 0 && /\s/u.test(normal[before] as string) && normal[before] !== '\n') before -= 1;
    if (before < 0 || OPENERS.has(normal[before] as string)) continue;
    found.add(word);
  }
  return [...found];
}

/**
 * The link terms of a fused head: each proper noun of the head's texts analyzed to the index's terms, leaving
 * out the terms the query already searches, those in `ignore` (a speaker's name links every turn they are
 * named in), those no document holds or more than `ENTITY_LINK_MAX_SHARE` of the documents (and more than 2) hold; the `most` rarest (highest
 * idf, ties in the order found).
 *
 * @example
 * ```ts
 * const bm25 = buildBm25(['we drove to rome', 'rome was hot', 'a cold night', ...]);
 * linkTerms(bm25, ['Rome'], (word) => [word.toLowerCase()], ['drove'], new Set(), 5); // ['rome']
 * ```
 */
export function linkTerms(
  bm25: Bm25Index,
  nouns: readonly string[],
  analyze: (word: string) => string[],
  queryTerms: readonly string[],
  ignore: ReadonlySet<string>,
  most: number,
  corpus?: Bm25Corpus,
): string[] {
  const searched = new Set(queryTerms);
  const documents = corpus === undefined ? bm25.size : corpus.count;
  const absent = Math.log(1 + (documents + 0.5) / 0.5);
  // The idf of a term held by the share's limit: anything commoner is left out.
  const common = Math.max(2, ENTITY_LINK_MAX_SHARE * documents);
  const floor = Math.log(1 + (documents - common + 0.5) / (common + 0.5));
  const candidates: { term: string; idf: number; order: number }[] = [];
  const seen = new Set<string>();
  for (const noun of nouns) {
    for (const term of analyze(noun)) {
      if (seen.has(term) || searched.has(term) || ignore.has(term)) continue;
      seen.add(term);
      const idf = bm25.idf(term, corpus);
      if (!(idf < absent) || idf < floor) continue;
      candidates.push({ term, idf, order: candidates.length });
    }
  }
  return candidates
    .sort((a, b) => b.idf - a.idf || a.order - b.order)
    .slice(0, most)
    .map(({ term }) => term);
}
