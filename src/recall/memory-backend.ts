// The MemoryBackend interface (seed 001): store, retrieve and clear remembered values, plus count and purge.
import type { JsonValue, Metadata } from '../core/types.js';
import type { MemoryEntry } from './memory-entry.js';

/** How a backend ranks: `exact` is the seed's substring scoring, `semantic` the hybrid search (words and vectors). */
export type RetrievalMode = 'exact' | 'semantic';

/** Options of one `store` call. */
export interface StoreOptions {
  /** The entry stops being returned this many milliseconds after it is stored (null or absent: never). */
  decayMs?: number | null;
}

/**
 * Semantic memory storage (the seed's abstract `MemoryBackend`). Entries are identified by (scope, key), the
 * scope coming from `metadata.scope`: storing the same key in the same scope replaces the entry.
 *
 * Implementations: `InMemoryBackend` (the seed's dict backend), `StoreMemoryBackend` (on the engine's store,
 * SQLite by default), and `RecallMemory` (`memory.recall`, which also picks a backend per declaration).
 *
 * @example
 * ```ts
 * const memory: MemoryBackend = new InMemoryBackend();
 * await memory.store('contract_type', 'NDA', { scope: 'LegalKnowledge' });
 * const results = await memory.retrieve('contract', 5, 'LegalKnowledge');
 * const removed = await memory.clear('LegalKnowledge'); // 1
 * ```
 */
export interface MemoryBackend {
  /** How this backend ranks. */
  readonly retrieval: RetrievalMode;
  /** Stores a JSON value under a non-empty key; returns the stored entry (score 0). */
  store(key: string, value: JsonValue, metadata?: Metadata | null, options?: StoreOptions): Promise<MemoryEntry>;
  /** The `topK` (default 5) best live entries for `query`, in one scope or all (null/absent). */
  retrieve(query: string, topK?: number, scope?: string | null): Promise<MemoryEntry[]>;
  /** Removes every entry of one scope, or every entry (null/absent); returns how many live entries went. */
  clear(scope?: string | null): Promise<number>;
  /** The number of live entries of one scope, or of all. */
  count(scope?: string | null): Promise<number>;
  /** Deletes every expired entry now; returns how many. (Reads purge too, so this is for housekeeping.) */
  purgeExpired(): Promise<number>;
}

/**
 * A MemoryBackend that also reads, lists and deletes by key within one scope (a key-value store's calls, as
 * LangChain's `BaseStore` needs them). Keys are exact here (case-sensitive), unlike retrieval's matching. Every
 * backend Mnemo ships is one.
 *
 * @example
 * ```ts
 * const memory: KeyedMemoryBackend = new InMemoryBackend();
 * await memory.store('mood', 'wary', { scope: 'marta' });
 * (await memory.get('mood', 'marta'))?.value; // 'wary'
 * await memory.keys('marta');                  // ['mood']
 * await memory.forget(['mood'], 'marta');      // 1
 * ```
 */
export interface KeyedMemoryBackend extends MemoryBackend {
  /** The live entry stored under exactly `key` in `scope` (score 1), or null. A read, not a search: no trace event. */
  get(key: string, scope: string): Promise<MemoryEntry | null>;
  /** The keys of the live entries of `scope`, in the order they were first stored. */
  keys(scope: string): Promise<string[]>;
  /** Deletes the entries of `scope` under these exact keys (at most 1000; absent ones are ignored); returns how many went. */
  forget(keys: readonly string[], scope: string): Promise<number>;
}
