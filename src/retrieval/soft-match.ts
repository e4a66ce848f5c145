// Soft word matching: the head of a fused ranking rescored by how well its words align with the query's, word by word, in static word vectors.
import { MnemoError } from '../core/errors.js';
import type { CorpusIndex, SlotFilter } from './corpus-index.js';
import { tokenize } from './tokenize.js';

/** Soft word matching settings (see `QueryOptions.softMatch`). */
export interface SoftMatchOptions {
  /** Weight of the signal (its z-score over the head), added to the fused score. */
  weight: number;
  /** A document is scored by the best alignment among itself and the `reach` live documents on each side of it. */
  reach: number;
  /** How many of the fused ranking's first documents are rescored. */
  head: number;
}

/** The widest window soft matching may align (each head document aligns up to 2 x reach + 1 documents). */
export const MAX_SOFT_MATCH_REACH = 5;
/** The longest head soft matching may rescore (its cost grows with head x (2 x reach + 1) documents). */
export const MAX_SOFT_MATCH_HEAD = 200;
/** The window and head when a caller gives only a weight. */
export const SOFT_MATCH_REACH = 2;
export const SOFT_MATCH_HEAD = 50;
/** The least a query word weighs (its idf), so a word every document has still counts a little. */
const MIN_WORD_WEIGHT = 0.1;

/**
 * Checks soft matching settings as a caller gives them (`{ weight, reach?, head? }`; null: off; undefined: the
 * corpus's `defaults`), filling reach and head left out (2 and 50); a clear INVALID_INPUT for anything else.
 * Weight 0 is off.
 *
 * @example
 * ```ts
 * optionalSoftMatch({ weight: 1 }, null); // { weight: 1, reach: 2, head: 50 }
 * ```
 */
export function optionalSoftMatch(value: unknown, defaults: SoftMatchOptions | null): SoftMatchOptions | undefined {
  if (value === null) return undefined;
  if (value === undefined) return defaults ?? undefined;
  const given = value as Partial<SoftMatchOptions>;
  const reach = given.reach ?? SOFT_MATCH_REACH;
  const head = given.head ?? SOFT_MATCH_HEAD;
  const weight = given.weight;
  if (typeof value !== 'object' || typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || typeof reach !== 'number' || !Number.isSafeInteger(reach) || reach < 0 || reach > MAX_SOFT_MATCH_REACH || typeof head !== 'number' || !Number.isSafeInteger(head) || head < 1 || head > MAX_SOFT_MATCH_HEAD) {
    throw new MnemoError(
      'INVALID_INPUT',
      `softMatch: expected { weight: a number >= 0, reach?: an integer from 0 to ${MAX_SOFT_MATCH_REACH}, head?: an integer from 1 to ${MAX_SOFT_MATCH_HEAD} } or null, got ${JSON.stringify(value)}. Pass null to turn it off.`,
      { details: { field: 'softMatch' } },
    );
  }
  return weight === 0 ? undefined : { weight, reach, head };
}

/** One query word: its table row and its weight (idf in the corpus). */
interface QueryWord {
  row: number;
  weight: number;
}

/**
 * The soft matching signal of the head of a ranking: for each document, the idf-weighted mean over the query's
 * content words (those naming a speaker the query names left to the speaker signal) of the best cosine between the
 * word's static vector and any of the document's words' (0 at worst); a head document is scored by the best of
 * that among itself and the `reach` accepted live documents on each side (a short reply is found through what it
 * answers); the scores are z-scored over the head and multiplied by the weight. Query words whose term is in
 * `scaffold` (question scaffolding) are left out. Null when the index keeps no word
 * rows (an embedder other than the static one) or no query word has a vector. Deterministic: the same index, query
 * and head give the same values.
 *
 * @example
 * ```ts
 * const lift = softMatchScores(index, 'what did Rowan bake?', headSlots, { weight: 1, reach: 2, head: 50 }, undefined);
 * // lift?.[i]: what to add to the fused score of headSlots[i]
 * ```
 */
export function softMatchScores(
  index: CorpusIndex,
  queryText: string,
  head: readonly number[],
  options: SoftMatchOptions,
  accept: SlotFilter | undefined,
  scaffold: ReadonlySet<string> = NO_TERMS,
): Float64Array | null {
  const alignments = softAlignments(index, queryText, head, options.reach, accept, scaffold);
  return alignments === null ? null : standardisedLifts(alignments, alignments.length, options.weight);
}

/**
 * The raw soft matching alignment of each document of `head` (before the z-score): the idf-weighted mean over the
 * query's content words of the best cosine with any word of the document, the best of that among the document and
 * the `reach` accepted live documents on each side. A document's value depends on it, its window and the query
 * only, not on the rest of the head, so the alignments of a longer head begin with those of its prefix. Null as in
 * `softMatchScores`.
 *
 * @example
 * ```ts
 * const aligned = softAlignments(index, 'what did Rowan bake?', headSlots, 2, undefined);
 * // aligned?.[i]: between 0 and 1, higher when headSlots[i]'s words sit near the query's
 * ```
 */
