// One corpus's search index in memory (a save's chunks, the lore book, a recall scope): BM25 postings, vectors and the attributes filters read, by slot.
import { noSteps, runSteps, STEP_ROWS, TimeSlice } from '../core/time-slice.js';
import type { Steps } from '../core/time-slice.js';
import { Bm25Index } from './bm25.js';
import { contextKernel, mixContext } from './context-dot-kernel.js';
import type { JsonValue, MetadataClause } from '../core/types.js';
import { DocumentContext } from './document-context.js';
import { DocumentFields } from './document-fields.js';
import type { ContextFields } from './document-context.js';
import type { Bm25Corpus, Bm25Parameters } from './bm25.js';
import { grow, reserve } from './grow.js';
import { DocumentIds } from './document-ids.js';
import { readIdList } from './id-list.js';
import { readWidened, writeNarrowest } from './narrow-integers.js';
import type { IdList } from './id-list.js';
import { appendSlot, chainLiveSlots, unlinkSlot } from './slot-chain.js';
import { QuantizedVectors } from './quantized-vectors.js';
import type { ScoreSink, ScoreStatistics } from './score-statistics.js';
import { SnapshotRejected } from './snapshot-format.js';
import type { SnapshotReader, SnapshotWriter } from './snapshot-format.js';
import { TokenIds } from './token-ids.js';
import { tokenize } from './tokenize.js';
import { VectorIndex } from './vector-index.js';
import type { SlotOrder } from './window-sum.js';
import { WordRows } from './word-rows.js';
import type { WordTable } from './word-rows.js';

/** Turns text into index terms. The default is `tokenize`. */
export interface Analyzer {
  (text: string): string[];
  /**
   * Present when the analyzer works word by word: `analyzer(text)` is then `tokenize(text)` with each token
   * mapped through `termOf` and the nulls (stop words) dropped, so an index can cache each token's term id.
   */
  readonly termOf?: (token: string) => string | null;
  /**
   * Names what the analyzer does (language, stemming, stop words, revision), so a persisted index is used only by
   * an analyzer that makes the same terms. Absent: indexes made with it are never persisted.
   */
  readonly identity?: string;
}

/** Heap bytes of one term (its map entry, its string, its slot in the name list), measured. */
const TERM_BYTES = 100;
/** Heap bytes of one document id (a 36-character UUID string and its slot), measured. */
const ID_BYTES = 56;
/** What an index holds besides its arrays, strings and scan memory (objects, WebAssembly instances, slack), measured. */
const INDEX_OVERHEAD_BYTES = 256 * 1024;

/**
 * The per-slot integer sections written at their narrowest width (`writeNarrowest`): read apart from the others,
 * so the narrow bytes are dropped once widened.
 */
const NARROWED_SECTIONS = ['positions', 'kindIds', 'bm25.lengths', 'context.speakers', 'context.scenes', 'context.days'];

/** Most distinct tokens an index caches the term id of (as many as the analyzer caches terms of). */
const TOKEN_CACHE_LIMIT = 200_000;
/**
 * Documents an empty index's first write must hold to be taken as a bulk load's (its vectors then spilled for its
 * int8 copy, see `CorpusIndexOptions.scratchDirectory`): a save written turn by turn never opens a scratch file.
 */
const BULK_LOAD_ROWS = 1024;

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
  /**
   * What the documents' context (speaker, scene, day) was read from, e.g. the metadata roles: part of the
   * configuration, so a persisted index read with other roles is not used. Default: none.
   */
  contextSource?: string;
  /**
   * The static embedder's word table (`wordTableOf`): each document's distinct content words are then kept as its
   * rows (`wordRows`, persisted with the index), for soft word matching. Absent (any other embedder): no rows, and
   * soft matching is off.
   */
  wordTable?: WordTable | null;
  /**
   * Reads the float32 vectors of documents by id from the store, synchronously, in the order asked (null: not
   * there, or without a vector); `Store.chunkVectors`. Given, a persisted index leaves its float32 vectors out
   * (the store holds them; the file keeps the int8 copy the scan reads) and a query reads the rows it rescores
   * from the store; an index built here keeps none of them either (every vector it is given is in the store
   * already): its int8 copy is made from the rows read back a block at a time. Absent: they are kept in memory and
   * persisted with the index.
   */
  vectorRows?: ((ids: readonly string[]) => (Float32Array | null)[]) | null;
  /**
   * With `vectorRows`: a folder where an index started empty by a bulk load (a first write of BULK_LOAD_ROWS
   * documents or more; at most MAX_OPEN_SPILLS at once in a process) keeps the vectors it is given in a scratch
   * file (`RowSpill`, 4 bytes per dimension per document added until its first search, removed then or when it is
   * dropped), so its int8 copy (for the file, at a persist) is made from them instead of rows read back from the
   * store. Absent or null: the rows are read back.
   */
  scratchDirectory?: string | null;
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
 * chunk's type) and its labels (a lore entry's scope tags); and its context (speaker, scene, day), which the
 * context signals of a search read.
 */
