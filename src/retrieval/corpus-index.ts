// One corpus's search index in memory (a save's chunks, the lore book): BM25 postings, vectors and the attributes filters read, by slot.
import type { ChunkFilter } from '../core/types.js';
import type { IndexRow } from '../seams/store.js';
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
   * Neighbour context for the semantic arm: each chunk is searched by normalise(own + w * (previous + next)),
   * its neighbours being the adjacent live chunks in insertion order. 0 (default here) searches own vectors.
   */
  neighbourWeight?: number;
  /**
   * False when the store searches vectors itself (`Store.searchVectors`): the index keeps only their length,
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

/** A row to index, with optional labels a filter can test (e.g. the scope tags of a lore entry). */
export interface IndexDocument extends IndexRow {
  labels?: readonly string[];
}

/**
 * A filter keeping the slots every given filter keeps (undefined filters are skipped; none left: undefined).
 *
 * @example
 * ```ts
 * const accept = combineFilters(index.filterFor({ maxTurnId: 3 }), index.labelSubsetFilter(['guild']));
 * ```
 */
export function combineFilters(...filters: (SlotFilter | undefined)[]): SlotFilter | undefined {
  const present = filters.filter((filter): filter is SlotFilter => filter !== undefined);
  if (present.length <= 1) return present[0];
  return (slot) => present.every((filter) => filter(slot));
}

/**
 * The in-memory index of one corpus (a save's chunks). Slots follow insertion order, so ties between equal
 * scores always go to the earlier chunk. `version` records which store version it reflects. With
 * `{ vectors: false }` (a store that searches vectors itself) it keeps only their length.
 *
 * @example
 * ```ts
 * const index = new CorpusIndex(0);
 * index.add([{ id: 'a', turnId: 1, chunkType: 'narrative', text: 'The gate opens', embedding: null }]);
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
  /** Chunk id -> live slot, made on the first `slotOf` (only a store that searches vectors itself asks). */
  private slotsById: Map<string, number> | null = null;
  private turnIds = new Int32Array(64);
  private typeIds = new Int32Array(64);
  private readonly typeNames = new Map<string, number>();
  private readonly labelIds = new Map<string, number>();
  private labelsFlat = new Int32Array(64);
  private labelsStart = new Int32Array(65);
  private removedCount = 0;
  /** Vectors refused because their length differed from the index's. */
  mismatchedVectors = 0;
  /**
   * With neighbour context, what the semantic arm scans: each chunk's context vector as int8, made on the first
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
    this.turnIds = reserve(this.turnIds, slots);
    this.typeIds = reserve(this.typeIds, slots);
    this.labelsStart = reserve(this.labelsStart, slots + 1);
    if (this.neighbourWeight > 0) {
      this.previousLink = reserve(this.previousLink, slots);
      this.nextLink = reserve(this.nextLink, slots);
    }
  }

  /** Adds rows in order. */
  add(rows: readonly IndexDocument[]): void {
    for (const row of rows) {
      const slot = this.tokenTermIds === null ? this.bm25.addTokens(this.analyzer(row.text)) : this.addText(row.text, this.tokenTermIds);
      this.ids[slot] = row.id;
      this.slotsById?.set(row.id, slot);
      this.turnIds = grow(this.turnIds, slot + 1);
      this.typeIds = grow(this.typeIds, slot + 1);
      this.turnIds[slot] = row.turnId;
      this.typeIds[slot] = this.typeId(row.chunkType);
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

  private typeId(chunkType: string): number {
    let id = this.typeNames.get(chunkType);
    if (id === undefined) {
      id = this.typeNames.size;
      this.typeNames.set(chunkType, id);
    }
    return id;
  }

  /** Removes every live document `predicate` selects (by turn and type); returns how many. */
  removeWhere(predicate: (turnId: number, chunkType: number) => boolean): number {
    let removed = 0;
    const refresh = new Set<number>();
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (!this.bm25.isAlive(slot) || !predicate(this.turnIds[slot] as number, this.typeIds[slot] as number)) continue;
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

  /** Removes the documents of turns after `turnId` (a rewind). */
  removeAfterTurn(turnId: number): number {
    return this.removeWhere((turn) => turn > turnId);
  }

  /** Removes one turn's documents of one type (an updateTurn). */
  removeTurn(turnId: number, chunkType: string): number {
    const type = this.typeNames.get(chunkType);
    if (type === undefined) return 0;
    return this.removeWhere((turn, typeId) => turn === turnId && typeId === type);
  }

  /** The chunk id stored in a slot. */
  idOf(slot: number): string {
    return this.ids[slot] as string;
  }

  /** The terms the analyzer makes of a text (the same ones the index holds). */
  analyze(text: string): string[] {
    return this.analyzer(text);
  }

  /** A slot filter for turn window and chunk type, or undefined when nothing is filtered. */
  filterFor(filter: ChunkFilter): SlotFilter | undefined {
    const bounds = [filter.maxTurnId, filter.currentTurnId].filter((bound): bound is number => bound !== undefined);
    const maxTurn = bounds.length === 0 ? undefined : Math.min(...bounds);
    const keep = filter.chunkType === undefined ? undefined : (this.typeNames.get(filter.chunkType) ?? -1);
    const drop = filter.excludeChunkType === undefined ? undefined : (this.typeNames.get(filter.excludeChunkType) ?? -1);
    if (maxTurn === undefined && keep === undefined && drop === undefined) return undefined;
    const turnIds = this.turnIds;
    const typeIds = this.typeIds;
    return (slot) =>
      (maxTurn === undefined || (turnIds[slot] as number) <= maxTurn) &&
      (keep === undefined || typeIds[slot] === keep) &&
      (drop === undefined || typeIds[slot] !== drop);
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

  /** The slot holding a chunk id, or undefined. */
  slotOf(id: string): number | undefined {
    if (this.slotsById === null) {
      this.slotsById = new Map();
      for (let slot = 0; slot < this.ids.length; slot++) if (this.bm25.isAlive(slot)) this.slotsById.set(this.ids[slot] as string, slot);
    }
    return this.slotsById.get(id);
  }
}
