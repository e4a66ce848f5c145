// The lexical arm: an incremental Okapi BM25 index whose statistics are those of its own corpus (one save).
import { runSteps, STEP_ROWS } from '../core/time-slice.js';
import type { Steps } from '../core/time-slice.js';
import { BestFirstBlocks } from './best-first.js';
import { addBlockBounds, addEveryBlockBounds, BLOCK_SHIFT, commonTermBoundsSteps, HEAD_SEARCH_SLOTS, STRETCH_SHIFT, termBlockBounds } from './block-bounds.js';
import type { ScoredBlocks, TermBlockBounds } from './block-bounds.js';
import { grow, reserve } from './grow.js';
import { readWidened, writeNarrowest } from './narrow-integers.js';
import { PersistedBounds, termsToPersist, writeBoundsSteps } from './persisted-bounds.js';
import { decodePostingGaps, documentPostingSectionsSteps, PostingGapsEncoder } from './posting-gaps.js';
import type { PostingSections } from './posting-gaps.js';
import type { ScoreSink } from './score-statistics.js';
import { SnapshotRejected } from './snapshot-format.js';
import type { FileBytes, LazySection, SnapshotReader, SnapshotWriter } from './snapshot-format.js';
import { TopK } from './top-k.js';
import { tokenize } from './tokenize.js';

/** BM25 parameters: k1 (term-frequency saturation) and b (length normalisation). */
export interface Bm25Parameters {
  k1: number;
  b: number;
}

/**
 * Shown a search's scores before they are cleared: its results, every scored slot's score (`scores[slot]`, zero for
 * none; `touched` lists the first `count` scored slots, accepted or not) and the query's term weights. The arrays
 * are the index's scratch: read them during the call only. After `searchHead`, `blocks` says which slots were
 * scored (a slot of a skipped block scores 0 in `scores` until `blocks.ensure` scores it).
 */
export type ScoresInspector = (
  results: readonly { slot: number; score: number }[],
  dense: { readonly scores: Float64Array; readonly touched: Int32Array; readonly count: number },
  weights: ReadonlyMap<string, number> | undefined,
  blocks?: ScoredBlocks,
) => void;

/** A query term of `searchHead`: its index id, multiplier (idf x weight), postings and block bounds. */
interface HeadTerm {
  id: number;
  multiplier: number;
  list: Postings;
  bounds: TermBlockBounds;
}

/** The common terms' block bounds kept per index, in bytes (at 1M chunks, about 4 x 62,500 bytes a term: 134 terms). */
const BOUND_CACHE_BYTES = 32 * 2 ** 20;
/**
 * The rare terms' block bounds kept per index, in bytes (a rare term's cost its postings and its stretch starts):
 * the common terms' budget. At 1M chunks the 200 queries of `bench:peers` meet 1,195 rare terms, whose bounds hold
 * 30.3 MB; with 8 MiB (before) the lexical mode, run after the hybrid one, made 930 of them again (2.0M postings).
 */
const RARE_BOUND_CACHE_BYTES = 32 * 2 ** 20;

/**
 * Which common terms' block bounds `writeState` persists with the index: those of a save of `fromSlots` slots or
 * more (the head search's `HEAD_SEARCH_SLOTS`: a smaller save never reads them), no removed slot, for the window
 * reach `reach` (the narrative default's), the terms with the most postings first, up to `budgetBytes` and never
 * more than the postings' own bytes in the file (gaps and frequencies). At 100k chunks of the synthetic corpus:
 * its 125 common terms, 3.0 MB (the postings 3.8); at 1M: the same 125, 30.3 MB (the postings 38.4).
 */
export interface PersistedBoundsOptions {
  reach: number;
  fromSlots: number;
  budgetBytes: number;
}

/**
 * The bounds `writeState` persists by default: the kept bounds' budget, from `HEAD_SEARCH_SLOTS` on, for reach 2:
 * `DEFAULT_WINDOW_SUM.reach` (not imported: retrieval-defaults depends on this module; test/persisted-bounds.test.ts
 * checks that they agree).
 */
export const PERSISTED_BOUNDS: PersistedBoundsOptions = { reach: 2, fromSlots: HEAD_SEARCH_SLOTS, budgetBytes: BOUND_CACHE_BYTES };

/** Loops in steps over terms pause every 1,024 terms, over postings every 65,536 postings. */
const STEP_TERMS = 1023;
const STEP_POSTINGS = 65_535;

/** Okapi defaults, as Lucene and the LoCoMo baseline use them. */
export const BM25_DEFAULTS: Bm25Parameters = { k1: 1.2, b: 0.75 };

/**
 * The documents a search's statistics (N, the average length, each term's document frequency) are taken from:
 * those a filter keeps (`Bm25Index.corpusWithin`), so the documents it leaves out change no score.
 */
export interface Bm25Corpus {
  /** The slots that count: 1 for a live slot the filter keeps, 0 otherwise. */
  readonly mask: Uint8Array;
  /** True for a slot that counts. */
  readonly within: (slot: number) => boolean;
  /** N: live documents within. */
  readonly count: number;
  /** Their average length in tokens. */
  readonly averageLength: number;
  /** How many of them hold the term with this index id (counted on first ask, then kept). */
  frequency(id: number): number;
}

/**
 * Term frequencies: u16 (capped at 65,535) in memory; a persisted copy's are u8 when the save's largest is below
 * 256, widened to u16 at their first write.
 */
type Frequencies = Uint16Array | Uint8Array;

interface Postings {
  slots: Int32Array;
  frequencies: Frequencies;
  length: number;
}

const EMPTY_SLOTS = new Int32Array(0);
const EMPTY_FREQUENCIES = new Uint16Array(0);
/** Above this many pending documents, postings are appended by a counting sort (see `post`). */
const BULK_POSTING = 64;

/** Term counts below this are persisted with u16 term ids per document (i32 from it). */
const NARROW_TERM_IDS = 65_536;
/** Frequencies are persisted as u8 when every one is below this (u16 otherwise). */
const NARROW_FREQUENCIES = 256;

/** `frequencies` as u16, for a write: a restored u8 copy is widened (the same values), a u16 one returned as it is. */
function writableFrequencies(frequencies: Frequencies): Uint16Array {
  return frequencies instanceof Uint8Array ? Uint16Array.from(frequencies) : frequencies;
}

/**
 * An inverted index scored with Okapi BM25, idf = ln(1 + (N - df + 0.5) / (df + 0.5)) (never negative).
 * Documents are numbered by slot in insertion order; removing one updates N, the average length and every
 * document frequency at once, so scores always reflect the live corpus. Building is the expensive part
 * (tokenising everything); keep an index while its corpus is unchanged and score many queries against it.
 *
 * @example
 * ```ts
 * const index = new Bm25Index();
 * index.add('The dragon sleeps'); index.add('A dragon wakes, a dragon roars');
 * index.search(['dragon', 'roars'], 10); // [{ slot: 1, score: ... }, { slot: 0, score: ... }]
 * ```
 */
export class Bm25Index {
  readonly parameters: Bm25Parameters;
  private readonly termIds = new Map<string, number>();
  private postings: (Postings | undefined)[] = [];
  /** The postings of a persisted copy, flat: a term's list is made from them when first read (see `list`). */
  private restored: { ends: Int32Array; slots: Int32Array; frequencies: Frequencies } | null = null;
  /**
   * The restored postings not read whole yet: a term's list is read (and checked) from the file when first used, its
   * slots decoded from their gaps (`decodePostingGaps`, bytes [byteEnds[id - 1], byteEnds[id]) of `gaps`).
   */
  private lazyPostings: { gaps: FileBytes; byteEnds: Int32Array; frequencies: LazySection<Frequencies>; undecoded: number } | null = null;
  /** A persisted copy's per-document terms not read whole yet: a document's are read when first used. */
  private lazyTerms: { terms: LazySection<Int32Array<ArrayBuffer>> | LazySection<Uint16Array<ArrayBuffer>>; frequencies: LazySection<Frequencies> } | null = null;
  private termNames: string[] = [];
  private documentFrequency = new Int32Array(64);
  private lengths = new Int32Array(64);
  private alive = new Uint8Array(64);
  /** Each document's term ids: u16 while the index has fewer than 65,536 terms (as it is persisted), i32 from then on. */
  private termsFlat: Int32Array | Uint16Array = new Uint16Array(256);
  private termsStart = new Int32Array(65);
  /** Each document's term frequencies, aligned with termsFlat: u8 while every one is below 256 (as persisted), u16 from then on. */
  private frequenciesFlat: Frequencies = new Uint8Array(256);
  /** Documents whose terms are in the postings lists; the later ones wait in termsFlat until a read (`post`). */
  private postedSlots = 0;
  /** The posting a sliced run began and has not finished (see `postingSteps`). */
  private posting: Steps<void> | null = null;
  private idScratch = new Int32Array(64);
  private slotCount = 0;
  private liveCount = 0;
  private totalLength = 0;
  private scratch = new Float64Array(64);
  private touched = new Int32Array(64);
  private seenIn = new Int32Array(64);
  private countScratch = new Int32Array(64);
  private uniqueScratch = new Int32Array(64);
  /** The accepted matches of one `collect`, handed to its statistics at once. */
  private matchSlots = new Int32Array(64);
  private matchScores = new Float64Array(64);
  private touchedCount = 0;
  private partScratch = new Float64Array(16);
  /** Per-slot length normalisation k1·(1 - b + b·length / average), valid for `normsKey`. */
  private norms = new Float64Array(0);
  private normsKey = '';
  /** A filtered corpus's length normalisation (see `slotScorer`), kept while the corpus object lives. */
  private readonly corpusNorms = new WeakMap<Bm25Corpus, Float64Array>();
  /** Query position + 1 of each term id, for `slotScorer` (cleared after each slot). */
  private queryMarks = new Int32Array(0);
  /** Common terms asked about by `headReady` whose bounds are not kept (yet), for `boundsKey`. */
  private readonly seenTerms = new Set<number>();
  /** Common terms' block bounds by term id, for `boundsKey` (norms and reach). */
  private readonly termBoundsCache = new Map<number, TermBlockBounds>();
  /** Rare terms' block bounds by term id, for `boundsKey`, and their bytes. */
  private readonly rareBoundsCache = new Map<number, TermBlockBounds>();
  private rareBoundsBytes = 0;
  private boundsKey = '';
  /** A persisted copy's common terms' bounds not read yet (`PersistedBounds`); null when none, or once a write changes the norms. */
  private persisted: PersistedBounds | null = null;
  /** Per block, how many of the current head search's terms its slots hold the scores of. */
  private appliedTerms = new Int32Array(0);
  /** The best-first order of a head search's blocks (its scratch kept from one pass to the next). */
  private readonly bestFirst = new BestFirstBlocks();
  /** Per block, a bound of a head search's score or window sum. */
  private blockScratch = new Float64Array(0);

