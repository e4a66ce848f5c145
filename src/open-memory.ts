// The front door: openMemory() picks a store and an embedder, checks they belong together, returns a Mnemo handle.
import type { Logger } from './core/logger.js';
import { silentLogger } from './core/logger.js';
import type { Clock } from './core/clock.js';
import { MnemoError } from './core/errors.js';
import type { Chunk, ChunkInput, Hit, QueryOptions, SaveSummary } from './core/types.js';
import { ContextBuilder } from './context/context-builder.js';
import { describeIdentity, ensureEmbedderIdentity, identityOf } from './embedders/embedder-identity.js';
import { EMBEDDING_CACHE_ENTRIES, EmbeddingCache } from './embedders/embedding-cache.js';
import { reindex } from './embedders/reindex.js';
import type { ReindexOptions, ReindexResult } from './embedders/reindex.js';
import { resolveEmbedder } from './embedders/resolve-embedder.js';
import type { EmbedderName } from './embedders/resolve-embedder.js';
import { LoreBook } from './lore/lore-book.js';
import { LivingMemory } from './living/living-memory.js';
import type { LivingMemoryOptions } from './living/living-memory.js';
import { NarrativeMemory } from './narrative/narrative-memory.js';
import type { NarrativeMemoryOptions, UpdateTurnInput } from './narrative/narrative-memory.js';
import type { MetadataRoles } from './narrative/metadata-roles.js';
import { RecallMemory } from './recall/recall-memory.js';
import { deleteChunks } from './saves/delete-chunks.js';
import type { DeleteChunksCounts, DeleteChunksInput } from './saves/delete-chunks.js';
import { deleteSave } from './saves/delete-save.js';
import { forkSave } from './saves/fork-save.js';
import { rewindSave } from './saves/rewind-save.js';
import type { SaveOperation } from './saves/save-operation.js';
import type { Embedder } from './seams/embedder.js';
import type { LLM } from './seams/llm.js';
import type { Reranker } from './seams/reranker.js';
import type { TokenCounter } from './seams/token-counter.js';
import type { EmbedderIdentity } from './seams/embedding-store.js';
import type { DeleteChunksOptions, DeleteCounts, ForkCounts, ListChunksOptions, RewindCounts, Store, TurnSummary } from './seams/store.js';
import { createAnalyzer } from './retrieval/analyzer.js';
import type { AnalyzerOptions } from './retrieval/analyzer.js';
import type { Analyzer } from './retrieval/corpus-index.js';
import { snapshotDirectory } from './retrieval/snapshot-directory.js';
import type { IndexSnapshots } from './retrieval/snapshot-directory.js';
import { openInMemoryStore } from './stores/memory/index.js';
import { isPostgresUrl } from './stores/postgres/identifiers.js';
import { openSqliteStore } from './stores/sqlite/index.js';
import { exportSave } from './saves/export-save.js';
import type { ExportSaveOptions } from './saves/export-save.js';
import { importSave } from './saves/import-save.js';
import type { ImportSaveOptions, ImportSaveReport } from './saves/import-save.js';
import type { SaveFileSource } from './saves/read-lines.js';
import type { Tracer } from './tracing/tracer.js';

