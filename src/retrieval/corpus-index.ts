// One corpus's search index in memory (a save's chunks, the lore book, a recall scope): BM25 postings, vectors and the attributes filters read, by slot.
import { Bm25Index } from './bm25.js';
import type { Bm25Parameters } from './bm25.js';
import { grow, reserve } from './grow.js';
import { QuantizedVectors } from './quantized-vectors.js';
import type { ScoreStatistics } from './score-statistics.js';
import { TokenIds } from './token-ids.js';
import { tokenize } from './tokenize.js';
import { dotProduct, VectorIndex } from './vector-index.js';

/** Turns text into index terms. The default is `tokenize`. */
export interface Analyzer {
  (text: string): string[];
  /**
   * Present when the analyzer works word by word: `analyzer(text)` is then `tokenize(text)` with each token
   * mapped through `termOf` and the nulls (stop words) dropped, so an index can cache each token's term id.
   */
  readonly termOf?: (token: string) => string | null;
}

/** Most distinct tokens an index caches the term id of (as many as the analyzer caches terms of). */
const TOKEN_CACHE_LIMIT = 200_000;

/** How a corpus index is built. */
export interface CorpusIndexOptions {
  analyzer?: Analyzer;
  bm25?: Partial<Bm25Parameters>;
  /**
   * Neighbour context for the semantic arm: each document is searched by normalise(own + w * (previous + next)),
   * its neighbours being the adjacent live documents with vectors in insertion order. 0 (default here) searches
   * own vectors.
   */
  neighbourWeight?: number;
  /**
   * False when the store searches vectors itself (`Store.vectorSearch`): the index keeps only their length,
   * and neighbour context is off. Default true.
   */
  vectors?: boolean;
}

/** Pseudo-relevance feedback settings: read the top `documents`, add their best `terms` at `weight`. */
export interface QueryFeedback {
  documents: number;
  terms: number;
  weight: number;
}

/** A filter on slots, applied before ranking. */
export type SlotFilter = (slot: number) => boolean;

/**
 * A document to index: a save's chunk, a lore entry, a remembered entry. Besides its text and vector it may carry
 * the attributes filters and removals read: its position in the corpus's timeline (a chunk's turn), its kind (a
 * chunk's type) and its labels (a lore entry's scope tags).
 */
export interface IndexDocument {
  id: string;
  text: string;
  embedding: Float32Array | null;
  /** The vector's length when the vectors stay in the store (an index made with `vectors: false`); absent otherwise. */
  dimensions?: number | null;
  /** Where the document sits in its corpus's timeline (any safe integer); absent: nowhere, and a position bound drops it. */
  position?: number;
  /** What kind of document it is; absent: no kind (a filter keeping one kind drops it). */
  kind?: string;
  /** Labels a filter can test (`labelsWithin`). */
  labels?: readonly string[];
}

/** Which documents may rank, by their attributes; every condition given must hold. */
export interface DocumentFilter {
  /** Only documents with a position at or below this. */
  maxPosition?: number;
  /** Only documents of this kind. */
  kind?: string;
  /** No documents of these kinds. */
  excludeKinds?: readonly string[];
  /** Only documents whose every label is one of these (a document without labels always passes). */
  labelsWithin?: Iterable<string>;
}

/**
 * A filter keeping the slots every given filter keeps (undefined filters are skipped; none left: undefined).
 *
 * @example
 * ```ts
 * const accept = combineFilters(index.filterFor({ maxPosition: 3 }), ownFilter);
 * ```
 */
export function combineFilters(...filters: (SlotFilter | undefined)[]): SlotFilter | undefined {
  const present = filters.filter((filter): filter is SlotFilter => filter !== undefined);
  if (present.length <= 1) return present[0];
  return (slot) => present.every((filter) => filter(slot));
}

/**
 * The in-memory index of one corpus (a save's chunks, the lore book, a recall scope). Slots follow insertion
 * order, so ties between equal scores always go to the earlier document. `version` records which store version
 * it reflects. With `{ vectors: false }` (a store that searches vectors itself) it keeps only their length.
 *
 * @example
 * ```ts
 * const index = new CorpusIndex(0);
 * index.add([{ id: 'a', position: 1, kind: 'narrative', text: 'The gate opens', embedding: null }]);
 * index.lexical(['gate'], 10); // [{ slot: 0, score: ... }]
 * ```
 */