  constructor(parameters: Partial<Bm25Parameters> = {}) {
    this.parameters = { ...BM25_DEFAULTS, ...parameters };
  }

  /** Number of live documents (N). */
  get size(): number {
    return this.liveCount;
  }

  /** Number of slots ever used (live and removed). */
  get slots(): number {
    return this.slotCount;
  }

  /** Postings held (one per distinct term of each document ever added), for a memory estimate. */
  get postingCount(): number {
    return this.termsStart[this.slotCount] as number;
  }

  /** Distinct terms ever added (each holds a map entry and its string), for a memory estimate. */
  get termCount(): number {
    return this.termNames.length;
  }

  /** Average live document length in tokens. */
  get averageLength(): number {
    return this.liveCount === 0 ? 0 : this.totalLength / this.liveCount;
  }

  /** Number of live documents holding `term`. */
  frequencyOf(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : (this.documentFrequency[id] as number);
  }

  /** The idf of a term under the current statistics (those of the live corpus, or of `corpus`). */
  idf(term: string, corpus?: Bm25Corpus): number {
    if (corpus === undefined) {
      const df = this.frequencyOf(term);
      return Math.log(1 + (this.liveCount - df + 0.5) / (df + 0.5));
    }
    const id = this.termIds.get(term);
    const df = id === undefined ? 0 : corpus.frequency(id);
    return Math.log(1 + (corpus.count - df + 0.5) / (df + 0.5));
  }

  /**
   * The statistics of the live documents `within` keeps: a search given them scores as if the index held those
   * documents alone (a character's lore: the entries it may not know weigh on no score). Costs one pass over the
   * slots, and one over a query term's postings the first time its frequency is asked.
   *
   * @example
   * ```ts
   * const visible = index.corpusWithin((slot) => slot !== 2);
   * index.search(['dragon'], 10, visible.within, undefined, undefined, visible);
   * ```
   */
  corpusWithin(within: (slot: number) => boolean): Bm25Corpus {
    const mask = new Uint8Array(this.slotCount);
    let count = 0;
    let totalLength = 0;
    for (let slot = 0; slot < this.slotCount; slot++) {
      if (this.alive[slot] !== 1 || !within(slot)) continue;
      mask[slot] = 1;
      count++;
      totalLength += this.lengths[slot] as number;
    }
    const frequencies = new Map<number, number>();
    const frequency = (id: number): number => {
      let known = frequencies.get(id);
      if (known === undefined) {
        this.post();
        // Through list(): a restored index's list is read on its first use (postings[id] is unset until then).
        const list = this.list(id);
        known = 0;
        for (let index = 0; index < list.length; index++) if (mask[list.slots[index] as number] === 1) known++;
        frequencies.set(id, known);
      }
      return known;
    };
    return { mask, within: (slot) => mask[slot] === 1, count, averageLength: count === 0 ? 0 : totalLength / count, frequency };
  }

  /** Makes room for `slots` documents at once (a bulk load of a known size). */
  reserve(slots: number): void {
    this.lengths = reserve(this.lengths, slots);
    this.alive = reserve(this.alive, slots);
    this.termsStart = reserve(this.termsStart, slots + 1);
  }

  /** Indexes a text (tokenised with `tokenize`) and returns its slot. */
  add(text: string): number {
    return this.addTokens(tokenize(text));
  }

  /** Indexes already tokenised text and returns its slot. */
  addTokens(tokens: readonly string[]): number {
    this.idScratch = grow(this.idScratch, tokens.length);
    const ids = this.idScratch;
    for (let index = 0; index < tokens.length; index++) ids[index] = this.termId(tokens[index] as string);
    return this.addTermIds(ids, tokens.length);
  }