/** How to open Mnemo. */
export interface OpenMemoryOptions {
  /** A SQLite file (default `mnemo.db`), or `:memory:` for the in-memory store. */
  path?: string;
  /**
   * A PostgreSQL URL (`postgres://user:password@host:5432/database`): the PostgreSQL + pgvector store, in the
   * schema `mnemo` (open it with `openPostgresStore` for other settings). Its code is loaded only when used.
   */
  url?: string;
  /** A store you opened yourself. */
  store?: Store;
  /**
   * Computes vectors for the semantic arm: an Embedder, a name (`auto`, `static`, `minilm`, `hashing`, `none`),
   * or null for lexical search only. Default `auto`: a local MiniLM model if present, else the static GloVe
   * vectors, else none (one log line says which).
   */
  embedder?: Embedder | EmbedderName | null;
  /** Where `auto`, `static` and `minilm` find their files (see resolveEmbedder). */
  modelDir?: string;
  cacheDir?: string;
  /** The embedding cache: on by default with 50,000 entries; a number sets the size, false or 0 turns it off. */
  embeddingCache?: boolean | number;
  /** An optional cross-encoder for the final re-sort. */
  reranker?: Reranker | null;
  /** The model living memory distils turns with; with one, its background worker starts (see `living`). */
  llm?: LLM | null;
  /** Settings of living memory's pipeline (maxFacts, retries, autoStart, trend windows...). */
  living?: Omit<LivingMemoryOptions, 'store' | 'llm' | 'logger' | 'clock'>;
  /** Where Mnemo's few log lines go (the embedder `auto` picked, warnings such as an embedder failing): nowhere unless given, e.g. `consoleLogger`. */
  logger?: Logger;
  clock?: Clock;
  /** Receives the remember / recall events (`memory_write`, `memory_read`). */
  tracer?: Tracer | null;
  /** How text becomes search terms: analyzer options, or your own function (default: English stems, English stop words dropped). */
  analyzer?: AnalyzerOptions | Analyzer;
  /** Neighbour context for the semantic arm: own + w * (previous + next). */
  neighbourWeight?: number;
  /**
   * Which chunk metadata keys hold a chunk's speaker, scene and time for the search's context signals (default
   * `speaker`, `scene`, `time`; null leaves one unread). See `MetadataRoles` and docs/retrieval-quality.md.
   */
  metadataRoles?: MetadataRoles;
  /** Defaults for every query (fusion, weights, caps, ...), overridden by a query's own options. */
  queryDefaults?: QueryOptions;
  /**
   * Where each save's search index is persisted, so a save opens without rebuilding it (one file per save,
   * checked against the save's version, the embedder and the analyzer; see docs/serving.md). Default: beside a
   * SQLite file (`<file>.index/`); none in memory or on PostgreSQL unless given (a folder local to the process);
   * false: never persisted.
   */
  indexDirectory?: string | false;
  /** Bytes the saves' indexes may hold in memory together: past it the least recently used are evicted (and reopen from their persisted copy). Default: no bound. */
  indexMemoryBudget?: number;
  /** How the context builder counts tokens (default: o200k_base when the optional peer gpt-tokenizer is installed, else estimateTokenCounter()). */
  tokenCounter?: TokenCounter;
}

/**
 * A Mnemo handle: narrative memory and living memory over one store. Close it when done.
 *
 * @example
 * ```ts
 * const memory = await openMemory({ path: 'game.db' });
 * await memory.add({ saveId: 'run-1', turnId: 1, text: 'The smith owes Kaël three silver.' });
 * const hits = await memory.query('run-1', 'who owes money?', { k: 3 });
 * await memory.close();
 * ```
 */
export class Mnemo {
  readonly store: Store;
  readonly narrative: NarrativeMemory;
  /** Remember / recall (seed 001): `memory.recall.store/retrieve/clear`, and the backend of each declaration. */
  readonly recall: RecallMemory;
  /** The lore book: world knowledge scoped by tags, imported from a YAML repository. */
  readonly lore: LoreBook;
  /** Facts, beliefs, missions and mental models, distilled in the background (see LivingMemory). */
  readonly living: LivingMemory;
  /** The prompt context builder: a character's mental model, beliefs, facts, memories and lore within a token budget. */
  readonly context: ContextBuilder;
  /** What the save-level operations (src/saves/) work with: the store, this process's index cache and living worker. */
  private readonly saves: SaveOperation;

  constructor(options: NarrativeMemoryOptions & { tracer?: Tracer | null; llm?: LLM | null; living?: OpenMemoryOptions['living']; tokenCounter?: TokenCounter }) {
    this.store = options.store;
    this.narrative = new NarrativeMemory(options);
    this.recall = new RecallMemory({ store: options.store, openEphemeralStore: openInMemoryStore, embedder: options.embedder, tracer: options.tracer, clock: options.clock, logger: options.logger });
    this.lore = new LoreBook({ ...options, narrative: this.narrative });
    this.living = new LivingMemory({ ...options.living, store: options.store, llm: options.llm ?? null, logger: options.logger, clock: options.clock });
    this.context = new ContextBuilder({ narrative: this.narrative, living: this.living, lore: this.lore, analyzer: options.analyzer, tokenCounter: options.tokenCounter });
    this.saves = { store: options.store, indexes: this.narrative, worker: this.living };
  }

