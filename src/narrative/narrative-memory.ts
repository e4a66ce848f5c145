// Narrative memory (the seed's VectorMemory): add, updateTurn, count and hybrid query over a Store (rewind and fork: src/saves/).
import { randomUUID } from 'node:crypto';
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { MnemoError } from '../core/errors.js';
import { onceLogger, silentLogger } from '../core/logger.js';
import { runStepsSliced } from '../core/time-slice.js';
import type { Logger } from '../core/logger.js';
import { DEFAULT_CHUNK_TYPE } from '../core/types.js';
import type { Chunk, ChunkInput, ChunkSearchFilter, Hit, Metadata, QueryOptions } from '../core/types.js';
import { optionalChunkType, requireSaveId, requireTurnId } from '../core/validate.js';
import { embedInBatches } from '../embedders/embed-in-batches.js';
import type { EmbeddingCache } from '../embedders/embedding-cache.js';
import type { Analyzer, CorpusIndex } from '../retrieval/corpus-index.js';
import { IndexCache } from '../retrieval/index-cache.js';
import { wordTableOf } from '../retrieval/word-rows.js';
import type { IndexPersistence } from '../retrieval/index-cache.js';
import type { IndexSnapshots } from '../retrieval/snapshot-directory.js';
import { corpusAnalyzer, resolveSearchRequest } from '../retrieval/resolve-search-request.js';
import type { SearchRequest } from '../retrieval/resolve-search-request.js';
import { CORPUS_DEFAULTS } from '../retrieval/retrieval-defaults.js';
import { searchCorpus } from '../retrieval/search-corpus.js';
import type { Embedder } from '../seams/embedder.js';
import type { Reranker } from '../seams/reranker.js';
import type { ChunkVectors, ListChunksOptions, NewChunk, Store, TurnSummary } from '../seams/store.js';
import type { VectorSearch } from '../seams/vector-search.js';
import type { WriteResult } from '../seams/write-result.js';
import { chunkDocument, chunkDocumentFilter, resolveChunkFilter } from './chunk-document.js';
import { bestFactPerTurn, chunksAtFactTurns, FactIndexes, liftByFacts, resolveFactArm } from './fact-arm.js';
import { resolveMetadataRoles } from './metadata-roles.js';
import type { MetadataRoles } from './metadata-roles.js';
import { prepareChunk } from './prepare-chunk.js';

/** The meta key of the store's instance id, which persisted indexes name (a copy of another file is another store). */
const STORE_ID_KEY = 'index.store-id';

/** What narrative memory is built from. */
export interface NarrativeMemoryOptions {
  store: Store;
  /** Computes vectors for the semantic arm; without one, search is lexical only. */
  embedder?: Embedder | null;
  /** Re-sorts the fused head; without one, the fused order stands. */
  reranker?: Reranker | null;
  /** Where added texts look for vectors already made (none: every text is embedded). */
  embeddingCache?: EmbeddingCache | null;
  logger?: Logger;
  clock?: Clock;
  /** Neighbour context for the semantic arm (see CorpusIndexOptions.neighbourWeight; default 0.5, 0 turns it off). */
  neighbourWeight?: number;
  /** Query defaults applied under each query's own options (e.g. `{ fusion: 'zscore' }`). */
  queryDefaults?: QueryOptions;
  /** Index terms of a text (default: `createAnalyzer()`, English stems, English stop words dropped). */
  analyzer?: Analyzer;
  /**
   * Where each save's search index is persisted, so that a save opens without a rebuild (a folder, one file per
   * save; see `snapshotDirectory`). Default: none (openMemory gives SQLite files `<file>.index`).
   */
  indexSnapshots?: IndexSnapshots | null;
  /**
   * A folder where a save's index built by a bulk load keeps the vectors it was given until its first search
   * (a scratch file, removed then; see `CorpusIndexOptions.scratchDirectory`). Default: none (openMemory gives
   * the persisted indexes' folder).
   */
  indexScratchDirectory?: string | null;
  /** Bytes the saves' indexes may hold in memory together (least recently used evicted first); default: no bound. */
  indexMemoryBudget?: number;
  /**
   * Which metadata keys hold each chunk's speaker, scene and time, read by the search's context signals (default
   * `speaker`, `scene`, `time`; null leaves a role unread). See docs/retrieval-quality.md.
   */
  metadataRoles?: MetadataRoles;
}