  /**
   * The id of an index term, made (in order of first appearance) when the index has not met it yet. With
   * `addTermIds`, a caller that caches its terms' ids indexes a document without a lookup per term.
   */
  termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termNames.length;
      this.termIds.set(term, id);
      this.termNames.push(term);
      this.documentFrequency = grow(this.documentFrequency, id + 1);
      this.seenIn = grow(this.seenIn, id + 1);
      this.countScratch = grow(this.countScratch, id + 1);
    }
    return id;
  }

  /**
   * Indexes a document given as the ids (from `termId`) of its first `count` terms, in text order, and returns
   * its slot. Its postings are appended on the next read, all pending documents at once (see `post`).
   */
  addTermIds(ids: ArrayLike<number>, count: number): number {
    this.readAllTerms();
    this.dropPersistedBounds();
    const slot = this.slotCount++;
    this.lengths = grow(this.lengths, this.slotCount);
    this.alive = grow(this.alive, this.slotCount);
    // Count the document's terms without allocating: seenIn[id] = slot + 1 marks a term met in this document.
    this.uniqueScratch = grow(this.uniqueScratch, count);
    const seenIn = this.seenIn;
    const counts = this.countScratch;
    const uniqueIds = this.uniqueScratch;
    let unique = 0;
    let largest = 0;
    for (let index = 0; index < count; index++) {
      const id = ids[index] as number;
      if (seenIn[id] !== slot + 1) {
        seenIn[id] = slot + 1;
        counts[id] = 1;
        uniqueIds[unique++] = id;
      } else {
        counts[id] = (counts[id] as number) + 1;
        if ((counts[id] as number) > largest) largest = counts[id] as number;
      }
    }
    let position = this.termsStart[slot] as number;
    // Kept at the widths they are persisted at while they fit (a 1M load: 32 MB of term ids, 16 of frequencies).
    if (this.termsFlat instanceof Uint16Array && this.termNames.length >= NARROW_TERM_IDS) this.termsFlat = Int32Array.from(this.termsFlat);
    if (largest >= NARROW_FREQUENCIES) this.frequenciesFlat = writableFrequencies(this.frequenciesFlat);
    this.termsFlat = grow(this.termsFlat, position + unique);
    this.frequenciesFlat = grow(this.frequenciesFlat, position + unique);
    this.termsStart = grow(this.termsStart, slot + 2);
    const documentFrequency = this.documentFrequency;
    for (let index = 0; index < unique; index++) {
      const id = uniqueIds[index] as number;
      documentFrequency[id] = (documentFrequency[id] as number) + 1;
      this.termsFlat[position] = id;
      this.frequenciesFlat[position++] = Math.min(counts[id] as number, 65535);
    }
    this.termsStart[slot + 1] = position;
    this.lengths[slot] = count;
    this.alive[slot] = 1;
    this.liveCount++;
    this.totalLength += count;
    return slot;
  }

  /**
   * Appends the pending documents' terms to the postings lists (slot order, so lists stay sorted). A document
   * added in play appends to doubling lists; a bulk load (a rebuild) is a counting sort: the new lists are views
   * of two flat arrays, filled in one pass.
   */
  private post(): void {
    while (this.postedSlots < this.slotCount) runSteps(this.postingSteps());
  }

  /**
   * The posting `post` does, in steps: the one under way if a sliced run began it (a reader that cannot wait
   * finishes it at once), so postings are never seen half made. Nothing is posted twice.
   */
  private postingSteps(): Steps<void> {
    this.posting ??= this.postSteps();
    return this.posting;
  }

  private *postSteps(): Steps<void> {
    try {
      yield* this.postBody();
    } finally {
      this.posting = null;
    }
  }

  private *postBody(): Steps<void> {
    const from = this.postedSlots;
    const to = this.slotCount;
    if (from === to) return;
    const termsFlat = this.termsFlat;
    const frequenciesFlat = this.frequenciesFlat;
    const termsStart = this.termsStart;
    const postings = this.postings;
    while (postings.length < this.termNames.length) postings.push({ slots: EMPTY_SLOTS, frequencies: EMPTY_FREQUENCIES, length: 0 });
    if (to - from <= BULK_POSTING) {
      for (let slot = from; slot < to; slot++) {
        for (let position = termsStart[slot] as number; position < (termsStart[slot + 1] as number); position++) {
          this.append(termsFlat[position] as number, slot, frequenciesFlat[position] as number);
        }
      }
      this.postedSlots = to;
      return;
    }
    const first = termsStart[from] as number;
    const last = termsStart[to] as number;
    // cursor[id]: where term id's next posting goes in the flat arrays, or -1 when its list already had some.
    const cursor = new Int32Array(postings.length);
    for (let position = first; position < last; position++) {
      if ((position & STEP_POSTINGS) === 0) yield;
      const id = termsFlat[position] as number;
      cursor[id] = (cursor[id] as number) + 1;
    }
    let total = 0;
    for (let id = 0; id < postings.length; id++) {
      if ((id & STEP_TERMS) === 0) yield;
      const added = cursor[id] as number;
      const list = this.list(id);
      if (added === 0 || list.length > 0) {
        if (added > 0) {
          // Doubling, as appends do, so that loads alternating with reads stay amortised.
          list.slots = grow(list.slots, list.length + added);
          list.frequencies = grow(writableFrequencies(list.frequencies), list.length + added);
        }
        cursor[id] = -1;
      } else {
        cursor[id] = total;
        total += added;
      }
    }
    const flatSlots = new Int32Array(total);
    // As narrow as the documents' frequencies they are copied from (a list appended to later is widened then).
    const flatFrequencies = frequenciesFlat instanceof Uint8Array ? new Uint8Array(total) : new Uint16Array(total);
    const starts = Int32Array.from(cursor);
    for (let slot = from; slot < to; slot++) {
      if ((slot & STEP_ROWS) === 0) yield;
      for (let position = termsStart[slot] as number; position < (termsStart[slot + 1] as number); position++) {
        const id = termsFlat[position] as number;
        const at = cursor[id] as number;
        if (at >= 0) {
          flatSlots[at] = slot;
          flatFrequencies[at] = frequenciesFlat[position] as number;
          cursor[id] = at + 1;
        } else {
          this.append(id, slot, frequenciesFlat[position] as number);
        }
      }
    }
    for (let id = 0; id < postings.length; id++) {
      const start = starts[id] as number;
      if (start < 0) continue;
      const end = cursor[id] as number;
      if (end === start) continue;
      const list = this.list(id);
      list.slots = flatSlots.subarray(start, end);
      list.frequencies = flatFrequencies.subarray(start, end);
      list.length = end - start;
    }
    this.postedSlots = to;
  }

  /** Term `id`'s postings (made on first use from a persisted copy's flat arrays). */
  private list(id: number): Postings {
    let list = this.postings[id];
    if (list === undefined) {
      const restored = this.restored;
      const start = restored === null || id === 0 ? 0 : (restored.ends[id - 1] as number);
      const end = restored === null ? 0 : (restored.ends[id] as number);
      const lazy = this.lazyPostings;
      if (lazy !== null && end > start && restored !== null) {
        const from = id === 0 ? 0 : (lazy.byteEnds[id - 1] as number);
        const to = lazy.byteEnds[id] as number;
        if (!(from >= 0 && from <= to && to <= lazy.gaps.length)) throw new SnapshotRejected('posting gaps corrupt');
        // The gaps are read from the file into one reused buffer, not kept: once decoded they are not read again.
        decodePostingGaps(lazy.gaps.range(from, to), 0, to - from, restored.slots, start, end - start, this.slotCount);
        lazy.frequencies.need(start, end);
        if (--lazy.undecoded === 0) lazy.gaps.release();
      }
      list = restored === null || end === start
        ? { slots: EMPTY_SLOTS, frequencies: EMPTY_FREQUENCIES, length: 0 }
        : { slots: restored.slots.subarray(start, end), frequencies: restored.frequencies.subarray(start, end), length: end - start };
      this.postings[id] = list;
    }
    return list;
  }

  /** Reads a persisted copy's terms of `slot` if not read yet (it throws SnapshotRejected when they are corrupt). */
  private readTerms(slot: number): void {
    const lazy = this.lazyTerms;
    if (lazy === null) return;
    const from = this.termsStart[slot] as number;
    const to = this.termsStart[slot + 1] as number;
    lazy.terms.need(from, to);
    lazy.frequencies.need(from, to);
    if (lazy.terms.complete && lazy.frequencies.complete) this.lazyTerms = null;
  }

  /** Reads every document's terms of a persisted copy not read yet (before they change, are copied or written out). */
  private readAllTerms(): void {
    const lazy = this.lazyTerms;
    if (lazy === null) return;
    lazy.terms.needAll();
    lazy.frequencies.needAll();
    this.lazyTerms = null;
  }

  /**
   * Lets go of the postings lists of an index never searched (the next read makes them again from each document's
   * terms, in one bulk posting); does nothing once one was searched or for a persisted copy. For a load persisted
   * midway: its later batches are then not appended list by list (each list grown by doubling), and the final
   * write's lists are one bulk posting's, exact and end to end (a 1M load: about 96 MB instead of up to twice it).
   *
   * @example
   * ```ts
   * index.releasePostings(); // after persisting a bulk load's index that nobody searched yet
   * ```
   */
  releasePostings(): void {
    if (this.restored !== null || this.posting !== null || this.termBoundsCache.size > 0 || this.rareBoundsCache.size > 0 || this.seenTerms.size > 0) return;
    this.postings = [];
    this.postedSlots = 0;
  }

  /** Appends one posting to term `id`'s list. */
  private append(id: number, slot: number, frequency: number): void {
    const list = this.list(id);
    if (list.length === list.slots.length) {
      list.slots = list.length === 0 ? new Int32Array(4) : grow(list.slots, list.length + 1);
      list.frequencies = list.length === 0 ? new Uint16Array(4) : grow(writableFrequencies(list.frequencies), list.length + 1);
    } else if (list.frequencies instanceof Uint8Array) {
      list.frequencies = writableFrequencies(list.frequencies);
    }
    list.slots[list.length] = slot;
    list.frequencies[list.length] = frequency;
    list.length++;
  }

  /** Removes a document; its postings stay as dead entries, skipped when scoring. */
  remove(slot: number): void {
    if (slot < 0 || slot >= this.slotCount || this.alive[slot] !== 1) return;
    this.readTerms(slot);
    this.dropPersistedBounds();
    this.alive[slot] = 0;
    this.liveCount--;
    this.totalLength -= this.lengths[slot] as number;
    for (let position = this.termsStart[slot] as number; position < (this.termsStart[slot + 1] as number); position++) {
      const id = this.termsFlat[position] as number;
      this.documentFrequency[id] = (this.documentFrequency[id] as number) - 1;
    }
  }

  /**
   * A new index of the live documents alone, in slot order, exactly as adding their texts afresh makes it: the
   * same slots, term ids (in order of first appearance), statistics and scores. Removed documents leave no trace.
   *
   * @example
   * ```ts
   * index.remove(0);
   * const fresh = index.compacted(); // slot 0 is what slot 1 was
   * ```
   */
  compacted(): Bm25Index {
    return runSteps(this.compactedSteps());
  }

  /** `compacted` in steps (a pause every few documents), for `runStepsSliced`; the index must not change meanwhile. */
  *compactedSteps(): Steps<Bm25Index> {
    this.readAllTerms();
    const copy = new Bm25Index(this.parameters);
    copy.reserve(this.liveCount);
    const flat = this.termsStart[this.slotCount] as number;
    copy.termsFlat = new Int32Array(Math.max(256, flat));
    copy.frequenciesFlat = new Uint16Array(Math.max(256, flat));
    const remap = new Int32Array(this.termNames.length).fill(-1);
    let position = 0;
    for (let slot = 0; slot < this.slotCount; slot++) {
      if ((slot & STEP_ROWS) === 0) yield;
      if (this.alive[slot] !== 1) continue;
      const target = copy.slotCount++;
      for (let from = this.termsStart[slot] as number; from < (this.termsStart[slot + 1] as number); from++) {
        const old = this.termsFlat[from] as number;
        let id = remap[old] as number;
        if (id < 0) remap[old] = id = copy.termId(this.termNames[old] as string);
        copy.documentFrequency[id] = (copy.documentFrequency[id] as number) + 1;
        copy.termsFlat[position] = id;
        copy.frequenciesFlat[position++] = this.frequenciesFlat[from] as number;
      }
      copy.termsStart[target + 1] = position;
      copy.lengths[target] = this.lengths[slot] as number;
      copy.alive[target] = 1;
      copy.liveCount++;
      copy.totalLength += this.lengths[slot] as number;
    }
    return copy;
  }

  /**
   * Writes what a copy needs to answer queries and take writes as this index does (postings, statistics, each
   * document's terms), under `prefix`, and the common terms' block bounds `bounds` picks (`PersistedBoundsOptions`),
   * so that the copy's head searches read them instead of making them. The arrays are views: write the snapshot
   * before the index changes again.
   */
  writeState(writer: SnapshotWriter, prefix: string, bounds: PersistedBoundsOptions = PERSISTED_BOUNDS): void {
    runSteps(this.writeStateSteps(writer, prefix, bounds));
  }

  /** `writeState` in steps (a pause every few thousand terms, and per term whose bounds it writes), for `runStepsSliced`; the index must not change meanwhile. */
  *writeStateSteps(writer: SnapshotWriter, prefix: string, bounds: PersistedBoundsOptions = PERSISTED_BOUNDS): Steps<void> {
    this.readAllTerms();
    const terms = this.termNames.length;
    const slots = this.slotCount;
    const flat = this.termsStart[slots] as number;
    const frequenciesFlat = this.frequenciesFlat.subarray(0, flat);
    // Frequencies at the narrowest width their largest allows (readState reads the width from the sections' kind).
    let largest = 0;
    for (let position = 0; position < flat; position++) if ((frequenciesFlat[position] as number) > largest) largest = frequenciesFlat[position] as number;
    const narrow = largest < NARROW_FREQUENCIES;
    // An index never searched (a bulk load) has no lists yet: its sections are made from each document's terms,
    // the same bytes, and the lists are made at its first search, not held for the write.
    const unposted = this.postedSlots === 0 && this.posting === null && this.restored === null;
    const { postingEnds, bytes: gapBytes, byteEnds, frequencies: postingFrequencies } = unposted
      ? yield* documentPostingSectionsSteps(terms, this.termsFlat, this.termsStart.subarray(0, slots + 1), frequenciesFlat, narrow)
      : yield* this.listSectionsSteps(narrow);
    writer.strings(`${prefix}.terms`, this.termNames);
    writer.array(`${prefix}.documentFrequency`, this.documentFrequency.subarray(0, terms));
    writeNarrowest(writer, `${prefix}.lengths`, this.lengths.subarray(0, slots));
    writer.array(`${prefix}.alive`, this.alive.subarray(0, slots));
    writer.array(`${prefix}.termsStart`, this.termsStart.subarray(0, slots + 1));
    // Term ids at the narrowest width the term count allows (readState picks the same width from the count).
    const termsFlat = this.termsFlat.subarray(0, flat);
    const narrowTerms = terms < NARROW_TERM_IDS;
    writer.array(`${prefix}.termsFlat`, termsFlat instanceof (narrowTerms ? Uint16Array : Int32Array) ? termsFlat : narrowTerms ? Uint16Array.from(termsFlat) : Int32Array.from(termsFlat));
    // A u8 array (every frequency below 256 so far) is narrow already; a wide one is u16.
    writer.array(`${prefix}.frequenciesFlat`, narrow && !(frequenciesFlat instanceof Uint8Array) ? Uint8Array.from(frequenciesFlat) : frequenciesFlat);
    writer.array(`${prefix}.postingEnds`, postingEnds);
    writer.array(`${prefix}.postingGaps`, gapBytes);
    writer.array(`${prefix}.postingByteEnds`, byteEnds);
    writer.array(`${prefix}.postingFrequencies`, postingFrequencies);
    if (slots === 0 || slots < bounds.fromSlots || this.liveCount !== slots) return;
    // The common terms with the most postings, within the budget and the postings' own bytes (see PersistedBoundsOptions).
    const budget = Math.min(bounds.budgetBytes, gapBytes.byteLength + postingFrequencies.byteLength);
    // A term's postings count from the sections just made: an unposted index has no lists to ask.
    const countOf = (id: number): number => (postingEnds[id] as number) - (id === 0 ? 0 : (postingEnds[id - 1] as number));
    const ids = termsToPersist(terms, countOf, slots, budget);
    if (ids.length === 0) return;
    // The norms a reader's `currentNorms` makes (made aside when they are not current: a bulk load's index keeps none).
    const norms = this.normsKey === `${this.liveCount}:${this.totalLength}:${this.slotCount}` ? this.norms : this.normsInto(new Float64Array(slots));
    const blockCount = (slots + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
    const { k1, b } = this.parameters;
    const key = { live: this.liveCount, totalLength: this.totalLength, slots, k1, b, reach: bounds.reach };
    // Their own scratch: queries run between the steps, and use the shared one.
    let longest = 0;
    for (const id of ids) longest = Math.max(longest, countOf(id));
    const saturations = new Float64Array(longest);
    // Without lists (unposted), a term's slots are decoded from the gaps just written into one scratch, a term at a
    // time: the bounds made keep none of it, so the write never holds the lists it avoided making.
    const decoded = unposted ? new Int32Array(longest) : null;
    yield* writeBoundsSteps(writer, prefix, key, ids, (id) => {
      if (decoded === null) {
        const list = this.list(id);
        return commonTermBoundsSteps(list.slots, list.frequencies, list.length, norms, k1, bounds.reach, blockCount, saturations);
      }
      const count = countOf(id);
      const start = id === 0 ? 0 : (postingEnds[id - 1] as number);
      decodePostingGaps(gapBytes, id === 0 ? 0 : (byteEnds[id - 1] as number), byteEnds[id] as number, decoded, 0, count, slots);
      return commonTermBoundsSteps(decoded, postingFrequencies.subarray(start, start + count), count, norms, k1, bounds.reach, blockCount, saturations);
    });
  }

  /** The posting sections made from the postings lists (the pending documents posted first), in steps. */
  private *listSectionsSteps(narrow: boolean): Steps<PostingSections> {
    while (this.postedSlots < this.slotCount) yield* this.postingSteps();
    const terms = this.termNames.length;
    const postingEnds = new Int32Array(terms);
    let total = 0;
    for (let id = 0; id < terms; id++) {
      if ((id & STEP_TERMS) === 0) yield;
      postingEnds[id] = total += this.list(id).length;
    }
    // A bulk posting leaves the lists' frequencies end to end, term by term, in one array: viewed, not copied.
    const viewed = this.frequenciesEndToEnd(narrow, total);
    const frequencies = viewed ?? (narrow ? new Uint8Array(total) : new Uint16Array(total));
    // The slots as LEB128 gaps, encoded from each term's list (readState decodes a term's list on its first use).
    const gaps = new PostingGapsEncoder(terms, total);
    let at = 0;
    for (let id = 0; id < terms; id++) {
      if ((id & STEP_TERMS) === 0) yield;
      const list = this.list(id);
      gaps.add(list.slots.subarray(0, list.length));
      if (viewed === null) frequencies.set(list.frequencies.subarray(0, list.length), at);
      at += list.length;
    }
    const { bytes, byteEnds } = gaps.finish();
    return { postingEnds, bytes, byteEnds, frequencies: frequencies as Uint8Array<ArrayBuffer> | Uint16Array<ArrayBuffer> };
  }

  /**
   * Every term's posting frequencies as one view, when they lie end to end in term order in one array of the width
   * written (u8 when `narrow`), as one bulk posting (or a persisted copy) leaves them; null otherwise.
   */
  private frequenciesEndToEnd(narrow: boolean, total: number): Frequencies | null {
    let first: Frequencies | null = null;
    let next = 0;
    for (let id = 0; id < this.termNames.length; id++) {
      const list = this.list(id);
      if (list.length === 0) continue;
      const frequencies = list.frequencies;
      if (!(narrow ? frequencies instanceof Uint8Array : frequencies instanceof Uint16Array)) return null;
      first ??= frequencies;
      if (frequencies.buffer !== first.buffer || frequencies.byteOffset !== first.byteOffset + next) return null;
      next += list.length * frequencies.BYTES_PER_ELEMENT;
    }
    if (first === null) return null;
    return narrow ? new Uint8Array(first.buffer, first.byteOffset, total) : new Uint16Array(first.buffer, first.byteOffset, total);
  }

  /**
   * The index `writeState` wrote under `prefix`, its arrays viewing the snapshot's bytes (they are copied only
   * when a write outgrows them). Its live count and total length are recomputed from the lengths and the live flags.
   *
   * @example
   * ```ts
   * const copy = Bm25Index.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 'bm25', BM25_DEFAULTS);
   * ```
   */
  static readState(reader: SnapshotReader, prefix: string, parameters: Partial<Bm25Parameters>): Bm25Index {
    const index = new Bm25Index(parameters);
    const terms = reader.strings(`${prefix}.terms`);
    const postingEnds = reader.array(`${prefix}.postingEnds`, 'i32');
    // Read when a term's list is first used (a query reads the lists of its terms, not the corpus's).
    // Both frequency sections have the width the writer chose (u8 or u16); another kind refuses the snapshot.
    const frequencyKind = reader.kindOf(`${prefix}.frequenciesFlat`) === 'u8' ? 'u8' : 'u16';
    // The gaps are read from the file a term's list at a time and decoded into postingSlots (no array holds them).
    let undecoded = 0;
    for (let id = 0; id < postingEnds.length; id++) if ((postingEnds[id] as number) > (id === 0 ? 0 : (postingEnds[id - 1] as number))) undecoded++;
    const lazyPostings = { gaps: reader.bytesInFile(`${prefix}.postingGaps`), byteEnds: reader.array(`${prefix}.postingByteEnds`, 'i32'), frequencies: reader.lazy(`${prefix}.postingFrequencies`, frequencyKind), undecoded };
    if (undecoded === 0) lazyPostings.gaps.release();
    index.lazyPostings = lazyPostings;
    // Filled a term's list at a time, as each is decoded.
    const postingSlots = new Int32Array(postingEnds.length === 0 ? 0 : Math.max(0, postingEnds[postingEnds.length - 1] as number));
    const postingFrequencies = lazyPostings.frequencies.array;
    for (let id = 0; id < terms.length; id++) index.termIds.set(terms[id] as string, id);
    index.termNames = terms;
    index.postings = new Array<Postings | undefined>(terms.length);
    index.restored = { ends: postingEnds, slots: postingSlots, frequencies: postingFrequencies };
    index.documentFrequency = reader.array(`${prefix}.documentFrequency`, 'i32');
    index.lengths = readWidened(reader, `${prefix}.lengths`, 'i32');
    index.alive = reader.array(`${prefix}.alive`, 'u8');
    index.termsStart = reader.array(`${prefix}.termsStart`, 'i32');
    const lazyTerms = { terms: terms.length < NARROW_TERM_IDS ? reader.lazy(`${prefix}.termsFlat`, 'u16') : reader.lazy(`${prefix}.termsFlat`, 'i32'), frequencies: reader.lazy(`${prefix}.frequenciesFlat`, frequencyKind) };
    index.lazyTerms = lazyTerms;
    index.termsFlat = lazyTerms.terms.array;
    index.frequenciesFlat = lazyTerms.frequencies.array;
    index.seenIn = new Int32Array(Math.max(64, terms.length));
    index.countScratch = new Int32Array(Math.max(64, terms.length));
    const slots = index.lengths.length;
    if (index.alive.length !== slots || index.termsStart.length !== slots + 1 || index.documentFrequency.length !== terms.length || postingEnds.length !== terms.length || lazyPostings.byteEnds.length !== terms.length || postingSlots.length !== lazyPostings.frequencies.length) {
      throw new SnapshotRejected(`${prefix}: section lengths disagree`);
    }
    index.slotCount = slots;
    index.postedSlots = slots;
    for (let slot = 0; slot < slots; slot++) {
      if (index.alive[slot] !== 1) continue;
      index.liveCount++;
      index.totalLength += index.lengths[slot] as number;
    }
    // The common terms' bounds, if written under these statistics and parameters for the default reach (else unused).
    const { k1, b } = index.parameters;
    index.persisted = PersistedBounds.read(reader, prefix, { live: index.liveCount, totalLength: index.totalLength, slots, k1, b, reach: PERSISTED_BOUNDS.reach }, terms.length);
    return index;
  }

  /**
   * The sections under `prefix` that `readState` reads from the file a piece at a time, for
   * `SnapshotReader.readApart` (no room for them in the buffer the others view).
   *
   * @example
   * ```ts
   * reader.readApart(Bm25Index.sectionsReadApart('bm25'));
   * ```
   */
  static sectionsReadApart(prefix: string): string[] {
    return PersistedBounds.sections(prefix);
  }

  /** Each slot's live flag (1: live) and length in terms, for one pass over every slot; read them, never write. */
  get slotArrays(): { alive: Uint8Array; lengths: Int32Array } {
    return { alive: this.alive.subarray(0, this.slotCount), lengths: this.lengths.subarray(0, this.slotCount) };
  }

  /** True when the slot holds a live document. */
  isAlive(slot: number): boolean {
    return this.alive[slot] === 1;
  }

  /** A slot's length in terms (0 for a slot never used). */
  lengthOf(slot: number): number {
    return this.lengths[slot] ?? 0;
  }

  /**
   * Visits the live postings of a term (slot and term frequency), in slot order: what a score over groups of
   * documents (a scene) is made from.
   *
   * @example
   * ```ts
   * index.forEachPosting('dragon', (slot, frequency) => counts.set(slot, frequency));
   * ```
   */
  forEachPosting(term: string, visit: (slot: number, frequency: number) => void): void {
    const id = this.termIds.get(term);
    if (id === undefined || this.documentFrequency[id] === 0) return;
    this.post();
    // Through list(): a restored index makes (and reads) a term's list on its first use.
    const list = this.list(id);
    for (let index = 0; index < list.length; index++) {
      const slot = list.slots[index] as number;
      if (this.alive[slot] === 1) visit(slot, list.frequencies[index] as number);
    }
  }

  /**
   * Scores the live documents against deduplicated query tokens and returns the best `limit` with a score
   * above zero, best first (ties: lower slot first). `accept` filters slots before ranking; `corpus` (from
   * `corpusWithin`) gives the statistics to score with, the live corpus's by default.
   */
  search(
    queryTokens: readonly string[],
    limit: number,
    accept?: (slot: number) => boolean,
    termWeights?: ReadonlyMap<string, number>,
    statistics?: ScoreSink,
    corpus?: Bm25Corpus,
    inspect?: ScoresInspector,
  ): { slot: number; score: number }[] {
    if (this.liveCount === 0 || limit <= 0) return [];
    this.accumulate(new Set(queryTokens), termWeights, corpus);
    return this.finish(limit, accept, statistics, inspect, termWeights);
  }

  /**
   * `search` (no `feedback`) or `searchWithFeedback` over the live corpus, unfiltered, for the best `limit` alone:
   * the same results, scores, weights and inspected scores, without scoring every match. The slots are taken in
   * blocks of 16; each term keeps, per block, a bound of its contribution and of its window sums within `reach`
   * (`termBlockBounds`, made on a term's first use and kept while the corpus is unchanged). The blocks whose bound
   * is highest are scored first; their `limit`-th best score is a floor, and only the blocks whose bound reaches it
   * are scored (with feedback: so for the feedback documents, then for the expanded query). `inspect` is shown the
   * scores with the blocks scored (`ScoredBlocks`: it may score more, and find the blocks whose windows reach a
   * floor). `boundScale` scales the bounds (1; below 1 they are wrong: for tests that show they are checked).
   *
   * @example
   * ```ts
   * const { results } = index.searchHead(['dragon'], 100, undefined, 2, (ranked, dense, weights, blocks) => {});
   * ```
   */
  searchHead(
    queryTokens: readonly string[],
    limit: number,
    feedback: { documents: number; terms: number; weight: number } | undefined,
    reach: number,
    inspect: ScoresInspector,
    boundScale: { peaks: number; windows: number } = { peaks: 1, windows: 1 },
  ): { results: { slot: number; score: number }[]; weights: Map<string, number> | undefined } {
    const unique = new Set(queryTokens);
    const weights = feedback === undefined ? undefined : new Map<string, number>([...unique].map((term) => [term, 1]));
    if (this.liveCount === 0 || limit <= 0) return { results: [], weights };
    this.post();
    const blockCount = (this.slotCount + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
    if (this.appliedTerms.length < blockCount) {
      this.appliedTerms = new Int32Array(blockCount);
      this.blockScratch = new Float64Array(blockCount);
    } else {
      this.appliedTerms.fill(0, 0, blockCount);
    }
    this.scratch = grow(this.scratch, this.slotCount);
    this.touched = grow(this.touched, this.slotCount);
    const terms = this.headTerms(unique, undefined, reach, blockCount);
    if (feedback === undefined || unique.size === 0 || feedback.documents <= 0 || feedback.terms <= 0 || feedback.weight <= 0) {
      const results = this.scoreHead(terms, 0, limit, blockCount, boundScale);
      return { results: this.finishHead(results, terms, inspect, weights, blockCount, boundScale), weights };
    }
    const top = this.scoreHead(terms, 0, feedback.documents, blockCount, boundScale).map(({ slot }) => slot);
    const expansion = this.expansionWeights(top, unique, feedback);
    for (const [term, weight] of expansion) weights?.set(term, weight);
    const all = [...terms, ...this.headTerms(expansion.keys(), expansion, reach, blockCount)];
    const results = this.scoreHead(all, terms.length, limit, blockCount, boundScale);
    return { results: this.finishHead(results, all, inspect, weights, blockCount, boundScale), weights };
  }

  /** Bytes of the common terms' block bounds kept for head searches (at most about BOUND_CACHE_BYTES), for the index's `byteSize`. */
  get boundsBytes(): number {
    let bytes = 0;
    for (const bounds of this.termBoundsCache.values()) bytes += boundBytes(bounds);
    return bytes + this.rareBoundsBytes;
  }

  /** How many common terms' persisted bounds are still in the file, not read yet (0 once a write or a corrupt record dropped them). */
  get persistedBoundTerms(): number {
    return this.persisted?.size ?? 0;
  }

  /** Lets go of the persisted bounds (a write changes the norms they were made under): the file may close. */
  private dropPersistedBounds(): void {
    this.persisted?.release();
    this.persisted = null;
  }

  /** The persisted bounds, when they were made for `reach` (the norms they were made under hold until a write drops them). */
  private persistedFor(reach: number): PersistedBounds | null {
    return this.persisted !== null && this.persisted.key.reach === reach ? this.persisted : null;
  }

  /** The common terms' bounds kept for `reach` under the current norms (emptied, with the terms seen, when they change). */
  private boundsFor(reach: number): Map<number, TermBlockBounds> {
    this.currentNorms();
    const key = `${this.normsKey}:${reach}`;
    if (key !== this.boundsKey) {
      this.termBoundsCache.clear();
      this.rareBoundsCache.clear();
      this.rareBoundsBytes = 0;
      this.seenTerms.clear();
      this.boundsKey = key;
    }
    return this.termBoundsCache;
  }

  /**
   * True when a head search (`searchHead`) of these terms should use block bounds: every common term among them
   * (postings at least a quarter of the blocks) has its bounds kept, persisted with the index (read from the file,
   * a few hundred kilobytes a term at 1M chunks: so a cold open's first query takes the head search), or was asked
   * about before (they are then made). A common term's first ask otherwise only notes it and answers false, so a
   * save that answers one query pays for no bounds it must make, and a term's bounds cost more than scoring it
   * once. Notes every term it is asked about.
   *
   * @example
   * ```ts
   * if (index.headReady(['dragon'], 2)) index.searchHead(['dragon'], 100, undefined, 2, inspect);
   * ```
   */
  headReady(queryTokens: readonly string[], reach: number): boolean {
    this.post();
    const cache = this.boundsFor(reach);
    const persisted = this.persistedFor(reach);
    const blockCount = (this.slotCount + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
    let ready = true;
    for (const term of new Set(queryTokens)) {
      const id = this.termIds.get(term);
      if (id === undefined || this.documentFrequency[id] === 0 || cache.has(id) || persisted?.has(id) === true || this.list(id).length * 4 < blockCount) continue;
      if (!this.seenTerms.has(id)) {
        this.seenTerms.add(id);
        ready = false;
      }
    }
    return ready;
  }

  /** The query terms of a head search, in order (those the corpus holds), each with its multiplier as `accumulate` makes it. */
  private headTerms(terms: Iterable<string>, termWeights: ReadonlyMap<string, number> | undefined, reach: number, blockCount: number): HeadTerm[] {
    const norms = this.currentNorms();
    const cache = this.boundsFor(reach);
    const found: HeadTerm[] = [];
    for (const term of terms) {
      const id = this.termIds.get(term);
      if (id === undefined || this.documentFrequency[id] === 0) continue;
      const list = this.list(id);
      let bounds = cache.get(id) ?? this.rareBoundsCache.get(id) ?? this.readPersisted(id, list.length, reach, cache);
      if (bounds === undefined) {
        bounds = termBlockBounds(list.slots, list.frequencies, list.length, norms, this.parameters.k1, reach, blockCount);
        // A term's bounds are kept while its budget lasts (the first ones met stay; a term past it has them made
        // again): a common term's in `cache`, a rare term's (arrays of their length) in `rareBoundsCache`.
        if (bounds.peakBlocks === null) {
          if ((cache.size + 1) * boundBytes(bounds) <= BOUND_CACHE_BYTES) cache.set(id, bounds);
        } else {
          const bytes = boundBytes(bounds);
          if (this.rareBoundsBytes + bytes <= RARE_BOUND_CACHE_BYTES) {
            this.rareBoundsCache.set(id, bounds);
            this.rareBoundsBytes += bytes;
          }
        }
      }
      found.push({ id, multiplier: this.idf(term) * (termWeights?.get(term) ?? 1), list, bounds });
    }
    return found;
  }

  /**
   * A common term's persisted bounds (read from the file, kept in `cache` while its budget lasts), or undefined when
   * they are not persisted for `reach` or their record is corrupt (then the caller makes them, as without).
   */
  private readPersisted(id: number, postings: number, reach: number, cache: Map<number, TermBlockBounds>): TermBlockBounds | undefined {
    const persisted = this.persistedFor(reach);
    if (persisted === null || !persisted.has(id)) return undefined;
    const bounds = persisted.take(id, postings);
    if (bounds === null) {
      this.dropPersistedBounds();
      return undefined;
    }
    if ((cache.size + 1) * boundBytes(bounds) <= BOUND_CACHE_BYTES) cache.set(id, bounds);
    return bounds;
  }

  /**
   * Scores, with all of `terms`, every block that can hold one of the best `limit` slots, and returns those slots
   * (best first; ties: lower slot first): the blocks in order of their bounds, best first (`BestFirstBlocks`), until
   * the `limit`-th best score so far is above every bound left.
   */
  private scoreHead(terms: readonly HeadTerm[], added: number, limit: number, blockCount: number, boundScale: { peaks: number }): { slot: number; score: number }[] {
    if (terms.length === 0) return [];
    // The bounds of the terms before `added` are those of the last pass (the same multipliers): the new terms' are
    // added, term by term, each in query order after the ones before.
    const bounds = this.blockScratch;
    if (added === 0) bounds.fill(0, 0, blockCount);
    // The highest bound a block can have: every term at its largest step count.
    let ceiling = 0;
    const values: Uint8Array[] = [];
    const steps: number[] = [];
    for (let position = 0; position < terms.length; position++) {
      const term = terms[position] as HeadTerm;
      const step = term.multiplier * term.bounds.peakStep * boundScale.peaks;
      ceiling += 255 * step;
      if (position < added) continue;
      // A rare term's bounds are added at its blocks, the common terms' together, every block.
      if (term.bounds.peakBlocks !== null) {
        addBlockBounds(bounds, term.bounds.peakBlocks, term.bounds.peaks, step);
      } else {
        values.push(term.bounds.peaks);
        steps.push(step);
      }
    }
    addEveryBlockBounds(bounds, blockCount, values, steps);
    const floor = new TopK(limit);
    const scores = this.scratch;
    const slotCount = this.slotCount;
    this.bestFirst.visit(
      bounds,
      blockCount,
      ceiling,
      () => floor.threshold,
      (block) => {
        this.completeBlock(block, terms);
        const end = Math.min(slotCount, (block + 1) << BLOCK_SHIFT);
        for (let slot = block << BLOCK_SHIFT; slot < end; slot++) {
          const score = scores[slot] as number;
          if (score > 0 && score >= floor.threshold) floor.push(slot, score);
        }
      },
    );
    // The best `limit` of every scored slot: a slot of a block scored by an earlier pass and not read by this one
    // holds a partial score, below its block's bound and so below the floor.
    return floor.sorted();
  }

  /** Adds to the scores of `block`'s slots the terms it does not hold yet (each term's postings found by its offsets, or a rare term's by binary search), in query order. */
  private completeBlock(block: number, terms: readonly HeadTerm[]): void {
    const applied = this.appliedTerms;
    const from = applied[block] as number;
    if (from >= terms.length) return;
    const { k1 } = this.parameters;
    const alive = this.alive;
    // The norms of the search (`headTerms` made them current).
    const norms = this.norms;
    const scores = this.scratch;
    const touched = this.touched;
    const first = block << BLOCK_SHIFT;
    const end = (block + 1) << BLOCK_SHIFT;
    // With every slot live (no removal), no posting's slot need be checked.
    const everyLive = this.liveCount === this.slotCount;
    let count = this.touchedCount;
    for (let position = from; position < terms.length; position++) {
      const { multiplier: idf, list, bounds } = terms[position] as HeadTerm;
      const slots = list.slots;
      const stretch = block >> STRETCH_SHIFT;
      const stop = bounds.starts[stretch + 1] as number;
      let low = bounds.starts[stretch] as number;
      if (bounds.offsets !== null) {
        low += bounds.offsets[block] as number;
      } else {
        let high = stop;
        while (low < high) {
          const middle = (low + high) >> 1;
          if ((slots[middle] as number) < first) low = middle + 1;
          else high = middle;
        }
      }
      for (let index = low; index < stop; index++) {
        const slot = slots[index] as number;
        if (slot >= end) break;
        if (!everyLive && alive[slot] !== 1) continue;
        const frequency = list.frequencies[index] as number;
        if (scores[slot] === 0) touched[count++] = slot;
        scores[slot] = (scores[slot] as number) + (idf * frequency * (k1 + 1)) / (frequency + (norms[slot] as number));
      }
    }
    this.touchedCount = count;
    applied[block] = terms.length;
  }

  /** The end of a head search: `inspect` is shown its results, the scores and the blocks scored, then the scratch is cleared. */
  private finishHead(results: { slot: number; score: number }[], terms: readonly HeadTerm[], inspect: ScoresInspector, weights: ReadonlyMap<string, number> | undefined, blockCount: number, boundScale: { windows: number }): { slot: number; score: number }[] {
    const blocks: ScoredBlocks = {
      shift: BLOCK_SHIFT,
      ensure: (slot) => this.completeBlock(slot >> BLOCK_SHIFT, terms),
      visitWindowBlocks: (floor, visit) => {
        // The lexical bounds are read no more: their array takes the window bounds, term by term.
        const bounds = this.blockScratch;
        bounds.fill(0, 0, blockCount);
        let ceiling = 0;
        const values: Uint8Array[] = [];
        const steps: number[] = [];
        for (const term of terms) {
          const step = term.multiplier * term.bounds.windowStep * boundScale.windows;
          ceiling += 255 * step;
          if (term.bounds.windowBlocks !== null) {
            addBlockBounds(bounds, term.bounds.windowBlocks, term.bounds.windows, step);
          } else {
            values.push(term.bounds.windows);
            steps.push(step);
          }
        }
        addEveryBlockBounds(bounds, blockCount, values, steps);
        return this.bestFirst.visit(bounds, blockCount, ceiling, floor, visit);
      },
    };
    try {
      inspect(results, { scores: this.scratch, touched: this.touched, count: this.touchedCount }, weights, blocks);
    } finally {
      for (let index = 0; index < this.touchedCount; index++) this.scratch[this.touched[index] as number] = 0;
      this.touchedCount = 0;
    }
    return results;
  }

  /** The last `collect` of a search: with `inspect`, the scores are shown to it (with the results) before they are cleared. */
  private finish(limit: number, accept: ((slot: number) => boolean) | undefined, statistics: ScoreSink | undefined, inspect: ScoresInspector | undefined, weights: ReadonlyMap<string, number> | undefined): { slot: number; score: number }[] {
    if (inspect === undefined) return this.collect(limit, accept, true, statistics);
    const results = this.collect(limit, accept, false, statistics);
    try {
      inspect(results, { scores: this.scratch, touched: this.touched, count: this.touchedCount }, weights);
    } finally {
      for (let index = 0; index < this.touchedCount; index++) this.scratch[this.touched[index] as number] = 0;
      this.touchedCount = 0;
    }
    return results;
  }

  /**
   * Search with pseudo-relevance feedback in one pass over the query's postings: scores the query, reads its
   * top `feedback.documents` accepted hits, adds their best `feedback.terms` terms (not in the query) at
   * `feedback.weight` times their share of the best term's score, and ranks again. The same results as
   * `search(terms, limit, accept, weights)` with the returned terms and weights, without scoring the query's
   * own terms twice. `statistics` receives every accepted matching document's final score; `corpus` gives the
   * statistics to score with (and to choose feedback terms by), the live corpus's by default.
   *
   * @example
   * ```ts
   * const { results, weights } = index.searchWithFeedback(['dragon'], 10, { documents: 3, terms: 5, weight: 0.5 });
   * ```
   */
  searchWithFeedback(
    queryTokens: readonly string[],
    limit: number,
    feedback: { documents: number; terms: number; weight: number },
    accept?: (slot: number) => boolean,
    statistics?: ScoreSink,
    corpus?: Bm25Corpus,
    inspect?: ScoresInspector,
  ): { results: { slot: number; score: number }[]; weights: Map<string, number> } {
    const unique = new Set(queryTokens);
    const weights = new Map<string, number>([...unique].map((term) => [term, 1]));
    if (this.liveCount === 0 || limit <= 0) return { results: [], weights };
    this.accumulate(unique, undefined, corpus);
    if (unique.size === 0 || feedback.documents <= 0 || feedback.terms <= 0 || feedback.weight <= 0) return { results: this.finish(limit, accept, statistics, inspect, weights), weights };
    const top = this.collect(feedback.documents, accept, false).map(({ slot }) => slot);
    const expansion = this.expansionWeights(top, unique, feedback, corpus);
    for (const [term, weight] of expansion) weights.set(term, weight);
    this.accumulate(expansion.keys(), expansion, corpus);
    return { results: this.finish(limit, accept, statistics, inspect, weights), weights };
  }

  /**
   * The feedback terms of top-ranked `slots` as query weights: the best `feedback.terms` terms not in `exclude`,
   * each at `feedback.weight` times its score over the best one's (idf from `corpus`, the live corpus by default).
   */
  expansionWeights(slots: readonly number[], exclude: ReadonlySet<string>, feedback: { terms: number; weight: number }, corpus?: Bm25Corpus): Map<string, number> {
    const weights = new Map<string, number>();
    const expansion = this.feedbackTerms(slots, exclude, feedback.terms, corpus);
    const best = expansion[0]?.score ?? 0;
    for (const { term, score } of expansion) if (best > 0) weights.set(term, feedback.weight * (score / best));
    return weights;
  }

  /**
   * A scorer of single slots for a query: a slot's score from its own terms, summed in the query's order, the same
   * double `search` and `scoreOf` give (0 for a slot outside `corpus`, removed, or matching no term), at a cost in
   * the slot's terms, not the query's postings. Valid until the index changes.
   *
   * @example
   * ```ts
   * const score = index.slotScorer(['dragon', 'roars']);
   * score(1); // index.scoreOf(['dragon', 'roars'], 1)
   * ```
   */
  slotScorer(queryTerms: readonly string[], termWeights?: ReadonlyMap<string, number>, corpus?: Bm25Corpus): (slot: number) => number {
    let norms: Float64Array;
    if (corpus === undefined) {
      norms = this.currentNorms();
    } else {
      let known = this.corpusNorms.get(corpus);
      if (known === undefined) {
        const { k1, b } = this.parameters;
        const averageLength = corpus.averageLength || 1;
        known = new Float64Array(this.slotCount);
        for (let slot = 0; slot < this.slotCount; slot++) known[slot] = k1 * (1 - b + (b * (this.lengths[slot] as number)) / averageLength);
        this.corpusNorms.set(corpus, known);
      }
      norms = known;
    }
    const ids: number[] = [];
    const multipliers: number[] = [];
    for (const term of new Set(queryTerms)) {
      const id = this.termIds.get(term);
      if (id === undefined || (corpus === undefined ? this.documentFrequency[id] === 0 : corpus.frequency(id) === 0)) continue;
      ids.push(id);
      multipliers.push((corpus === undefined ? this.idf(term) : this.idf(term, corpus)) * (termWeights?.get(term) ?? 1));
    }
    const live = corpus === undefined ? this.alive : corpus.mask;
    return (slot) => this.scoreInOrder(slot, ids, multipliers, norms, live);
  }

  /** A slot's score for `slotScorer`'s terms (ids aligned with their multipliers), from the slot's own terms, summed in the query's order. */
  private scoreInOrder(slot: number, ids: readonly number[], multipliers: readonly number[], norms: Float64Array, live: Uint8Array): number {
    if (live[slot] !== 1 || ids.length === 0) return 0;
    this.readTerms(slot);
    this.queryMarks = grow(this.queryMarks, this.termNames.length);
    const marks = this.queryMarks;
    for (let position = 0; position < ids.length; position++) marks[ids[position] as number] = position + 1;
    const parts = this.partScratch.length >= ids.length ? this.partScratch : (this.partScratch = new Float64Array(ids.length));
    parts.fill(0, 0, ids.length);
    const k1 = this.parameters.k1;
    const norm = norms[slot] as number;
    for (let position = this.termsStart[slot] as number; position < (this.termsStart[slot + 1] as number); position++) {
      const mark = marks[this.termsFlat[position] as number] as number;
      if (mark === 0) continue;
      const frequency = this.frequenciesFlat[position] as number;
      parts[mark - 1] = ((multipliers[mark - 1] as number) * frequency * (k1 + 1)) / (frequency + norm);
    }
    for (const id of ids) marks[id] = 0;
    let score = 0;
    for (let position = 0; position < ids.length; position++) score += parts[position] as number;
    return score;
  }

  /** The length normalisation of every slot under the current statistics (recomputed only when they change). */
  private currentNorms(): Float64Array {
    const key = `${this.liveCount}:${this.totalLength}:${this.slotCount}`;
    if (key !== this.normsKey) {
      if (this.norms.length < this.slotCount) this.norms = new Float64Array(this.lengths.length);
      this.normsInto(this.norms);
      this.normsKey = key;
    }
    return this.norms;
  }

  /** Fills `target` with every slot's length normalisation under the current statistics (`currentNorms`'s values). */
  private normsInto(target: Float64Array): Float64Array {
    const { k1, b } = this.parameters;
    const averageLength = this.averageLength || 1;
    for (let slot = 0; slot < this.slotCount; slot++) target[slot] = k1 * (1 - b + (b * (this.lengths[slot] as number)) / averageLength);
    return target;
  }

  /**
   * Adds each term's BM25 contribution to the scratch scores, in the order given (so sums are reproducible), under
   * the live corpus's statistics or `corpus`'s (then only its documents are scored).
   */
  private accumulate(terms: Iterable<string>, termWeights?: ReadonlyMap<string, number>, corpus?: Bm25Corpus): void {
    if (corpus !== undefined) {
      this.accumulateWithin(terms, termWeights, corpus);
      return;
    }
    const { k1 } = this.parameters;
    this.scratch = grow(this.scratch, this.slotCount);
    this.touched = grow(this.touched, this.slotCount);
    const scores = this.scratch;
    const touched = this.touched;
    const alive = this.alive;
    const norms = this.currentNorms();
    this.post();
    let count = this.touchedCount;
    for (const term of terms) {
      const id = this.termIds.get(term);
      if (id === undefined || this.documentFrequency[id] === 0) continue;
      const idf = this.idf(term) * (termWeights?.get(term) ?? 1);
      const list = this.list(id);
      const slots = list.slots;
      const frequencies = list.frequencies;
      for (let index = 0; index < list.length; index++) {
        const slot = slots[index] as number;
        if (alive[slot] !== 1) continue;
        const frequency = frequencies[index] as number;
        if (scores[slot] === 0) touched[count++] = slot;
        scores[slot] = (scores[slot] as number) + (idf * frequency * (k1 + 1)) / (frequency + (norms[slot] as number));
      }
    }
    this.touchedCount = count;
  }

  /** `accumulate` under the statistics of `corpus`: its documents alone are scored, with their N, lengths and frequencies. */
  private accumulateWithin(terms: Iterable<string>, termWeights: ReadonlyMap<string, number> | undefined, corpus: Bm25Corpus): void {
    const { k1, b } = this.parameters;
    this.scratch = grow(this.scratch, this.slotCount);
    this.touched = grow(this.touched, this.slotCount);
    const scores = this.scratch;
    const touched = this.touched;
    const lengths = this.lengths;
    const averageLength = corpus.averageLength || 1;
    const mask = corpus.mask;
    this.post();
    let count = this.touchedCount;
    for (const term of terms) {
      const id = this.termIds.get(term);
      if (id === undefined || corpus.frequency(id) === 0) continue;
      const idf = this.idf(term, corpus) * (termWeights?.get(term) ?? 1);
      const list = this.list(id);
      const slots = list.slots;
      const frequencies = list.frequencies;
      for (let index = 0; index < list.length; index++) {
        const slot = slots[index] as number;
        if (mask[slot] !== 1) continue;
        const frequency = frequencies[index] as number;
        const norm = k1 * (1 - b + (b * (lengths[slot] as number)) / averageLength);
        if (scores[slot] === 0) touched[count++] = slot;
        scores[slot] = (scores[slot] as number) + (idf * frequency * (k1 + 1)) / (frequency + norm);
      }
    }
    this.touchedCount = count;
  }

  /**
   * The best `limit` accepted slots of the scratch scores; `reset` clears the scratch for the next query;
   * `statistics` receives every accepted score above zero.
   */
  private collect(limit: number, accept: ((slot: number) => boolean) | undefined, reset: boolean, statistics?: ScoreSink): { slot: number; score: number }[] {
    const top = new TopK(limit);
    const scores = this.scratch;
    const touched = this.touched;
    let threshold = top.threshold;
    if (statistics !== undefined) {
      this.matchSlots = grow(this.matchSlots, this.touchedCount);
      this.matchScores = grow(this.matchScores, this.touchedCount);
    }
    const matchSlots = this.matchSlots;
    const matchScores = this.matchScores;
    let matches = 0;
    for (let index = 0; index < this.touchedCount; index++) {
      const slot = touched[index] as number;
      const score = scores[slot] as number;
      if (reset) scores[slot] = 0;
      if (statistics !== undefined) {
        if (score > 0 && (accept === undefined || accept(slot))) {
          matchSlots[matches] = slot;
          matchScores[matches++] = score;
          if (score >= threshold) {
            top.push(slot, score);
            threshold = top.threshold;
          }
        }
      } else if (score > 0 && score >= threshold && (accept === undefined || accept(slot))) {
        top.push(slot, score);
        threshold = top.threshold;
      }
    }
    statistics?.addMany(matchScores, matchSlots, matches);
    if (reset) this.touchedCount = 0;
    return top.sorted();
  }

  /**
   * Pseudo-relevance feedback terms: the terms of the given (top-ranked) documents that are not in the query,
   * scored by sum over those documents of tf/length x idf (from `corpus`, the live corpus by default), best
   * first. Ties go to the earlier term.
   */
  feedbackTerms(slots: readonly number[], exclude: ReadonlySet<string>, count: number, corpus?: Bm25Corpus): { term: string; score: number }[] {
    const scores = new Map<number, number>();
    for (const slot of slots) {
      if (this.alive[slot] !== 1) continue;
      this.readTerms(slot);
      const length = Math.max(1, this.lengths[slot] as number);
      for (let position = this.termsStart[slot] as number; position < (this.termsStart[slot + 1] as number); position++) {
        const id = this.termsFlat[position] as number;
        if (exclude.has(this.termNames[id] as string)) continue;
        // The document's own frequency of the term (the one its posting holds): no list is read for it, so the
        // terms of the feedback documents that are not chosen cost no decoding of their postings.
        scores.set(id, (scores.get(id) ?? 0) + ((this.frequenciesFlat[position] as number) / length) * this.idf(this.termNames[id] as string, corpus));
      }
    }
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, count)
      .map(([id, score]) => ({ term: this.termNames[id] as string, score }));
  }

  /** How often term `id` occurs in `slot` (binary search of its postings). */
  private frequencyIn(id: number, slot: number): number {
    this.post();
    const list = this.list(id);
    let low = 0;
    let high = list.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const found = list.slots[middle] as number;
      if (found === slot) return list.frequencies[middle] as number;
      if (found < slot) low = middle + 1;
      else high = middle - 1;
    }
    return 0;
  }

  /**
   * The BM25 score of one slot for deduplicated query terms (0 when removed or without a common term), under the
   * live corpus's statistics or `corpus`'s (0 for a slot outside it).
   */
  scoreOf(queryTerms: readonly string[], slot: number, termWeights?: ReadonlyMap<string, number>, corpus?: Bm25Corpus): number {
    if (this.alive[slot] !== 1 || (corpus !== undefined && !corpus.within(slot))) return 0;
    const { k1, b } = this.parameters;
    const averageLength = corpus === undefined ? this.averageLength : corpus.averageLength;
    const norm = k1 * (1 - b + (b * (this.lengths[slot] as number)) / (averageLength || 1));
    let score = 0;
    for (const term of new Set(queryTerms)) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const frequency = this.frequencyIn(id, slot);
      if (frequency > 0) score += (this.idf(term, corpus) * (termWeights?.get(term) ?? 1) * frequency * (k1 + 1)) / (frequency + norm);
    }
    return score;
  }

  /** The BM25 score of every slot for a query (0 for removed or non-matching), for inspection and tests. */
  scoreAll(queryTokens: readonly string[]): Float64Array {
    const result = new Float64Array(this.slotCount);
    for (const { slot, score } of this.search(queryTokens, this.slotCount)) result[slot] = score;
    return result;
  }
}