  /** The embedder in use, or null (lexical search only). */
  get embedder(): Embedder | null {
    return this.narrative.embedder;
  }

  /** Adds one chunk; returns its UUID. */
  add(input: ChunkInput): Promise<string> {
    return this.narrative.add(input);
  }

  /** Adds chunks of one save in one transaction; returns their UUIDs. */
  addMany(inputs: readonly ChunkInput[]): Promise<string[]> {
    return this.narrative.addMany(inputs);
  }

  /** Replaces a turn's chunks of one type; returns the new UUIDs. */
  updateTurn(input: UpdateTurnInput): Promise<string[]> {
    return this.narrative.updateTurn(input);
  }

  /**
   * Deletes everything of the save after `turnId`, every layer in one transaction (chunks, facts, beliefs, mental
   * models, queued jobs); returns the number of chunks removed.
   */
  async rewind(saveId: string, turnId: number): Promise<number> {
    return (await this.rewindWithCounts(saveId, turnId)).chunks;
  }

  /** As rewind, returning what each layer lost. Background work on a rewound turn is cancelled. */
  rewindWithCounts(saveId: string, turnId: number): Promise<RewindCounts> {
    return rewindSave(this.saves, saveId, turnId);
  }

  /**
   * Creates `newSaveId` holding exactly the state of `saveId` as of `atTurn` (chunks with their vectors, facts,
   * beliefs, mental models, queued jobs), in one transaction; the old save is untouched.
   */
  fork(saveId: string, newSaveId: string, atTurn: number): Promise<ForkCounts> {
    return forkSave(this.saves, saveId, newSaveId, atTurn);
  }

  /**
   * Removes every layer of a save (chunks with their vectors, synced lore chunks, facts, beliefs, mental models and
   * their versions, jobs, its search index) in one transaction; returns what each layer lost. An unknown save gives
   * zeros, not an error.
   */
  deleteSave(saveId: string): Promise<DeleteCounts> {
    return deleteSave(this.saves, saveId);
  }

  /**
   * Removes chunks of one save, by id (`{ saveId, ids }`) or every chunk of one entry (`{ saveId, entryId }`), in one
   * transaction, with their vectors and their entries in the save's search index; returns how many went (unknown
   * ids count 0). Facts, beliefs and models distilled from their turns stay (they cite turns, not chunks): rewind, or
   * `living.recordTurn` to distil the turn again, to change those. `excludeChunkType` leaves chunks of that type alone.
   *
   * @example
   * ```ts
   * const { chunks } = await memory.deleteChunks({ saveId: 'run-1', ids: [hit.id] });
   * ```
   */
  deleteChunks(input: DeleteChunksInput, options?: DeleteChunksOptions): Promise<DeleteChunksCounts> {
    return deleteChunks({ store: this.store, indexes: this.narrative }, input, options);
  }

  /**
   * The save file of a save (JSON Lines, docs/export-import.md), line by line: every layer (chunks with their vectors
   * unless `vectors: false`, facts, beliefs with history and sources, mental models and their versions, queued
   * jobs, the store's missions), read a page at a time.
   *
   * @example
   * ```ts
   * const file = createWriteStream('run-1.jsonl');
   * for await (const line of memory.exportSave('run-1')) if (!file.write(line)) await once(file, 'drain');
   * ```
   */
  exportSave(saveId: string, options?: ExportSaveOptions): AsyncGenerator<string> {
    return exportSave(this.store, saveId, options);
  }

  /**
   * Imports a save file into a new save (`as`, or the id it was exported from), every layer in one transaction,
   * after checking every line (a malformed or truncated file writes nothing and names the line). Its queued jobs
   * wake the living worker; the file's missions are applied only with `settings: true`.
   *
   * @example
   * ```ts
   * const report = await memory.importSave({ path: 'run-1.jsonl' }, { as: 'run-1-restored' });
   * ```
   */
  importSave(source: SaveFileSource, options?: ImportSaveOptions): Promise<ImportSaveReport> {
    return importSave({ ...this.saves, store: this.store }, source, options);
  }