export interface IndexDocument extends ContextFields {
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
  /** Metadata fields a filter can test (`fields`: a chunk's metadata). */
  fields?: Readonly<Record<string, JsonValue>>;
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
  /** Only documents whose fields satisfy every clause (equality, one of, exists or missing). */
  fields?: readonly MetadataClause[];
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
  readonly vectors: VectorIndex;
  /** Each document's speaker, scene and day, for the context signals. */
  readonly context = new DocumentContext();
  /** Each document's metadata fields, for `where` filters. */
  private readonly fields = new DocumentFields();
  /** Each document's content words as word-table rows, for soft word matching (null without a word table). */
  readonly wordRows: WordRows | null;
  private readonly analyzer: Analyzer;
  /** Token -> its term's id in the BM25 index, -1 for a stop word (with `termOf`). */
  private readonly tokenTermIds: TokenIds | null;
  private termIdScratch: Int32Array = new Int32Array(64);
  /** Each slot's id (16 bytes while they are UUIDs); a persisted copy's as they are read. */
  private ids = new DocumentIds();
  /** A persisted copy's ids not all read yet: `ids` holds those read (see `idOf`), the rest stay in the file. */
  private restoredIds: IdList | null = null;
  /** The persisted file this index was read from, open while sections of it are still to be read on first use. */
  private snapshot: SnapshotReader | null = null;
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
  /** True once a write changed the index after it was built or read (a compacted copy then differs from it). */
  private modified = false;
  /** The int8 context copy a sliced run is making (see `prepareSteps`). */
  private preparing: Steps<void> | null = null;
  /** Counts the writes (a half-made int8 copy is kept only when none came in meanwhile). */
  private changes = 0;
  private readonly options: CorpusIndexOptions;
  /**
   * The order of every live document (insertion order, removed ones skipped): each slot's previous and next live
   * slot (-1: none). Derived from the slots and their live flags; window sums walk it. Null until first read or a
   * removal (`sequence`): while no slot was removed the chain is every slot in order (a 1M load: 8 MB not held).
   */
  private sequencePrevious: Int32Array | null = null;
  private sequenceNext: Int32Array | null = null;
  private sequenceTail = -1;

  constructor(version: number, options: CorpusIndexOptions = {}, restored?: { bm25: Bm25Index; vectors: VectorIndex }) {
    this.version = version;
    this.options = options;
    this.analyzer = options.analyzer ?? tokenize;
    const termOf = this.analyzer.termOf ?? (this.analyzer === tokenize ? (token: string) => token : null);
    this.tokenTermIds = termOf === null ? null : new TokenIds((token) => {
      const term = termOf(token);
      return term === null ? -1 : this.bm25.termId(term);
    }, TOKEN_CACHE_LIMIT);
    this.bm25 = restored?.bm25 ?? new Bm25Index(options.bm25);
    this.keepVectors = options.vectors ?? true;
    const vectorRows = options.vectorRows;
    // Rows the store holds are read from it by their documents' ids when used, not kept here.
    this.vectors = restored?.vectors ?? (this.keepVectors && vectorRows != null ? new VectorIndex((slots) => vectorRows(this.idsOf(slots)), options.scratchDirectory ?? null) : new VectorIndex());
    this.neighbourWeight = this.keepVectors ? (options.neighbourWeight ?? 0) : 0;
    const analyzer = this.analyzer;
    const table = options.wordTable ?? null;
    this.wordRows = table === null ? null : new WordRows(table, termOf !== null ? (token) => termOf(token) !== null : (token) => analyzer(token).length > 0);
  }

  /**
   * What an index must have been built with for a persisted copy of it to stand in for this one: the analyzer's
   * identity, BM25's parameters, neighbour context and where vectors live. Null when the analyzer has no identity
   * (its indexes are not persisted).
   */
  get configuration(): string | null {
    const identity = this.analyzer === tokenize ? 'tokenize' : this.analyzer.identity;
    if (identity === undefined) return null;
    const { k1, b } = this.bm25.parameters;
    // An index keeping word rows persists them (a copy without them is not used for it, nor one with them without).
    const words = this.wordRows === null ? '' : ';wordRows=1';
    return `analyzer=${identity};k1=${k1};b=${b};neighbourWeight=${this.neighbourWeight};vectors=${this.keepVectors};context=${this.options.contextSource ?? 'none'}${words}`;
  }

  /**
   * About how many bytes the index holds in the process, for a memory budget: its arrays (per slot, per posting,
   * the vectors), the scan memories of its int8 copies, its terms and ids (a map entry and a string each), and a
   * fixed part per index (objects, WebAssembly instances, allocator slack). The constants were measured with
   * `node --expose-gc` on 200 reopened 1,000-chunk saves (1.9 MB of RSS each, 0.6 MB of it JS heap, mostly terms).
   */
  get byteSize(): number {
    const slots = this.ids.length;
    const dims = this.vectors.dimensions ?? 0;
    const vectorBytes = this.keepVectors ? slots * dims * 4 + this.vectors.quantizedBytes : 0;
    const contextBytes = this.contextVectors?.memoryBytes ?? 0;
    return INDEX_OVERHEAD_BYTES + slots * (96 + ID_BYTES) + this.bm25.postingCount * 12 + this.bm25.termCount * TERM_BYTES + this.bm25.boundsBytes + vectorBytes + contextBytes + this.fields.memoryBytes + (this.wordRows?.memoryBytes ?? 0);
  }