/**
 * Builds a BM25 index over `texts` (slot i = texts[i]). Keep it while the texts are unchanged.
 *
 * @example
 * ```ts
 * const index = buildBm25(['the dragon sleeps', 'the knight rides']);
 * rankWithBm25(index, 'dragon', ['a', 'b']); // ['a']
 * ```
 */
export function buildBm25(texts: readonly string[], parameters: Partial<Bm25Parameters> = {}): Bm25Index {
  const index = new Bm25Index(parameters);
  for (const text of texts) index.add(text);
  return index;
}

/**
 * Ranks `ids` (aligned 1:1 with the texts the index was built from) against a query, best first, dropping
 * zero scores; ties keep input order. An empty query (no usable tokens) ranks nothing.
 *
 * @example
 * ```ts
 * rankWithBm25(buildBm25(['red door', 'blue door']), 'blue', ['r', 'b']); // ['b']
 * ```
 */
export function rankWithBm25(index: Bm25Index, queryText: string, ids: readonly string[]): string[] {
  return index.search(tokenize(queryText), ids.length).map(({ slot }) => ids[slot] as string);
}

/**
 * One-shot BM25 ranking: builds an index over `texts` and ranks `ids` against the query.
 *
 * @example
 * ```ts
 * rankByBm25('Kaël', ['a', 'b'], ['Kaël draws his sword', 'The inn is quiet']); // ['a']
 * ```
 */
export function rankByBm25(queryText: string, ids: readonly string[], texts: readonly string[]): string[] {
  return rankWithBm25(buildBm25(texts), queryText, ids);
}

/** The bytes a term's kept bounds hold. */
function boundBytes(bounds: TermBlockBounds): number {
  return bounds.starts.byteLength + (bounds.offsets?.byteLength ?? 0) + (bounds.peakBlocks?.byteLength ?? 0) + bounds.peaks.byteLength + (bounds.windowBlocks?.byteLength ?? 0) + bounds.windows.byteLength;
}