/** The replacement text of a turn. */
export interface UpdateTurnInput {
  saveId: string;
  turnId: number;
  /** The new text, or several chunks of it. */
  text: string | readonly string[];
  chunkType?: string;
  metadata?: Metadata;
}

/** The new chunks of a turn, each with its own entryId and metadata (see `replaceTurn`). */
export interface ReplaceTurnInput {
  saveId: string;
  turnId: number;
  chunkType?: string;
  chunks: readonly { text: string; entryId?: string | null; metadata?: Metadata }[];
}

/**
 * Keeps a save's narrative chunks and finds them again by meaning and by exact words.
 *
 * @example
 * ```ts
 * const narrative = new NarrativeMemory({ store: openInMemoryStore() });
 * await narrative.add({ saveId: 's', turnId: 1, text: 'Kaël hides the key under the well.' });
 * const [hit] = await narrative.query('s', 'where is the key?');
 * ```
 */
export class NarrativeMemory {
  readonly store: Store;
  readonly embedder: Embedder | null;
  readonly reranker: Reranker | null;
  private readonly embeddingCache: EmbeddingCache | null;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly cache: IndexCache;
  private readonly queryDefaults: QueryOptions;
  /** The store's own vector search, when it has one (see `Store.vectorSearch`): it then serves the semantic arm. */
  private readonly vectorSearch: VectorSearch | null;
  /** Neighbour context of the semantic arm: own + w * (previous + next). */
  private readonly neighbourWeight: number;
  /** The metadata keys of each chunk's speaker, scene and time. */
  private readonly roles: Required<MetadataRoles>;
  /** Each save's living-memory facts as a search index (the facts arm). */
  private readonly factIndexes: FactIndexes;

  constructor(options: NarrativeMemoryOptions) {
    this.store = options.store;
    this.embedder = options.embedder ?? null;
    this.reranker = options.reranker ?? null;
    this.embeddingCache = options.embeddingCache ?? null;
    this.logger = onceLogger(options.logger ?? silentLogger);
    this.clock = options.clock ?? systemClock;
    this.neighbourWeight = options.neighbourWeight ?? CORPUS_DEFAULTS.narrative.neighbourWeight;
    // A store that searches vectors itself (pgvector) keeps them out of process memory (it computes the neighbour
    // context too): the index then holds only their lengths, and its scans leave them out.
    const vectorSearch = this.store.vectorSearch ?? null;
    this.vectorSearch = vectorSearch;
    const roles = resolveMetadataRoles(options.metadataRoles);
    this.roles = roles;
    // Every metadata key: the index keeps them for `where` filters (and reads the roles from them).
    const scanOptions = { metadataKeys: 'all' as const };
    this.cache = new IndexCache(
      {
        scan: (saveId, visit) => (vectorSearch ?? this.store).scanChunks(saveId, (row) => visit(chunkDocument(row, roles)), scanOptions),
        version: (saveId) => this.store.saveVersion(saveId),
        count: (saveId) => this.store.countChunks(saveId),
      },
      {
        analyzer: corpusAnalyzer('narrative', options.analyzer),
        neighbourWeight: this.neighbourWeight,
        vectors: vectorSearch === null,
        contextSource: `roles:${roles.speaker ?? ''},${roles.scene ?? ''},${roles.time ?? ''}`,
        // The static embedder's word table: each chunk's content words kept as rows, for soft word matching.
        wordTable: wordTableOf(this.embedder),
        // A store that reads chunks' vectors by id (SQLite): the persisted index keeps no second copy of them.
        vectorRows: vectorSearch === null && this.store.chunkVectors != null ? (ids) => (this.store.chunkVectors as ChunkVectors).vectorsOf(ids) : null,
        scratchDirectory: options.indexScratchDirectory ?? null,
        memoryBudgetBytes: options.indexMemoryBudget,
        persistence: options.indexSnapshots ? this.persistence(options.indexSnapshots) : null,
        logger: this.logger,
      },
    );
    this.queryDefaults = options.queryDefaults ?? {};
    const embedder = this.embedder;
    const embeddingCache = this.embeddingCache;
    const embedFacts = embedder === null ? null : (texts: string[]) => (embeddingCache !== null ? embeddingCache.embed(embedder, texts) : embedInBatches(embedder, texts));
    this.factIndexes = new FactIndexes(this.store.living, embedFacts, corpusAnalyzer('narrative', options.analyzer));
  }