  /**
   * Re-embeds every chunk of every save, every remembered entry and every lore entry with `embedder`, resumably
   * (see `reindex`; the store's embedding cache is used unless `cache` says otherwise). To change embedder, open
   * the handle without one (`embedder: null`: a store with another embedder's vectors opens that way), reindex,
   * close, and open again with the new embedder. A handle searching with another embedder is refused
   * (INVALID_INPUT): its queries would compare that embedder's vectors with the new ones.
   *
   * @example
   * ```ts
   * const memory = await openMemory({ path: 'game.db', embedder: null });
   * const result = await memory.reindex(await loadStaticEmbedder(), { onProgress: ({ done, total }) => console.log(done, total) });
   * await memory.close();
   * ```
   */
  async reindex(embedder: Embedder, options: ReindexOptions = {}): Promise<ReindexResult> {
    const current = this.embedder === null ? null : describeIdentity(identityOf(this.embedder));
    const target = describeIdentity(identityOf(embedder));
    if (current !== null && current !== target) {
      throw new MnemoError('INVALID_INPUT', `reindex: this handle searches with ${current}, so re-embedding its store with ${target} would leave its queries on the old vectors. Open it with embedder: null, reindex, then open it again with the new embedder.`, { details: { field: 'embedder' } });
    }
    return reindex(this.store, embedder, { cache: new EmbeddingCache(this.store.embeddings), ...options });
  }

  /** Number of chunks in a save. */
  count(saveId: string, options?: { chunkType?: string }): Promise<number> {
    return this.narrative.count(saveId, options);
  }

  /**
   * Builds a save's search index now, so the first query does not pay for it: a save's index is otherwise built
   * from the store on its first query (about a second per 100,000 chunks). Call it while a game loads. Returns the
   * number of chunks indexed.
   *
   * @example
   * ```ts
   * await memory.warm('save-1'); // during the loading screen
   * const hits = await memory.query('save-1', 'who holds the iron key?'); // no index build here
   * ```
   */
  warm(saveId: string): Promise<number> {
    return this.narrative.warm(saveId);
  }

  /** Hybrid search over one save. */
  query(saveId: string, text: string, options?: QueryOptions): Promise<Hit[]> {
    return this.narrative.query(saveId, text, options);
  }

  /** Every save with its counts. */
  listSaves(): Promise<SaveSummary[]> {
    return this.store.listSaves();
  }

  /** A save's chunks in turn order, then insertion order (a turn range, a type left out, paged). */
  listChunks(saveId: string, options?: ListChunksOptions): Promise<Chunk[]> {
    return this.narrative.listChunks(saveId, options);
  }

  /** A save's turns in order, each with its chunk count and types. */
  listTurns(saveId: string, options?: ListChunksOptions): Promise<TurnSummary[]> {
    return this.narrative.listTurns(saveId, options);
  }

  /** Which kind of store this handle runs on (`sqlite`, `memory`, `postgres`). */
  get provider(): string {
    return this.store.provider;
  }

  /** Where the store lives: a file path, `:memory:`, or a PostgreSQL URL without its password. */
  get location(): string {
    return this.store.location;
  }

  /** The embedder recorded as the maker of the store's vectors, or null when it holds none. */
  vectorIdentity(): Promise<EmbedderIdentity | null> {
    return this.store.embeddings.identity();
  }

  /** Stops living memory's worker (its in-flight job goes back to the queue), then closes the store. */
  async close(): Promise<void> {
    await this.living.stop();
    await this.narrative.close();
    await this.store.close();
  }
}

function openLocal(path: string): Store {
  return path === ':memory:' ? openInMemoryStore() : openSqliteStore({ path });
}

/** The PostgreSQL adapter is imported only here, so SQLite users never load it (nor `pg`). */
async function openPostgres(url: string): Promise<Store> {
  const { openPostgresStore } = await import('./stores/postgres/index.js');
  return openPostgresStore({ url });
}

