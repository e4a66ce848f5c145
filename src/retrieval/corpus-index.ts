// One save's search index in memory: BM25 postings, vectors and the attributes filters read, by slot.
import type { ChunkFilter } from '../core/types.js';
import type { IndexRow } from '../seams/store.js';
import { Bm25Index } from './bm25.js';
import type { Bm25Parameters } from './bm25.js';
import { grow } from './grow.js';
import { tokenize } from './tokenize.js';
import { VectorIndex } from './vector-index.js';

/** Turns text into index terms. The default is `tokenize`. */
export type Analyzer = (text: string) => string[];

/** A filter on slots, applied before ranking. */
export type SlotFilter = (slot: number) => boolean;

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
  private readonly ids: string[] = [];
  private readonly slotsById = new Map<string, number>();
  private turnIds = new Int32Array(64);
  private typeIds = new Int32Array(64);
  private readonly typeNames = new Map<string, number>();
  private removedCount = 0;
  /** Vectors refused because their length differed from the index's. */
  mismatchedVectors = 0;

  /** False when the store searches vectors itself: only their length is kept, not the vectors. */
  private readonly keepVectors: boolean;
  private outsideDimensions: number | null = null;

  constructor(version: number, options: { analyzer?: Analyzer; bm25?: Partial<Bm25Parameters>; vectors?: boolean } = {}) {
    this.version = version;
    this.analyzer = options.analyzer ?? tokenize;
    this.bm25 = new Bm25Index(options.bm25);
    this.keepVectors = options.vectors ?? true;
  }

  /** The length of the corpus's vectors (fixed by the first one; null while there is none). */
  get vectorDimensions(): number | null {
    return this.keepVectors ? this.vectors.dimensions : this.outsideDimensions;
  }

  /** Live documents. */
  get size(): number {
    return this.bm25.size;
  }

  /** Share of slots that hold removed documents (a rebuild reclaims them). */
  get removedRatio(): number {
    return this.ids.length === 0 ? 0 : this.removedCount / this.ids.length;
  }

  /** Adds rows in order. */
  add(rows: readonly IndexRow[]): void {
    for (const row of rows) {
      const slot = this.bm25.addTokens(this.analyzer(row.text));
      this.ids[slot] = row.id;
      this.slotsById.set(row.id, slot);
      this.turnIds = grow(this.turnIds, slot + 1);
      this.typeIds = grow(this.typeIds, slot + 1);
      this.turnIds[slot] = row.turnId;
      this.typeIds[slot] = this.typeId(row.chunkType);
      if (this.keepVectors) {
        if (!this.vectors.set(slot, row.embedding)) this.mismatchedVectors++;
      } else {
        this.noteDimensions(row.embedding?.length ?? row.dimensions ?? null);
      }
    }
  }

  private noteDimensions(length: number | null): void {
    if (length === null) return;
    if (this.outsideDimensions === null) this.outsideDimensions = length;
    else if (length !== this.outsideDimensions) this.mismatchedVectors++;
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
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (!this.bm25.isAlive(slot) || !predicate(this.turnIds[slot] as number, this.typeIds[slot] as number)) continue;
      this.bm25.remove(slot);
      this.vectors.remove(slot);
      this.slotsById.delete(this.ids[slot] as string);
      removed++;
    }
    this.removedCount += removed;
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

  /** The lexical arm: BM25 over the save's own statistics, filtered before ranking. */
  lexical(queryTerms: readonly string[], limit: number, accept?: SlotFilter): { slot: number; score: number }[] {
    return this.bm25.search(queryTerms, limit, accept);
  }

  /** The semantic arm: exact cosine similarity, filtered before ranking. */
  semantic(queryVector: Float32Array, limit: number, accept?: SlotFilter): { slot: number; score: number }[] {
    return this.vectors.search(queryVector, limit, accept);
  }
}