  /**
   * Persisted indexes of this store: tied to the store's instance id (kept in its meta table) and the embedder's
   * identity, and checked against the save's first and last live chunks.
   */
  private persistence(snapshots: IndexSnapshots): IndexPersistence {
    const embedder = this.embedder;
    return {
      snapshots,
      identity: async () => {
        let storeId = await this.store.getMeta(STORE_ID_KEY);
        if (storeId === null) {
          storeId = randomUUID();
          // A read-only store cannot keep an id: its indexes are then tied to where it is.
          await this.store.setMeta(STORE_ID_KEY, storeId).catch(() => (storeId = `location:${this.store.location}`));
        }
        return `store=${storeId};embedder=${embedder === null ? 'none' : `${embedder.provider}/${embedder.modelId}/${embedder.dimensions}`}`;
      },
      verify: async (saveId, ids) => {
        const chunks = await this.store.getChunks([...new Set(ids)]);
        return chunks.length === new Set(ids).size && chunks.every((chunk) => chunk.saveId === saveId);
      },
    };
  }

  /** Adds one chunk and returns its UUID. */
  async add(input: ChunkInput): Promise<string> {
    const [id] = await this.addMany([input]);
    return id as string;
  }

  /**
   * Adds several chunks of one save in one transaction (a whole turn lands, or none of it) and returns their
   * UUIDs in order. Everything is validated before anything is written.
   */
  async addMany(inputs: readonly ChunkInput[]): Promise<string[]> {
    if (!Array.isArray(inputs) || inputs.length === 0) {
      throw new MnemoError('INVALID_INPUT', 'chunks: expected a non-empty array of { saveId, turnId, text }, got an empty list. Pass at least one chunk.');
    }
    const now = this.clock();
    const chunks = inputs.map((input) => prepareChunk(input, now));
    const saveId = chunks[0]!.saveId;
    if (chunks.some((chunk) => chunk.saveId !== saveId)) {
      throw new MnemoError('INVALID_INPUT', 'chunks: expected every chunk of one call to share a saveId, got several. Call addMany once per save.');
    }
    this.cache.writeStarting(saveId);
    await this.attachVectors(chunks);
    const result = await this.store.insertChunks(chunks);
    await this.cache.afterWrite(saveId, result, (index) => index.addSliced(chunks.map((chunk) => chunkDocument(chunk, this.roles))));
    return chunks.map((chunk) => chunk.id);
  }

  /** Replaces a turn's chunks of one type (default `narrative`) with new text, atomically; returns the new ids. */
  async updateTurn(input: UpdateTurnInput): Promise<string[]> {
    const saveId = requireSaveId(input?.saveId);
    const turnId = requireTurnId(input.turnId);
    const chunkType = optionalChunkType(input.chunkType, 'chunkType') ?? DEFAULT_CHUNK_TYPE;
    const texts = typeof input.text === 'string' ? [input.text] : [...(input.text ?? [])];
    if (texts.length === 0) throw new MnemoError('INVALID_INPUT', 'text: expected the new text of the turn, got an empty list. To remove a turn, rewind to the turn before it.');
    const now = this.clock();
    return this.writeTurn(saveId, turnId, chunkType, texts.map((text) => prepareChunk({ saveId, turnId, text, chunkType, metadata: input.metadata }, now)));
  }

  /**
   * Replaces a turn's chunks of one type with `chunks`, each with its own entryId and metadata, atomically; an
   * empty list just removes them. Returns the new ids. (The lore book keeps a save's lore this way, at turn 0.)
   */
  async replaceTurn(input: ReplaceTurnInput): Promise<string[]> {
    const saveId = requireSaveId(input?.saveId);
    const turnId = requireTurnId(input.turnId);
    const chunkType = optionalChunkType(input.chunkType, 'chunkType') ?? DEFAULT_CHUNK_TYPE;
    if (!Array.isArray(input.chunks)) throw new MnemoError('INVALID_INPUT', 'chunks: expected an array of { text, entryId?, metadata? } (possibly empty), got something else.');
    const now = this.clock();
    return this.writeTurn(saveId, turnId, chunkType, input.chunks.map((chunk) => prepareChunk({ ...chunk, saveId, turnId, chunkType }, now)));
  }

