// The remember / recall layer of a Mnemo handle (`memory.recall`): the persistent backends and the per-declaration choice.
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { silentLogger } from '../core/logger.js';
import type { Logger } from '../core/logger.js';
import type { JsonValue, Metadata } from '../core/types.js';
import type { Embedder } from '../seams/embedder.js';
import type { Store } from '../seams/store.js';
import type { Tracer } from '../tracing/tracer.js';
import { InMemoryBackend } from './in-memory-backend.js';
import type { KeyedMemoryBackend, MemoryBackend, RetrievalMode, StoreOptions } from './memory-backend.js';
import type { MemoryDeclaration } from './memory-declaration.js';
import type { MemoryEntry } from './memory-entry.js';
import { RecallIndex } from './recall-index.js';
import type { BackendResolver } from './resolve-backend.js';
import { StoreMemoryBackend } from './store-memory-backend.js';

/** What the recall layer is built from. */
export interface RecallMemoryOptions {
  /** The engine's store: persistent declarations live in its recall sub-store. */
  store: Store;
  /**
   * Opens the private store of ephemeral vector_db declarations (called once, on the first such declaration);
   * `Mnemo` passes `openInMemoryStore`.
   */
  openEphemeralStore: () => Store;
  embedder?: Embedder | null;
  tracer?: Tracer | null;
  clock?: Clock;
  logger?: Logger;
  /** Semantic-only hits below this cosine similarity are dropped (default 0.3). */
  minSimilarity?: number;
}

/** A semantic and an exact backend over one store, sharing one search index. */
function backendPair(store: Store, options: RecallMemoryOptions, clock: Clock): Record<RetrievalMode, StoreMemoryBackend> {
  const index = new RecallIndex(store.recall, clock);
  const make = (retrieval: RetrievalMode) =>
    new StoreMemoryBackend({ store, retrieval, index, clock, embedder: options.embedder, tracer: options.tracer, logger: options.logger, minSimilarity: options.minSimilarity });
  return { semantic: make('semantic'), exact: make('exact') };
}

/**
 * Remember / recall on a Mnemo handle. As a MemoryBackend it is the persistent, semantic backend on the engine's
 * store; `backendFor(declaration)` picks the backend a declaration asks for:
 *
 * | store      | backend   | retrieval | backend used                                             |
 * |------------|-----------|-----------|----------------------------------------------------------|
 * | persistent | vector_db | semantic  | `persistent.semantic` (the engine's store, hybrid search) |
 * | persistent | vector_db | exact     | `persistent.exact` (the engine's store, substring scoring) |
 * | ephemeral  | in_memory | exact     | `ephemeral` (the seed's InMemoryBackend)                  |
 * | ephemeral  | vector_db | either    | a private in-memory store with the same search            |
 *
 * @example
 * ```ts
 * const memory = await openMemory({ path: 'agent.db', embedder: hashingEmbedder() });
 * await memory.recall.store('contract_type', 'NDA', { scope: 'LegalKnowledge' });
 * const hits = await memory.recall.retrieve('contract', 5, 'LegalKnowledge');
 * await remember(memory, LongTermKnowledge, 'contract_summary', summary);
 * ```
 */
export class RecallMemory implements KeyedMemoryBackend, BackendResolver {
  readonly retrieval = 'semantic' as const;
  /** The engine store's backends. */
  readonly persistent: Record<RetrievalMode, StoreMemoryBackend>;
  /** Process memory, the seed's InMemoryBackend: for ephemeral in_memory declarations. */
  readonly ephemeral: InMemoryBackend;
  private ephemeralVector: Record<RetrievalMode, StoreMemoryBackend> | null = null;
  private readonly options: RecallMemoryOptions;
  private readonly clock: Clock;

  constructor(options: RecallMemoryOptions) {
    this.options = { ...options, logger: options.logger ?? silentLogger };
    this.clock = options.clock ?? systemClock;
    this.persistent = backendPair(options.store, this.options, this.clock);
    this.ephemeral = new InMemoryBackend({ tracer: options.tracer, clock: this.clock });
  }

  /** The backend a declaration's remember / recall go to (see the table above). */
  backendFor(declaration: MemoryDeclaration): MemoryBackend {
    if (declaration.store === 'persistent') return this.persistent[declaration.retrieval];
    if (declaration.backend === 'in_memory') return this.ephemeral;
    this.ephemeralVector ??= backendPair(this.options.openEphemeralStore(), this.options, this.clock);
    return this.ephemeralVector[declaration.retrieval];
  }

  store(key: string, value: JsonValue, metadata?: Metadata | null, options?: StoreOptions): Promise<MemoryEntry> {
    return this.persistent.semantic.store(key, value, metadata, options);
  }

  retrieve(query: string, topK?: number, scope?: string | null): Promise<MemoryEntry[]> {
    return this.persistent.semantic.retrieve(query, topK, scope);
  }

  clear(scope?: string | null): Promise<number> {
    return this.persistent.semantic.clear(scope);
  }

  count(scope?: string | null): Promise<number> {
    return this.persistent.semantic.count(scope);
  }

  /**
   * The live entry stored under exactly `key` in `scope` of the engine's store, or null (a read by key, not a search).
   *
   * @example
   * ```ts
   * await memory.recall.store('mood', 'wary', { scope: 'marta' });
   * (await memory.recall.get('mood', 'marta'))?.value; // 'wary'
   * ```
   */
  get(key: string, scope: string): Promise<MemoryEntry | null> {
    return this.persistent.semantic.get(key, scope);
  }

  /**
   * The keys of the live entries of `scope` in the engine's store, in the order they were first stored.
   *
   * @example
   * ```ts
   * await memory.recall.keys('marta'); // ['mood', 'debt']
   * ```
   */
  keys(scope: string): Promise<string[]> {
    return this.persistent.semantic.keys(scope);
  }

  /**
   * Deletes the entries of `scope` stored under these exact keys in the engine's store; returns how many went.
   *
   * @example
   * ```ts
   * await memory.recall.forget(['mood'], 'marta'); // 1
   * ```
   */
  forget(keys: readonly string[], scope: string): Promise<number> {
    return this.persistent.semantic.forget(keys, scope);
  }

  /** Purges the expired entries of every backend (persistent and ephemeral); returns how many went. */
  async purgeExpired(): Promise<number> {
    let removed = (await this.persistent.semantic.purgeExpired()) + (await this.ephemeral.purgeExpired());
    if (this.ephemeralVector !== null) removed += await this.ephemeralVector.semantic.purgeExpired();
    return removed;
  }

  /** Every scope of the engine's store with its number of live entries. */
  listScopes(): Promise<{ scope: string | null; entries: number }[]> {
    return this.persistent.semantic.listScopes();
  }
}