/** The persisted indexes' folder: the one given, else `<file>.index` beside a SQLite file, else none. */
function indexSnapshotsOf(directory: string | false | undefined, store: Store): IndexSnapshots | null {
  if (directory === false) return null;
  if (directory !== undefined) {
    if (typeof directory !== 'string' || directory === '') throw new MnemoError('INVALID_INPUT', `indexDirectory: expected a folder path or false, got ${JSON.stringify(directory)}.`, { details: { field: 'indexDirectory' } });
    return snapshotDirectory(directory);
  }
  return store.provider === 'sqlite' && store.location !== ':memory:' && store.location !== '' ? snapshotDirectory(`${store.location}.index`) : null;
}

function indexMemoryBudgetOf(budget: number | undefined): number | undefined {
  if (budget === undefined) return undefined;
  if (typeof budget !== 'number' || !(budget > 0)) throw new MnemoError('INVALID_INPUT', `indexMemoryBudget: expected a number of bytes above 0, got ${JSON.stringify(budget)}.`, { details: { field: 'indexMemoryBudget' } });
  return budget;
}

function cacheSize(option: boolean | number | undefined): number {
  if (option === undefined || option === true) return EMBEDDING_CACHE_ENTRIES;
  if (option === false) return 0;
  if (!Number.isInteger(option) || option < 0) throw new MnemoError('INVALID_INPUT', `embeddingCache: expected true, false or a number of entries >= 0, got ${JSON.stringify(option)}.`, { details: { field: 'embeddingCache' } });
  return option;
}

/**
 * Opens Mnemo on a SQLite file (the default), in memory, on PostgreSQL (`url`), or on a store you pass. The embedder must be the one
 * that made the store's vectors (or the store must have none yet): otherwise EMBEDDER_MISMATCH names both,
 * and `mnemo reindex` re-embeds the store. Lexical-only opening (`embedder: null`) is always allowed.
 *
 * @example
 * ```ts
 * const memory = await openMemory({ path: ':memory:', embedder: 'static' });
 * const shared = await openMemory({ url: 'postgres://mnemo:secret@db.internal/game', embedder: 'static' });
 * ```
 */
export async function openMemory(options: OpenMemoryOptions = {}): Promise<Mnemo> {
  const given = (['path', 'url', 'store'] as const).filter((key) => options[key] !== undefined);
  if (given.length > 1) {
    throw new MnemoError('INVALID_INPUT', `openMemory: expected one of \`path\`, \`url\` or \`store\`, got ${given.join(' and ')}. Pass one.`);
  }
  if (options.path !== undefined && isPostgresUrl(options.path)) {
    throw new MnemoError('INVALID_INPUT', 'openMemory: `path` is for SQLite files, got a PostgreSQL URL. Pass it as `url` instead.', { details: { field: 'path' } });
  }
  const maxEntries = cacheSize(options.embeddingCache);
  const logger = options.logger ?? silentLogger;
  const store = options.store ?? (options.url !== undefined ? await openPostgres(options.url) : openLocal(options.path ?? 'mnemo.db'));
  try {
    const requested = options.embedder === undefined ? 'auto' : options.embedder;
    const embedder = typeof requested === 'string'
      ? await resolveEmbedder(requested as EmbedderName, { modelDir: options.modelDir, cacheDir: options.cacheDir, logger, recorded: await store.embeddings.identity() })
      : requested;
    await ensureEmbedderIdentity(store, embedder);
    const indexSnapshots = indexSnapshotsOf(options.indexDirectory, store);
    return new Mnemo({
      store,
      embedder,
      reranker: options.reranker ?? null,
      logger,
      clock: options.clock,
      tracer: options.tracer ?? null,
      analyzer: typeof options.analyzer === 'function' ? options.analyzer : createAnalyzer(options.analyzer),
      neighbourWeight: options.neighbourWeight,
      metadataRoles: options.metadataRoles,
      queryDefaults: options.queryDefaults,
      embeddingCache: maxEntries > 0 ? new EmbeddingCache(store.embeddings, maxEntries) : null,
      llm: options.llm ?? null,
      living: options.living,
      tokenCounter: options.tokenCounter,
      indexSnapshots,
      // A bulk load's vectors wait for its int8 copy beside the persisted indexes (see RowSpill).
      indexScratchDirectory: indexSnapshots?.location ?? null,
      indexMemoryBudget: indexMemoryBudgetOf(options.indexMemoryBudget),
    });
  } catch (error) {
    if (options.store === undefined) await store.close();
    throw error;
  }
}