export class CorpusIndex {
  version: number;
  readonly bm25: Bm25Index;
  readonly vectors = new VectorIndex();
  private readonly analyzer: Analyzer;
  /** Token -> its term's id in the BM25 index, -1 for a stop word (with `termOf`). */
  private readonly tokenTermIds: TokenIds | null;
  private termIdScratch: Int32Array = new Int32Array(64);
  private readonly ids: string[] = [];
  /** Document id -> live slot, made on the first `slotOf` (only a store that searches vectors itself asks). */
  private slotsById: Map<string, number> | null = null;
  /** Each slot's position (NaN: none). Float64 holds every safe integer exactly. */
  private positions = new Float64Array(64);
  /** Each slot's kind id (-1: none). */
  private kindIds = new Int32Array(64);
  private readonly kindNames = new Map<string, number>();
  private readonly labelIds = new Map<string, number>();
  private labelsFlat = new Int32Array(64);
  private labelsStart = new Int32Array(65);
  private removedCount = 0;
  /** Vectors refused because their length differed from the index's. */
  mismatchedVectors = 0;
  /**
   * With neighbour context, what the semantic arm scans: each document's context vector as int8, made on the first
   * semantic search and kept in step after. The exact context vector is recomputed from the own vectors when a
   * score is needed, so it is never kept as float32.
   */
  private contextVectors: QuantizedVectors | null = null;
  private contextBuffer = new Float32Array(0);
  private readonly neighbourWeight: number;
  /** False when the store searches vectors itself: only their length is kept, not the vectors. */
  private readonly keepVectors: boolean;
  private outsideDimensions: number | null = null;
  private previousLink = new Int32Array(64).fill(-1);
  private nextLink = new Int32Array(64).fill(-1);
  private tail = -1;

  constructor(version: number, options: CorpusIndexOptions = {}) {
    this.version = version;
    this.analyzer = options.analyzer ?? tokenize;
    const termOf = this.analyzer.termOf ?? (this.analyzer === tokenize ? (token: string) => token : null);
    this.tokenTermIds = termOf === null ? null : new TokenIds((token) => {
      const term = termOf(token);
      return term === null ? -1 : this.bm25.termId(term);
    }, TOKEN_CACHE_LIMIT);
    this.bm25 = new Bm25Index(options.bm25);
    this.keepVectors = options.vectors ?? true;
    this.neighbourWeight = this.keepVectors ? (options.neighbourWeight ?? 0) : 0;
  }

  /** The length of the corpus's vectors (fixed by the first one; null while there is none). */
  get vectorDimensions(): number | null {
    return this.keepVectors ? this.vectors.dimensions : this.outsideDimensions;
  }

  /**
   * The vector the semantic arm compares with a query for `slot` (its own vector, or its neighbour-context
   * vector), or null. The result is a scratch buffer, valid until the next call: copy it to keep it.
   */
  semanticVectorOf(slot: number): Float32Array | null {
    return this.neighbourWeight > 0 ? this.computeContext(slot) : this.vectors.vectorOf(slot);
  }

  /** The semantic arm's exact score of one slot (cosine with its own or its context vector), or null without a vector. */
  semanticScoreOf(query: Float32Array, slot: number): number | null {
    if (this.neighbourWeight <= 0) return this.vectors.scoreOf(query, slot);
    const vector = this.computeContext(slot);
    if (vector === null || vector.length !== query.length) return null;
    let dot = 0;
    for (let index = 0; index < vector.length; index++) dot += (vector[index] as number) * (query[index] as number);
    return dot;
  }

  /** Live documents. */
  get size(): number {
    return this.bm25.size;
  }

  /** Share of slots that hold removed documents (a rebuild reclaims them). */
  get removedRatio(): number {
    return this.ids.length === 0 ? 0 : this.removedCount / this.ids.length;
  }

  /**
   * Makes room for `count` more documents at once, with an eighth to spare for what play adds next: a rebuild
   * that knows its size allocates each array once.
   */
  reserve(count: number): void {
    const slots = this.bm25.slots + count + Math.ceil(count / 8);
    this.bm25.reserve(slots);
    this.vectors.reserve(slots);
    this.positions = reserve(this.positions, slots);
    this.kindIds = reserve(this.kindIds, slots);
    this.labelsStart = reserve(this.labelsStart, slots + 1);
    if (this.neighbourWeight > 0) {
      this.previousLink = reserve(this.previousLink, slots);
      this.nextLink = reserve(this.nextLink, slots);
    }
  }