  private async writeTurn(saveId: string, turnId: number, chunkType: string, chunks: NewChunk[]): Promise<string[]> {
    this.cache.writeStarting(saveId);
    await this.attachVectors(chunks);
    const result = await this.store.replaceTurn(saveId, turnId, chunkType, chunks);
    await this.cache.afterWrite(saveId, result, (index) => {
      index.removeAt(turnId, chunkType);
      return index.addSliced(chunks.map((chunk) => chunkDocument(chunk, this.roles)));
    });
    return chunks.map((chunk) => chunk.id);
  }

  /**
   * Told by the rewind owner (`src/saves/rewind-save.ts`) after the store's transaction removed the save's chunks
   * after `turnId`: the save's index drops them in place when it was one step behind (after a write of the save still
   * being applied, which queries wait for), else it rebuilds lazily.
   */
  afterRewind(saveId: string, turnId: number, result: WriteResult): void {
    void this.cache.afterWrite(saveId, result, (index) => {
      index.removeAfter(turnId);
    });
  }

  /**
   * Told by the delete owner (`src/saves/delete-chunks.ts`) after the store's transaction removed the chunks `ids`:
   * the save's index drops them in place when it was one step behind, else it rebuilds lazily (and its persisted
   * copy, older than the save's version now, is not used again).
   */
  afterDeleteChunks(saveId: string, ids: readonly string[], result: WriteResult): void {
    void this.cache.afterWrite(saveId, result, (index) => {
      index.remove(ids);
    });
  }

  /**
   * Drops the save's index, held in memory and persisted (its chunks changed wholesale: a fork's new save, a
   * deleted save): the next query rebuilds it. The persisted file is removed in the background; `flush()` waits.
   */
  forget(saveId: string): void {
    this.cache.forget(saveId);
  }

  /**
   * Builds a save's search index now (or brings it up to date, or reads its persisted copy), with the int8 copy of
   * its vectors the semantic arm scans, so the first query does not pay for it; with `indexSnapshots`, an index
   * built here is persisted before this returns. Returns the number of chunks indexed.
   */
  async warm(saveId: string): Promise<number> {
    requireSaveId(saveId);
    const size = await this.cache.use(saveId, async (index) => {
      await runStepsSliced(index.prepareSteps());
      return index.size;
    });
    await this.cache.flush();
    return size;
  }

  /** Persists the indexes changed since they were last persisted, and waits for the writes. */
  async flush(): Promise<void> {
    await this.cache.flush();
  }

  /**
   * Persists what changed (as `flush`), then lets go of every index held in memory and of the persisted files they
   * still read from (Mnemo.close calls it). A later query rebuilds or reopens its save's index.
   *
   * @example
   * ```ts
   * await narrative.close();
   * ```
   */
  async close(): Promise<void> {
    await this.cache.flush();
    this.cache.clear();
  }

  /**
   * True when a save's index is held in memory now (see `indexMemoryBudget`): its next query neither reads a
   * persisted index nor rebuilds one, unless another process wrote.
   *
   * @example
   * ```ts
   * narrative.holdsIndex('save-1'); // false until its first query or warm()
   * ```
   */
  holdsIndex(saveId: string): boolean {
    return this.cache.holds(saveId);
  }

  /** The saves' indexes held in memory now, and their estimated bytes (see `indexMemoryBudget`). */
  get heldIndexes(): { indexes: number; bytes: number } {
    return this.cache.held;
  }

  /** Number of chunks in a save, optionally of one type. */
  async count(saveId: string, options: { chunkType?: string } = {}): Promise<number> {
    requireSaveId(saveId);
    return this.store.countChunks(saveId, optionalChunkType(options.chunkType, 'chunkType'));
  }