  /** The ids of the first and the last live document (null when empty): a persisted copy is checked against them. */
  get boundaryIds(): [string, string] | null {
    let first = 0;
    while (first < this.ids.length && !this.bm25.isAlive(first)) first++;
    let last = this.ids.length - 1;
    while (last >= 0 && !this.bm25.isAlive(last)) last--;
    return first > last ? null : [this.idOf(first), this.idOf(last)];
  }

  /**
   * True when the index differs from what a fresh build of its live documents makes: documents were removed
   * (their slots stay), or added after its int8 copy was made (centred on the mean of the vectors of that time).
   * Scores are exact either way; the copy `compacted` returns is the fresh build's, to the last bit.
   */
  get drifted(): boolean {
    return this.modified;
  }

  /**
   * The index a fresh build of the live documents makes (slots, term ids, neighbour links, int8 copy), made
   * from this one without reading the store: what is persisted, so that a save reopens with the rankings a
   * rebuild from the store would give.
   *
   * @example
   * ```ts
   * const fresh = index.drifted ? index.compacted() : index;
   * ```
   */
  compacted(): CorpusIndex {
    return runSteps(this.compactedSteps());
  }

  /** `compacted` in steps (a pause every few documents), for `runStepsSliced`; the index must not change meanwhile. */
  *compactedSteps(): Steps<CorpusIndex> {
    const live: number[] = [];
    const ids = this.allIds();
    for (let slot = 0; slot < ids.length; slot++) if (this.bm25.isAlive(slot)) live.push(slot);
    const bm25 = yield* this.bm25.compactedSteps();
    // Rows in the store stay there: the copy reads them by its own documents' ids (the copy is made just below).
    const vectorRows = this.options.vectorRows;
    const rows = vectorRows == null ? undefined : (slots: readonly number[]) => vectorRows(copy.idsOf(slots));
    const vectors = this.keepVectors ? yield* this.vectors.compactedSteps(live, rows) : new VectorIndex();
    const copy: CorpusIndex = new CorpusIndex(this.version, this.options, { bm25, vectors });
    copy.positions = new Float64Array(Math.max(64, live.length));
    copy.kindIds = new Int32Array(Math.max(64, live.length));
    copy.labelsStart = new Int32Array(Math.max(65, live.length + 1));
    const kindNames = [...this.kindNames.keys()];
    const labelNames = [...this.labelIds.keys()];
    for (let target = 0; target < live.length; target++) {
      if ((target & STEP_ROWS) === 0) yield;
      const slot = live[target] as number;
      copy.ids.set(target, this.idOf(slot));
      copy.positions[target] = this.positions[slot] as number;
      const kind = this.kindIds[slot] as number;
      copy.kindIds[target] = kind < 0 ? -1 : copy.kindId(kindNames[kind] as string);
      const labels: string[] = [];
      for (let at = this.labelsStart[slot] as number; at < (this.labelsStart[slot + 1] as number); at++) labels.push(labelNames[this.labelsFlat[at] as number] as string);
      copy.setLabels(target, labels);
      copy.fields.setPairs(target, this.fields.pairsOf(slot));
      copy.appendToSequence(target);
      copy.context.set(target, this.context.fieldsOf(slot), this.bm25.lengthOf(slot));
      if (this.wordRows?.has(slot) === true) copy.wordRows?.setRows(target, this.wordRows.rowsOf(slot));
      if (copy.neighbourWeight > 0 && copy.vectors.has(target)) {
        copy.previousLink = grow(copy.previousLink, target + 1);
        copy.nextLink = grow(copy.nextLink, target + 1);
        copy.tail = appendSlot(copy.previousLink, copy.nextLink, copy.tail, target);
      }
    }
    copy.outsideDimensions = this.outsideDimensions;
    copy.mismatchedVectors = this.mismatchedVectors;
    return copy;
  }

  /** True once the int8 copy the semantic arm scans is made (see `prepare`). */
  get prepared(): boolean {
    return this.contextVectors !== null || this.vectors.prepared;
  }

  /**
   * Lets go of the int8 copy the semantic arm scans (the next search or `prepare` makes it again): for an index
   * whose copy was made only to be persisted, so the writes after it neither keep it in step nor drift from it.
   *
   * @example
   * ```ts
   * index.releaseInt8Copy(); // after persisting a bulk load's index that nobody queried yet
   * ```
   */
  releaseInt8Copy(): void {
    this.contextVectors = null;
    this.preparing = null;
    this.vectors.releaseInt8Copy();
  }