  /** Adds documents in order. */
  add(rows: readonly IndexDocument[]): void {
    for (const row of rows) {
      const slot = this.tokenTermIds === null ? this.bm25.addTokens(this.analyzer(row.text)) : this.addText(row.text, this.tokenTermIds);
      this.ids[slot] = row.id;
      this.slotsById?.set(row.id, slot);
      this.positions = grow(this.positions, slot + 1);
      this.kindIds = grow(this.kindIds, slot + 1);
      this.positions[slot] = row.position ?? Number.NaN;
      this.kindIds[slot] = row.kind === undefined ? -1 : this.kindId(row.kind);
      this.setLabels(slot, row.labels ?? []);
      if (this.keepVectors) {
        if (!this.vectors.set(slot, row.embedding)) this.mismatchedVectors++;
      } else {
        this.noteDimensions(row.embedding?.length ?? row.dimensions ?? null);
      }
      if (this.neighbourWeight > 0 && this.vectors.has(slot)) {
        this.previousLink = grow(this.previousLink, slot + 1);
        this.nextLink = grow(this.nextLink, slot + 1);
        const previous = this.tail;
        this.previousLink[slot] = previous;
        this.nextLink[slot] = -1;
        if (previous >= 0) this.nextLink[previous] = slot;
        this.tail = slot;
        this.refreshContext(slot);
        if (previous >= 0) this.refreshContext(previous);
      }
    }
  }

  /** Indexes a text word by word, its tokens' term ids cached (the same terms, in the same order, as the analyzer's). */
  private addText(text: string, tokenTermIds: TokenIds): number {
    const { ids, count } = tokenTermIds.idsOf(text, this.termIdScratch);
    this.termIdScratch = ids;
    return this.bm25.addTermIds(ids, count);
  }

  private noteDimensions(length: number | null): void {
    if (length === null) return;
    if (this.outsideDimensions === null) this.outsideDimensions = length;
    else if (length !== this.outsideDimensions) this.mismatchedVectors++;
  }

  private setLabels(slot: number, labels: readonly string[]): void {
    let position = this.labelsStart[slot] as number;
    this.labelsFlat = grow(this.labelsFlat, position + labels.length);
    this.labelsStart = grow(this.labelsStart, slot + 2);
    for (const label of labels) {
      let id = this.labelIds.get(label);
      if (id === undefined) {
        id = this.labelIds.size;
        this.labelIds.set(label, id);
      }
      this.labelsFlat[position++] = id;
    }
    this.labelsStart[slot + 1] = position;
  }

  /** The neighbouring live slot with a vector before (-1) or after (+1) `slot`, or null. */
  private neighbour(slot: number, direction: -1 | 1): number | null {
    const other = direction === -1 ? this.previousLink[slot] : this.nextLink[slot];
    return other === undefined || other < 0 ? null : other;
  }

  /** Takes a slot out of the neighbour chain; returns its former neighbours. */
  private unlink(slot: number): number[] {
    if (slot >= this.previousLink.length || !this.vectors.has(slot)) return [];
    const previous = this.previousLink[slot] as number;
    const next = this.nextLink[slot] as number;
    if (previous >= 0) this.nextLink[previous] = next;
    if (next >= 0) this.previousLink[next] = previous;
    if (this.tail === slot) this.tail = previous;
    this.previousLink[slot] = -1;
    this.nextLink[slot] = -1;
    return [previous, next].filter((other) => other >= 0);
  }

  /**
   * The context vector of a live slot with a vector, normalise(own + w * (previous + next)), computed in float32
   * into a scratch buffer (valid until the next call); null otherwise.
   */
  private computeContext(slot: number): Float32Array | null {
    const dims = this.vectors.dimensions;
    if (dims === null || !this.vectors.has(slot) || !this.bm25.isAlive(slot)) return null;
    if (this.contextBuffer.length !== dims) this.contextBuffer = new Float32Array(dims);
    const mixed = this.contextBuffer;
    this.vectors.copyTo(mixed, slot);
    // Each sum is stored in float32, the previous neighbour's first, then the next one's.
    const previous = this.neighbour(slot, -1);
    if (previous !== null) this.vectors.addScaledTo(mixed, previous, this.neighbourWeight);
    const next = this.neighbour(slot, 1);
    if (next !== null) this.vectors.addScaledTo(mixed, next, this.neighbourWeight);
    let norm = 0;
    for (let index = 0; index < dims; index++) norm += (mixed[index] as number) * (mixed[index] as number);
    norm = Math.sqrt(norm);
    if (norm > 0) for (let index = 0; index < dims; index++) mixed[index] = (mixed[index] as number) / norm;
    return mixed;
  }