export function softAlignments(
  index: CorpusIndex,
  queryText: string,
  head: readonly number[],
  reach: number,
  accept: SlotFilter | undefined,
  scaffold: ReadonlySet<string> = NO_TERMS,
): Float64Array | null {
  const rows = index.wordRows;
  if (rows === null || head.length === 0) return null;
  const query = queryWords(index, queryText, scaffold);
  if (query.length === 0) return null;
  const windows = head.map((slot) => windowOf(index, slot, reach, accept));
  const total = query.reduce((sum, word) => sum + word.weight, 0);
  const table = rows.table;
  // The windows' distinct slots (they overlap), in first-seen order, each with its place in `slots`.
  const placeOf = new Map<number, number>();
  const slots: number[] = [];
  for (const window of windows) {
    for (const slot of window) {
      if (placeOf.has(slot)) continue;
      placeOf.set(slot, slots.length);
      slots.push(slot);
    }
  }
  // Each distinct word of the windows is noted once (its place kept for each of its slots) and its cosines with
  // the query's words computed together; nothing here awaits, so the table's shared notes are this query's.
  table.prepare(query.map((word) => word.row));
  const ends = new Int32Array(slots.length);
  let occurrences = 0;
  for (let at = 0; at < slots.length; at++) ends[at] = occurrences += rows.rowsOf(slots[at] as number).length;
  const places = new Int32Array(occurrences);
  let next = 0;
  for (const slot of slots) for (const row of rows.rowsOf(slot)) places[next++] = table.note(row);
  const cosines = table.compute();
  const words = query.length;
  const weights = Float64Array.from(query, (word) => word.weight);
  const aligned = new Float64Array(slots.length);
  const best = new Float64Array(words);
  let from = 0;
  for (let at = 0; at < slots.length; at++) {
    best.fill(0);
    const end = ends[at] as number;
    for (; from < end; from++) {
      const base = (places[from] as number) * words;
      for (let word = 0; word < words; word++) if ((cosines[base + word] as number) > (best[word] as number)) best[word] = cosines[base + word] as number;
    }
    let value = 0;
    for (let word = 0; word < words; word++) value += (weights[word] as number) * (best[word] as number);
    aligned[at] = value / total;
  }
  return Float64Array.from(windows, (window) => {
    let top = 0;
    for (const slot of window) top = Math.max(top, aligned[placeOf.get(slot) as number] as number);
    return top;
  });
}

/**
 * The first `count` alignments z-scored over themselves (their mean and standard deviation; a deviation of 0 counts
 * as 1) and multiplied by `weight`: what soft matching adds to each of those documents.
 *
 * @example
 * ```ts
 * standardisedLifts(Float64Array.of(0.2, 0.4, 0.9), 2, 1); // [-1, 1] (the third is past the count)
 * ```
 */
export function standardisedLifts(alignments: Float64Array, count: number, weight: number): Float64Array {
  const scores = alignments.length === count ? alignments : alignments.subarray(0, count);
  let mean = 0;
  for (const score of scores) mean += score;
  mean /= scores.length;
  let variance = 0;
  for (const score of scores) variance += (score - mean) ** 2;
  const deviation = Math.sqrt(variance / scores.length) || 1;
  return scores.map((score) => (weight * (score - mean)) / deviation);
}

const NO_TERMS: ReadonlySet<string> = new Set();

/** The query's distinct content words with a vector, speaker names and scaffolding terms left out, each weighted by its idf. */
function queryWords(index: CorpusIndex, queryText: string, scaffold: ReadonlySet<string>): QueryWord[] {
  const rows = index.wordRows;
  if (rows === null) return [];
  const tokens = new Set(tokenize(queryText));
  const speakerWords = index.context.speakerWordsIn(tokens);
  const words: QueryWord[] = [];
  const seen = new Set<number>();
  for (const token of tokens) {
    if (speakerWords.has(token) || !rows.isContent(token)) continue;
    const row = rows.table.rowOf(token);
    const term = index.analyze(token)[0];
    if (row < 0 || term === undefined || seen.has(row) || scaffold.has(term)) continue;
    seen.add(row);
    words.push({ row, weight: Math.max(index.bm25.idf(term), MIN_WORD_WEIGHT) });
  }
  return words;
}

/** The slot and the accepted live slots within `reach` places of it, nearest first. */
function windowOf(index: CorpusIndex, slot: number, reach: number, accept: SlotFilter | undefined): number[] {
  const window = [slot];
  for (const direction of [-1, 1] as const) {
    let current: number | null = slot;
    for (let step = 0; step < reach; step++) {
      current = index.neighbourOf(current, direction);
      if (current === null) break;
      if (accept === undefined || accept(current)) window.push(current);
    }
  }
  return window;
}