  /**
   * A save's chunks in turn order, then insertion order, optionally a turn range, one type left out, paged (by
   * `offset` and `limit`, and with `maxTextBytes` by the UTF-8 size of their texts, the store reading no text it
   * leaves out).
   *
   * @example
   * ```ts
   * const page = await narrative.listChunks('run-1', { fromTurnId: 3, toTurnId: 3, limit: 50 });
   * ```
   */
  listChunks(saveId: string, options?: ListChunksOptions): Promise<Chunk[]> {
    return this.store.listChunks(requireSaveId(saveId), options);
  }

  /**
   * A save's turns in order, each with its chunk count and types (same options as `listChunks`).
   *
   * @example
   * ```ts
   * const [first] = await narrative.listTurns('run-1', { limit: 1 });
   * ```
   */
  listTurns(saveId: string, options?: ListChunksOptions): Promise<TurnSummary[]> {
    return this.store.listTurns(requireSaveId(saveId), options);
  }

  /**
   * Hybrid search over one save: BM25 with the save's own statistics and the embedder's vectors, each filtered
   * before ranking (the save's lore chunks are left out unless `chunkType: 'lore'` or `includeLore` asks for them), capped, fused (z-score by default), boosted by focus terms and optionally reranked. BM25 always
   * runs on the in-memory index; the vectors are searched in memory, or by the store when it can (`vectorSearch`).
   */
  async query(saveId: string, text: string, queryOptions: QueryOptions = {}): Promise<Hit[]> {
    const options: QueryOptions = { ...this.queryDefaults, ...queryOptions };
    requireSaveId(saveId);
    const request = resolveSearchRequest('narrative', text, options);
    const filter = resolveChunkFilter(options);
    // A persisted index found corrupt in use is dropped and the query answered again from a rebuilt one.
    return this.cache.use(saveId, (index) => this.queryIndex(saveId, index, request, filter, options));
  }

  private async queryIndex(saveId: string, index: CorpusIndex, request: SearchRequest, filter: ChunkSearchFilter, options: QueryOptions): Promise<Hit[]> {
    const vectorSearch = this.vectorSearch;
    const vectorOptions = { neighbourWeight: this.neighbourWeight };
    const accept = index.filterFor(chunkDocumentFilter(filter));
    const { hits, queryVector } = await searchCorpus({
      request,
      index,
      embedder: this.embedder,
      logger: this.logger,
      accept,
      reranker: this.reranker,
      vectorArm: vectorSearch === null ? undefined : {
        search: (vector, limit, statistics) => vectorSearch.search(saveId, vector, filter, limit, { ...vectorOptions, statistics }),
        score: (vector, ids) => vectorSearch.score(saveId, vector, ids, vectorOptions),
      },
      read: (ids) => this.store.getChunks(ids, saveId),
      idOf: (chunk) => chunk.id,
      textOf: (chunk) => chunk.text,
    });
    const chunkHits = hits.map(({ document, score, explanation }) => ({ ...document, score, explanation }));
    const factArm = resolveFactArm(options.facts);
    if (factArm === null || index.size === 0) return chunkHits;
    const facts = await this.factIndexes.get(saveId);
    if (facts === null) return chunkHits;
    // The facts arm: the best fact of each turn within the bound lifts the turn's chunks the filters permit.
    const byTurn = await bestFactPerTurn(facts, request, queryVector, factArm.weight, filter.maxTurnId);
    if (byTurn.size === 0) return chunkHits;
    const extra = await chunksAtFactTurns(index, byTurn, accept, new Set(chunkHits.map((hit) => hit.id)), request.k, (ids) => this.store.getChunks(ids, saveId));
    return liftByFacts(chunkHits, extra, byTurn, request.k);
  }

  private async attachVectors(chunks: NewChunk[]): Promise<void> {
    if (this.embedder === null) return;
    try {
      const texts = chunks.map((chunk) => chunk.text);
      const vectors = this.embeddingCache !== null ? await this.embeddingCache.embed(this.embedder, texts) : await embedInBatches(this.embedder, texts);
      chunks.forEach((chunk, index) => {
        const vector = vectors[index];
        chunk.embedding = vector !== undefined && vector.some((value) => value !== 0) ? vector : null;
      });
    } catch (error) {
      this.logger.warn(`embedder ${this.embedder.provider}/${this.embedder.modelId} failed (${(error as Error).message}); chunks stored without vectors, found by words until reindexed`);
    }
  }
}