  private refreshContext(slot: number): void {
    this.contextVectors?.set(slot, this.computeContext(slot));
  }

  private kindId(kind: string): number {
    let id = this.kindNames.get(kind);
    if (id === undefined) {
      id = this.kindNames.size;
      this.kindNames.set(kind, id);
    }
    return id;
  }

  /** Removes every live document `select` picks by slot; returns how many. */
  private removeSlots(select: (slot: number) => boolean): number {
    let removed = 0;
    const refresh = new Set<number>();
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (!this.bm25.isAlive(slot) || !select(slot)) continue;
      if (this.neighbourWeight > 0) {
        for (const other of this.unlink(slot)) refresh.add(other);
        refresh.delete(slot);
        this.contextVectors?.remove(slot);
      }
      this.bm25.remove(slot);
      this.vectors.remove(slot);
      this.slotsById?.delete(this.ids[slot] as string);
      removed++;
    }
    this.removedCount += removed;
    for (const slot of refresh) if (this.bm25.isAlive(slot)) this.refreshContext(slot);
    return removed;
  }

  /** Removes the live documents with these ids; returns how many. */
  remove(ids: Iterable<string>): number {
    const removed = new Set(ids);
    if (removed.size === 0) return 0;
    return this.removeSlots((slot) => removed.has(this.ids[slot] as string));
  }

  /** Removes the documents positioned after `position` (a rewind); those without a position stay. */
  removeAfter(position: number): number {
    const positions = this.positions;
    return this.removeSlots((slot) => (positions[slot] as number) > position);
  }

  /** Removes the documents at `position` of one kind (a turn's chunks of one type, replaced). */
  removeAt(position: number, kind: string): number {
    const id = this.kindNames.get(kind);
    if (id === undefined) return 0;
    const positions = this.positions;
    const kindIds = this.kindIds;
    return this.removeSlots((slot) => positions[slot] === position && kindIds[slot] === id);
  }

  /** The document id stored in a slot. */
  idOf(slot: number): string {
    return this.ids[slot] as string;
  }

  /** The terms the analyzer makes of a text (the same ones the index holds). */
  analyze(text: string): string[] {
    return this.analyzer(text);
  }

  /**
   * The slot filter of a document filter (position bound, kind kept or dropped, labels held), or undefined when
   * nothing is filtered. Filters are applied by every arm before ranking.
   *
   * @example
   * ```ts
   * index.filterFor({ maxPosition: 12, excludeKinds: ['lore'] });
   * ```
   */
  filterFor(filter: DocumentFilter): SlotFilter | undefined {
    const { maxPosition } = filter;
    // A kind the index has never seen matches no document: -2 is no slot's kind id (-1 is "no kind").
    const keep = filter.kind === undefined ? undefined : (this.kindNames.get(filter.kind) ?? -2);
    // Kinds the index has never seen drop nothing.
    const drop = filter.excludeKinds === undefined ? [] : filter.excludeKinds.flatMap((kind) => { const id = this.kindNames.get(kind); return id === undefined ? [] : [id]; });
    const labels = filter.labelsWithin === undefined ? undefined : this.labelSubsetFilter(filter.labelsWithin);
    const attributes = maxPosition === undefined && keep === undefined && drop.length === 0 ? undefined : this.attributeFilter(maxPosition, keep, drop);
    return combineFilters(attributes, labels);
  }

  private attributeFilter(maxPosition: number | undefined, keep: number | undefined, drop: readonly number[]): SlotFilter {
    const positions = this.positions;
    const kindIds = this.kindIds;
    return (slot) =>
      (maxPosition === undefined || (positions[slot] as number) <= maxPosition) &&
      (keep === undefined || kindIds[slot] === keep) &&
      (drop.length === 0 || !drop.includes(kindIds[slot] as number));
  }

  /**
   * A slot filter keeping the documents whose every label is in `held` (AND); a document without labels always
   * passes. Built in one pass over the held labels, then O(labels of the slot) per slot.
   */
  labelSubsetFilter(held: Iterable<string>): SlotFilter {
    const mask = new Uint8Array(this.labelIds.size);
    for (const label of held) {
      const id = this.labelIds.get(label);
      if (id !== undefined) mask[id] = 1;
    }
    const flat = this.labelsFlat;
    const start = this.labelsStart;
    return (slot) => {
      for (let position = start[slot] as number; position < (start[slot + 1] as number); position++) {
        if (mask[flat[position] as number] !== 1) return false;
      }
      return true;
    };
  }

  /** The lexical arm: BM25 over the save's own statistics, filtered before ranking; terms may carry weights. */
  lexical(queryTerms: readonly string[], limit: number, accept?: SlotFilter, termWeights?: ReadonlyMap<string, number>, statistics?: ScoreStatistics): { slot: number; score: number }[] {
    return this.bm25.search(queryTerms, limit, accept, termWeights, statistics);
  }

  /**
   * Pseudo-relevance feedback: runs the query, takes the terms that best characterise its top `documents`
   * accepted hits, and returns the query with the `terms` best of them added at `weight` times their score
   * share (the original terms keep weight 1).
   */
  expandQuery(queryTerms: readonly string[], feedback: QueryFeedback, accept?: SlotFilter): { terms: string[]; weights: Map<string, number> } {
    const weights = new Map<string, number>(queryTerms.map((term) => [term, 1]));
    if (queryTerms.length === 0 || feedback.documents <= 0 || feedback.terms <= 0 || feedback.weight <= 0) return { terms: [...weights.keys()], weights };
    const top = this.bm25.search(queryTerms, feedback.documents, accept).map(({ slot }) => slot);
    for (const [term, weight] of this.bm25.expansionWeights(top, new Set(queryTerms), feedback)) weights.set(term, weight);
    return { terms: [...weights.keys()], weights };
  }

  /**
   * The lexical arm with pseudo-relevance feedback, as `lexical(expandQuery(...))` gives it, scoring the query's
   * own terms once. Returns the ranked slots and the expanded query (terms and weights).
   */
  lexicalWithFeedback(
    queryTerms: readonly string[],
    limit: number,
    feedback: QueryFeedback,
    accept?: SlotFilter,
    statistics?: ScoreStatistics,
  ): { results: { slot: number; score: number }[]; terms: string[]; weights: Map<string, number> } {
    const { results, weights } = this.bm25.searchWithFeedback(queryTerms, limit, feedback, accept, statistics);
    return { results, terms: [...weights.keys()], weights };
  }

  /**
   * Makes what the first semantic search would make (the int8 copy of the vectors it scans), so no query pays for
   * it; returns that copy (null without vectors held in the index).
   *
   * @example
   * ```ts
   * index.prepare(); // after loading, before the first query
   * ```
   */
  prepare(): QuantizedVectors | null {
    if (!this.keepVectors || this.vectors.dimensions === null) return null;
    if (this.neighbourWeight <= 0) return this.vectors.prepare();
    // Centred on the mean own vector: close to the contexts' mean, and one pass cheaper than computing it.
    this.contextVectors ??= QuantizedVectors.build(this.bm25.slots, (slot) => this.computeContext(slot), this.vectors.mean());
    return this.contextVectors;
  }

  /**
   * The semantic arm: exact cosine similarity (with neighbour context when configured), filtered before ranking.
   * Context vectors are scanned as int8; the rows that can rank get their exact score from a recomputed context.
   */
  semantic(queryVector: Float32Array, limit: number, accept?: SlotFilter, statistics?: ScoreStatistics): { slot: number; score: number }[] {
    if (this.neighbourWeight <= 0) return this.vectors.search(queryVector, limit, accept, statistics);
    const contexts = this.prepare();
    if (contexts === null) return [];
    const dims = queryVector.length;
    return contexts.search(queryVector, limit, (slot) => dotProduct(this.computeContext(slot) as Float32Array, 0, queryVector, dims), accept, statistics);
  }

  /** The slot holding a document id, or undefined. */
  slotOf(id: string): number | undefined {
    if (this.slotsById === null) {
      this.slotsById = new Map();
      for (let slot = 0; slot < this.ids.length; slot++) if (this.bm25.isAlive(slot)) this.slotsById.set(this.ids[slot] as string, slot);
    }
    return this.slotsById.get(id);
  }
}