  /**
   * Lets go of what a persist made only for the file of an index nobody queried yet: the int8 copy (see
   * `releaseInt8Copy`) and BM25's postings lists (`Bm25Index.releasePostings`), both made again when first needed.
   *
   * @example
   * ```ts
   * index.releaseMadeForFile(); // after persisting a bulk load's index midway
   * ```
   */
  releaseMadeForFile(): void {
    this.releaseInt8Copy();
    this.bm25.releasePostings();
  }

  /**
   * The index a fresh build of the live documents makes, made the cheapest way: this index itself when it has not
   * drifted; when documents were only added since its int8 copy was made (no slot removed), this index with that
   * copy made again around the current mean (aside, swapped in at the end: nothing else differs from a fresh
   * build, and no second index is held meanwhile); else `compactedSteps`'s copy. The index must not change meanwhile.
   *
   * @example
   * ```ts
   * const fresh = await runStepsSliced(index.freshSteps());
   * ```
   */
  *freshSteps(): Steps<CorpusIndex> {
    if (!this.modified) return this;
    if (this.removedCount > 0 || this.bm25.size !== this.bm25.slots) return yield* this.compactedSteps();
    const changes = this.changes;
    if (this.neighbourWeight <= 0) yield* this.vectors.recentredSteps();
    else if (this.keepVectors && this.vectors.dimensions !== null) {
      const built = yield* this.buildContextSteps();
      if (this.changes === changes) this.contextVectors = built;
    }
    if (this.changes !== changes) return yield* this.compactedSteps();
    this.modified = false;
    return this;
  }

  /**
   * Writes everything the index holds to `writer` (see IndexSnapshot): the BM25 index, the vectors and their int8
   * copy, the neighbour links, ids, attributes and fields. The arrays are views: finish the snapshot before the next write.
   */
  writeState(writer: SnapshotWriter): Record<string, number> {
    return runSteps(this.writeStateSteps(writer));
  }

  /** `writeState` in steps, for `runStepsSliced`; the index must not change until the snapshot is written. */
  *writeStateSteps(writer: SnapshotWriter): Steps<Record<string, number>> {
    const slots = this.ids.length;
    yield* this.bm25.writeStateSteps(writer, 'bm25');
    if (this.keepVectors) this.vectors.writeState(writer, 'vectors', this.options.vectorRows != null);
    yield;
    this.allIds().writeState(writer, 'ids');
    yield;
    writeNarrowest(writer, 'positions', this.positions.subarray(0, slots));
    writeNarrowest(writer, 'kindIds', this.kindIds.subarray(0, slots));
    writer.strings('kinds', [...this.kindNames.keys()]);
    writer.strings('labels', [...this.labelIds.keys()]);
    writer.array('labelsStart', this.labelsStart.subarray(0, slots + 1));
    writer.array('labelsFlat', this.labelsFlat.subarray(0, this.labelsStart[slots] as number));
    if (this.neighbourWeight > 0) {
      writer.array('previousLink', this.previousLink.subarray(0, slots));
      writer.array('nextLink', this.nextLink.subarray(0, slots));
    }
    this.contextVectors?.writeState(writer, 'contexts');
    yield;
    this.context.writeState(writer, 'context', slots);
    yield;
    this.fields.writeState(writer, 'fields', slots);
    this.wordRows?.writeState(writer, 'wordRows', slots);
    return {
      removedCount: this.removedCount,
      mismatchedVectors: this.mismatchedVectors,
      outsideDimensions: this.outsideDimensions ?? -1,
      tail: this.tail,
      contexts: this.contextVectors === null ? 0 : 1,
    };
  }

  /**
   * Closes the persisted file this index still reads sections from on first use (harmless when there is none or it
   * is closed), and the scratch file of the vectors it was given (see `scratchDirectory`: its rows are then read
   * from the store). For an index nobody will query again (evicted, dropped): a query that still holds it and needs a
   * section not read yet gets SnapshotRejected, and `IndexCache.use` answers from a rebuilt index.
   *
   * @example
   * ```ts
   * index.closeSnapshot(); // the file descriptor is released now, not when the index is garbage-collected
   * ```
   */
  closeSnapshot(): void {
    this.snapshot?.close();
    this.snapshot = null;
    this.vectors.releaseSpill();
  }

  /**
   * The index written by `writeState`, made with the same options (the caller checks `configuration` first). What
   * a query scans is read now; the float32 vectors, the postings, each document's terms and the metadata names are
   * read where and when first used (call `reader.done()` after). Rankings are those of the index that was written.
   * The scan's memory (the largest buffer, 14.6 MB at 100k chunks) is made first: once array buffers made since
   * the last collection reach 32 MB, V8 starts a young-generation collection at each new one until they are
   * promoted, and each copies what is young then; made before BM25's term map, less of it is.
   *
   * @example
   * ```ts
   * const index = CorpusIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 12, options);
   * ```
   */
  static readState(reader: SnapshotReader, version: number, options: CorpusIndexOptions): CorpusIndex {
    // Apart from the others: the int8 rows, their scales and norms (read straight into the scan's memory), the
    // metadata fields (read when a filter or a write first needs them), the ids (a query reads a few), the
    // narrowed integers (widened into arrays of their own) and BM25's persisted bounds (a query reads a few terms').
    reader.readApart([...QuantizedVectors.sectionsReadInto('contexts'), ...QuantizedVectors.sectionsReadInto('vectors.int8'), ...DocumentFields.sectionsReadOnUse('fields'), 'ids.ends', 'ids.text', 'ids.uuids', ...NARROWED_SECTIONS, ...Bm25Index.sectionsReadApart('bm25')]);
    // The scan's memory first (the largest buffer), before BM25's term map (see above).
    const contextVectors = reader.number('contexts') === 1 ? QuantizedVectors.readState(reader, 'contexts') : null;
    const bm25 = Bm25Index.readState(reader, 'bm25', options.bm25 ?? {});
    const keepVectors = options.vectors ?? true;
    const vectorRows = options.vectorRows;
    // Rows left out of the file are read from the store by their documents' ids (the index is made just below).
    const rows = vectorRows == null ? undefined : (slots: readonly number[]) => vectorRows(index.idsOf(slots));
    const index: CorpusIndex = new CorpusIndex(version, options, { bm25, vectors: keepVectors ? VectorIndex.readState(reader, 'vectors', rows) : new VectorIndex() });
    // Read one by one from the file as hits need them (a query names ten documents, not the corpus's), kept in `ids`.
    index.restoredIds = readIdList(reader, 'ids');
    index.snapshot = reader;
    const slots = index.restoredIds.length;
    index.ids = DocumentIds.unset(slots);
    if (slots !== bm25.slots) throw new SnapshotRejected('ids and BM25 slots disagree');
    index.positions = readWidened(reader, 'positions', 'f64');
    index.kindIds = readWidened(reader, 'kindIds', 'i32');
    reader.strings('kinds').forEach((kind, id) => index.kindNames.set(kind, id));
    reader.strings('labels').forEach((label, id) => index.labelIds.set(label, id));
    index.labelsStart = reader.array('labelsStart', 'i32');
    index.labelsFlat = reader.array('labelsFlat', 'i32');
    if (index.neighbourWeight > 0) {
      index.previousLink = reader.array('previousLink', 'i32');
      index.nextLink = reader.array('nextLink', 'i32');
    }
    index.contextVectors = contextVectors;
    // The sequence is the live slots in slot order; the context's per-scene sums follow from its ids and the lengths.
    const { alive, lengths } = bm25.slotArrays;
    index.sequencePrevious = new Int32Array(Math.max(64, slots)).fill(-1);
    index.sequenceNext = new Int32Array(Math.max(64, slots)).fill(-1);
    index.sequenceTail = chainLiveSlots(index.sequencePrevious, index.sequenceNext, alive, slots);
    index.context.readState(reader, 'context', slots, alive, lengths);
    index.fields.readState(reader, 'fields', slots);
    index.wordRows?.readState(reader, 'wordRows', slots);
    index.removedCount = reader.number('removedCount');
    index.mismatchedVectors = reader.number('mismatchedVectors');
    const outside = reader.number('outsideDimensions');
    index.outsideDimensions = outside < 0 ? null : outside;
    index.tail = reader.number('tail');
    if (index.positions.length !== slots || index.kindIds.length !== slots || index.labelsStart.length !== slots + 1) throw new SnapshotRejected('attribute sections disagree with the ids');
    return index;
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

  /**
   * Reads at once the stored vectors the exact semantic scores of `slots` need (theirs and, with neighbour context,
   * their neighbours'), for an index whose vectors are in the store (see `CorpusIndexOptions.vectorRows`): one
   * read before a loop that scores them, instead of one per vector. Does nothing when they are in memory.
   *
   * @example
   * ```ts
   * index.readSemanticRows(candidates);
   * candidates.map((slot) => index.semanticScoreOf(query, slot));
   * ```
   */
  readSemanticRows(slots: readonly number[]): void {
    if (!this.keepVectors || !this.vectors.readsRows) return;
    if (this.neighbourWeight <= 0) return this.vectors.readRowsOf(slots);
    const wanted: number[] = [];
    for (const slot of slots) {
      wanted.push(slot);
      const previous = this.neighbour(slot, -1);
      const next = this.neighbour(slot, 1);
      if (previous !== null) wanted.push(previous);
      if (next !== null) wanted.push(next);
    }
    this.vectors.readRowsOf(wanted);
  }

  /** The semantic arm's exact score of one slot (cosine with its own or its context vector), or null without a vector. */
  semanticScoreOf(query: Float32Array, slot: number): number | null {
    if (this.neighbourWeight <= 0) return this.vectors.scoreOf(query, slot);
    return this.contextScore(query, slot, 1);
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
    if (this.sequencePrevious !== null && this.sequenceNext !== null) {
      this.sequencePrevious = reserve(this.sequencePrevious, slots);
      this.sequenceNext = reserve(this.sequenceNext, slots);
    }
    this.context.reserve(slots);
    this.fields.reserve(slots);
    this.ids.reserve(slots);
    if (this.neighbourWeight > 0) {
      this.previousLink = reserve(this.previousLink, slots);
      this.nextLink = reserve(this.nextLink, slots);
    }
  }

  /** Adds documents in order. */
  add(rows: readonly IndexDocument[]): void {
    this.noteBulkLoad(rows.length);
    // The int8 copy made already stays centred on the mean of its time, which a fresh build would not be.
    if (rows.length > 0 && (this.contextVectors !== null || this.vectors.prepared)) this.modified = true;
    if (rows.length > 0) this.noteChange();
    for (const row of rows) {
      const slot = this.tokenTermIds === null ? this.bm25.addTokens(this.analyzer(row.text)) : this.addText(row.text, this.tokenTermIds);
      this.ids.set(slot, row.id);
      this.slotsById?.set(row.id, slot);
      this.positions = grow(this.positions, slot + 1);
      this.kindIds = grow(this.kindIds, slot + 1);
      this.positions[slot] = row.position ?? Number.NaN;
      this.kindIds[slot] = row.kind === undefined ? -1 : this.kindId(row.kind);
      this.setLabels(slot, row.labels ?? []);
      this.fields.set(slot, row.fields);
      this.appendToSequence(slot);
      this.context.set(slot, row, this.bm25.lengthOf(slot));
      this.wordRows?.set(slot, row.text);
      if (this.keepVectors) {
        if (!this.vectors.set(slot, row.embedding)) this.mismatchedVectors++;
      } else {
        this.noteDimensions(row.embedding?.length ?? row.dimensions ?? null);
      }
      if (this.neighbourWeight > 0 && this.vectors.has(slot)) {
        this.previousLink = grow(this.previousLink, slot + 1);
        this.nextLink = grow(this.nextLink, slot + 1);
        const previous = this.tail;
        this.tail = appendSlot(this.previousLink, this.nextLink, previous, slot);
        this.refreshContext(slot);
        if (previous >= 0) this.refreshContext(previous);
      }
    }
  }

  /**
   * Adds documents in order, as `add` does, giving the event loop back between them every few milliseconds (a
   * document's text is at most `LIMITS.textChars`), so a write of many long texts does not hold other requests.
   * Who reads the index meanwhile sees some of them: `IndexCache.afterWrite` keeps readers out until it is done.
   *
   * @example
   * ```ts
   * await index.addSliced(chunks.map((chunk) => chunkDocument(chunk)));
   * ```
   */
  async addSliced(rows: readonly IndexDocument[], slice = new TimeSlice()): Promise<void> {
    this.noteBulkLoad(rows.length);
    for (const row of rows) {
      await slice.tick();
      this.add([row]);
    }
  }

  /** An empty index's first write of BULK_LOAD_ROWS documents or more starts a bulk load: its vectors are spilled (see `scratchDirectory`). */
  private noteBulkLoad(count: number): void {
    if (count >= BULK_LOAD_ROWS && this.ids.length === 0) this.vectors.expectBulkLoad();
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

  private appendToSequence(slot: number): void {
    // Not made yet: slots are added in order and none was removed, so the chain is still every slot in order.
    if (this.sequencePrevious === null || this.sequenceNext === null) {
      this.sequenceTail = slot;
      return;
    }
    this.sequencePrevious = grow(this.sequencePrevious, slot + 1);
    this.sequenceNext = grow(this.sequenceNext, slot + 1);
    this.sequenceTail = appendSlot(this.sequencePrevious, this.sequenceNext, this.sequenceTail, slot);
  }

  private removeFromSequence(slot: number): void {
    const { previous, next } = this.sequence();
    this.sequenceTail = unlinkSlot(previous, next, this.sequenceTail, slot);
  }

  /** The order's chains, made on first use: until a slot is removed, every slot in order (see `sequencePrevious`). */
  private sequence(): { previous: Int32Array; next: Int32Array } {
    if (this.sequencePrevious === null || this.sequenceNext === null) {
      const slots = this.bm25.slots;
      const previous = new Int32Array(Math.max(64, slots)).fill(-1);
      const next = new Int32Array(Math.max(64, slots)).fill(-1);
      for (let slot = 0; slot < slots; slot++) {
        previous[slot] = slot - 1;
        next[slot] = slot + 1 < slots ? slot + 1 : -1;
      }
      this.sequencePrevious = previous;
      this.sequenceNext = next;
    }
    return { previous: this.sequencePrevious, next: this.sequenceNext };
  }

  /**
   * The live document before (-1) or after (+1) `slot` in the corpus's order (insertion order), or null at an end.
   *
   * @example
   * ```ts
   * index.neighbourOf(index.slotOf('c2') as number, -1); // the slot of the chunk added just before c2
   * ```
   */
  neighbourOf(slot: number, direction: -1 | 1): number | null {
    if (this.sequencePrevious === null || this.sequenceNext === null) {
      const other = slot + direction;
      return slot < this.bm25.slots && other >= 0 && other < this.bm25.slots ? other : null;
    }
    const other = direction === -1 ? this.sequencePrevious[slot] : this.sequenceNext[slot];
    return other === undefined || other < 0 ? null : other;
  }

  /** The order of the live documents (insertion order) as slot chains, for window sums: views, valid until the next write. */
  get order(): SlotOrder {
    const { previous, next } = this.sequence();
    return { previous, next, dense: this.bm25.size === this.bm25.slots };
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
    this.tail = unlinkSlot(this.previousLink, this.nextLink, this.tail, slot);
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
    const [own, previous, next] = this.contextRows(slot);
    return mixContext(this.contextBuffer, own, previous, next, this.neighbourWeight);
  }

  /** The vectors a live slot's context is made of: its own, its previous and its next neighbour's (null: none). */
  private contextRows(slot: number): [Float32Array, Float32Array | null, Float32Array | null] {
    const previous = this.neighbour(slot, -1);
    const next = this.neighbour(slot, 1);
    return [this.vectors.vectorOf(slot) as Float32Array, previous === null ? null : this.vectors.vectorOf(previous), next === null ? null : this.vectors.vectorOf(next)];
  }

  /**
   * The dot product of `query` with a slot's context vector (as `computeContext` makes it), in four lanes as
   * `dotProduct` sums (the semantic arm's scores) or in one (`semanticScoreOf`'s); null without a context vector.
   * Computed by the context kernel, to the bit what the JS gives.
   */
  private contextScore(query: Float32Array, slot: number, lanes: 1 | 4): number | null {
    const dims = this.vectors.dimensions;
    if (dims === null || query.length !== dims || !this.vectors.has(slot) || !this.bm25.isAlive(slot)) return null;
    const [own, previous, next] = this.contextRows(slot);
    return contextKernel().score(own, previous, next, this.neighbourWeight, query, lanes);
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

  /** A write changed the documents: an int8 copy being made aside no longer matches them. */
  private noteChange(): void {
    this.changes++;
    this.preparing = null;
  }

  /** Removes every live document `select` picks by slot; returns how many. */
  private removeSlots(select: (slot: number) => boolean): number {
    let removed = 0;
    const refresh = new Set<number>();
    this.allIds();
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (!this.bm25.isAlive(slot) || !select(slot)) continue;
      if (this.neighbourWeight > 0) {
        for (const other of this.unlink(slot)) refresh.add(other);
        refresh.delete(slot);
        this.contextVectors?.remove(slot);
      }
      this.removeFromSequence(slot);
      this.context.remove(slot, this.bm25.lengthOf(slot));
      this.bm25.remove(slot);
      this.vectors.remove(slot);
      this.slotsById?.delete(this.idOf(slot));
      removed++;
    }
    this.removedCount += removed;
    if (removed > 0) {
      this.modified = true;
      this.noteChange();
    }
    for (const slot of refresh) if (this.bm25.isAlive(slot)) this.refreshContext(slot);
    return removed;
  }

  /** Removes the live documents with these ids; returns how many. */
  remove(ids: Iterable<string>): number {
    const removed = new Set(ids);
    if (removed.size === 0) return 0;
    return this.removeSlots((slot) => removed.has(this.idOf(slot)));
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

  /** A slot's position (a chunk's turn; NaN: none). */
  positionOf(slot: number): number {
    return this.positions[slot] ?? Number.NaN;
  }

  /** Visits every live slot, in slot order (insertion order). O(slots). */
  forEachLive(visit: (slot: number) => void): void {
    for (let slot = 0; slot < this.bm25.slots; slot++) if (this.bm25.isAlive(slot)) visit(slot);
  }

  /** The document id stored in a slot. */
  idOf(slot: number): string {
    return this.ids.get(slot) ?? this.readId(slot);
  }

  /**
   * The ids of `slots`, in the order given. A persisted copy's are read from its file in slot order, so the
   * neighbouring slots a query asks for at once (a candidate and the two beside it) read each block once.
   *
   * @example
   * ```ts
   * store.vectorsOf(index.idsOf([41, 40, 42]));
   * ```
   */
  idsOf(slots: readonly number[]): string[] {
    const ids = new Array<string>(slots.length);
    if (this.restoredIds === null) {
      for (let at = 0; at < slots.length; at++) ids[at] = this.idOf(slots[at] as number);
      return ids;
    }
    const order = Array.from(slots.keys()).sort((a, b) => (slots[a] as number) - (slots[b] as number));
    for (const at of order) ids[at] = this.idOf(slots[at] as number);
    return ids;
  }

  /** Reads the id of a slot of a persisted copy (it throws SnapshotRejected when it is corrupt). */
  private readId(slot: number): string {
    const id = (this.restoredIds as IdList).at(slot);
    this.ids.set(slot, id);
    return id;
  }

  /** Every slot's id (a persisted copy's read whole first; those added since it was read kept). */
  private allIds(): DocumentIds {
    const restored = this.restoredIds;
    if (restored !== null) {
      const read = restored.all();
      const ids = new DocumentIds();
      ids.reserve(this.ids.length);
      for (let slot = 0; slot < this.ids.length; slot++) ids.set(slot, this.ids.get(slot) ?? (read[slot] as string));
      this.ids = ids;
      this.restoredIds = null;
    }
    return this.ids;
  }

  /** The terms the analyzer makes of a text (the same ones the index holds). */
  analyze(text: string): string[] {
    return this.analyzer(text);
  }

  /**
   * The slot filter of a document filter (position bound, kind kept or dropped, labels held, fields), or undefined when
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
    return combineFilters(attributes, labels, this.fields.filterFor(filter.fields));
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

  /**
   * The lexical arm: BM25 over the corpus's own statistics (or `corpus`'s, see `Bm25Index.corpusWithin`), filtered
   * before ranking; terms may carry weights.
   */
  lexical(queryTerms: readonly string[], limit: number, accept?: SlotFilter, termWeights?: ReadonlyMap<string, number>, statistics?: ScoreSink, corpus?: Bm25Corpus): { slot: number; score: number }[] {
    // Searched: no longer a bulk load's index (see `scratchDirectory`), so its spill, if any, is let go.
    this.vectors.releaseSpill();
    return this.bm25.search(queryTerms, limit, accept, termWeights, statistics, corpus);
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
    statistics?: ScoreSink,
    corpus?: Bm25Corpus,
  ): { results: { slot: number; score: number }[]; terms: string[]; weights: Map<string, number> } {
    const { results, weights } = this.bm25.searchWithFeedback(queryTerms, limit, feedback, accept, statistics, corpus);
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
    if (this.contextVectors === null) runSteps(this.prepareSteps());
    return this.contextVectors;
  }

  /**
   * `prepare` in steps, for `runStepsSliced`: the int8 copy is made aside and kept at the end. A search meanwhile
   * finishes it at once (`prepare`); a write meanwhile drops the half-made copy (it is made again when needed).
   */
  prepareSteps(): Steps<void> {
    if (!this.keepVectors || this.vectors.dimensions === null) return noSteps();
    if (this.neighbourWeight <= 0) return this.vectors.prepareSteps();
    if (this.contextVectors !== null) return noSteps();
    this.preparing ??= this.contextSteps();
    return this.preparing;
  }

  private *contextSteps(): Steps<void> {
    const changes = this.changes;
    const built = yield* this.buildContextSteps();
    if (this.changes !== changes) return;
    this.contextVectors ??= built;
    this.preparing = null;
  }

  /** The int8 copy of the context vectors as they are (rows kept in the store read a block at a time, with their neighbours'). */
  private *buildContextSteps(): Steps<QuantizedVectors> {
    if (!this.vectors.readsRows) yield* this.vectors.readAllSteps();
    // Centred on the mean own vector: close to the contexts' mean, and one pass cheaper than computing it.
    const centre = yield* this.vectors.meanSteps();
    const ahead = this.vectors.passReader((slot) => [this.neighbour(slot, -1), this.neighbour(slot, 1)]);
    return yield* QuantizedVectors.buildSteps(this.bm25.slots, (slot) => (ahead(slot), this.computeContext(slot)), centre);
  }

  /**
   * The semantic arm: exact cosine similarity (with neighbour context when configured), filtered before ranking.
   * Context vectors are scanned as int8; the rows that can rank get their exact score from a recomputed context.
   */
  semantic(queryVector: Float32Array, limit: number, accept?: SlotFilter, statistics?: ScoreStatistics): { slot: number; score: number }[] {
    if (this.neighbourWeight <= 0) return this.vectors.search(queryVector, limit, accept, statistics);
    const contexts = this.prepare();
    if (contexts === null) return [];
    // The copy kept from now on takes appends as they come: no pass reads the rows again.
    this.vectors.releaseSpill();
    const readRows = this.vectors.readsRows ? (slots: readonly number[]) => this.readSemanticRows(slots) : undefined;
    return contexts.search(queryVector, limit, (slot) => this.contextScore(queryVector, slot, 4) as number, accept, statistics, readRows);
  }

  /**
   * Adds the exact semantic score of every slot `mask` marks (1) with a vector to `statistics`, in slot order: the
   * standardisation of a search that must not depend on documents it cannot see (the int8 scan's approximations
   * are taken around the mean of every vector).
   */
  exactSemanticStatistics(queryVector: Float32Array, mask: Uint8Array, statistics: ScoreStatistics): void {
    if (this.neighbourWeight <= 0) {
      this.vectors.addExactScores(queryVector, mask, statistics);
      return;
    }
    this.vectors.readAll();
    for (let slot = 0; slot < mask.length; slot++) {
      if (mask[slot] !== 1) continue;
      const score = this.semanticScoreOf(queryVector, slot);
      if (score !== null) statistics.add(score);
    }
  }

  /** The slot holding a document id, or undefined. */
  slotOf(id: string): number | undefined {
    if (this.slotsById === null) {
      this.slotsById = new Map();
      const ids = this.allIds();
      for (let slot = 0; slot < ids.length; slot++) if (this.bm25.isAlive(slot)) this.slotsById.set(ids.get(slot) as string, slot);
    }
    return this.slotsById.get(id);
  }
}
