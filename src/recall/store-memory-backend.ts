// The persistent MemoryBackend: entries in the engine's store, found by the hybrid search or by exact matching.
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { MnemoError } from '../core/errors.js';
import { frozenJsonCopy, renderValue } from '../core/json-value.js';
import { onceLogger, silentLogger } from '../core/logger.js';
import type { Logger } from '../core/logger.js';
import type { JsonValue, Metadata } from '../core/types.js';
import { optionalNumber, requireQueryText } from '../core/validate.js';
import { embedInBatches } from '../embedders/embed-in-batches.js';
import type { Analyzer } from '../retrieval/corpus-index.js';
import { resolveSearchRequest } from '../retrieval/resolve-search-request.js';
import { searchCorpus } from '../retrieval/search-corpus.js';
import type { Embedder } from '../seams/embedder.js';
import type { RecallStore, StoredRecallEntry } from '../seams/recall-store.js';
import type { Store } from '../seams/store.js';
import type { Tracer } from '../tracing/tracer.js';
import { TraceEventType } from '../tracing/trace-event.js';
import { EXACT_KEY_SCORE, byScoreThenNewest, exactScore } from './exact-score.js';
import type { Ranked } from './exact-score.js';
import type { KeyedMemoryBackend, RetrievalMode, StoreOptions } from './memory-backend.js';
import type { MemoryEntry } from './memory-entry.js';
import { RecallIndex, searchText } from './recall-index.js';
import { optionalDecayMs, optionalScope, prepareMetadata, requireMemoryKey, requireMemoryKeys, requireMemoryValue, requireScope, requireTopK } from './validate-recall-input.js';
import { valueTypeName } from './value-type-name.js';

/** Semantic-only matches below this cosine similarity are not returned (a word match always is). */
export const DEFAULT_MIN_SIMILARITY = 0.3;

/** How a StoreMemoryBackend is made. */
export interface StoreMemoryBackendOptions {
  /** The engine's store; entries live in its `recall` sub-store. */
  store: Store;
  /** `semantic` (default): hybrid search. `exact`: the seed's substring scoring, over the stored entries. */
  retrieval?: RetrievalMode;
  /** Computes the vectors of the semantic arm; without one, semantic retrieval searches by words only. */
  embedder?: Embedder | null;
  tracer?: Tracer | null;
  clock?: Clock;
  logger?: Logger;
  /** Semantic-only hits below this cosine similarity are dropped (default 0.3). */
  minSimilarity?: number;
  /** Index terms of a text (default: the Unicode tokenizer). */
  analyzer?: Analyzer;
  /** An index shared with other backends on the same store, so that their writes keep it in step. */
  index?: RecallIndex;
}

interface Candidate extends Ranked {
  /** 1 for an exact key match (always first), else 0. */
  tier: number;
  /** The entry, when ranking already read it. */
  entry?: StoredRecallEntry;
}

/**
 * A MemoryBackend on the engine's store (SQLite by default, or whatever store the engine was opened on): entries
 * survive restarts, values are any JSON and come back exactly, scopes never mix.
 *
 * Semantic retrieval runs the foundation's hybrid search over the scope's entries (key and value text: BM25 and
 * the embedder's vectors, fused with RRF). Entries whose key equals the query come first with score 1; every
 * other hit scores its fused RRF score divided by the best possible one (1 = first in every arm), in (0, 1].
 * Exact retrieval applies the seed's substring scoring (1.0 / 0.7 / 0.4) to the stored entries.
 *
 * @example
 * ```ts
 * const backend = new StoreMemoryBackend({ store: openSqliteStore({ path: 'agent.db' }), embedder: hashingEmbedder() });
 * await backend.store('contract_summary', { risk_score: 0.35 }, { scope: 'LegalKnowledge' });
 * const [hit] = await backend.retrieve('contract risk', 3, 'LegalKnowledge');
 * ```
 */
export class StoreMemoryBackend implements KeyedMemoryBackend {
  readonly retrieval: RetrievalMode;
  readonly embedder: Embedder | null;
  private readonly tracer: Tracer | null;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly minSimilarity: number;
  private readonly index: RecallIndex;
  /** The engine store's recall sub-store. */
  private readonly entries: RecallStore;

  constructor(options: StoreMemoryBackendOptions) {
    if (options.retrieval !== undefined && options.retrieval !== 'semantic' && options.retrieval !== 'exact') {
      throw new MnemoError('INVALID_INPUT', `retrieval: expected "semantic" or "exact", got ${JSON.stringify(options.retrieval)}.`, { details: { field: 'retrieval' } });
    }
    this.retrieval = options.retrieval ?? 'semantic';
    this.entries = options.store.recall;
    this.embedder = options.embedder ?? null;
    this.tracer = options.tracer ?? null;
    this.clock = options.clock ?? systemClock;
    this.logger = onceLogger(options.logger ?? silentLogger);
    this.minSimilarity = optionalNumber(options.minSimilarity, 'minSimilarity', -1) ?? DEFAULT_MIN_SIMILARITY;
    this.index = options.index ?? new RecallIndex(options.store.recall, this.clock, options.analyzer);
  }

  async store(key: string, value: JsonValue, metadata?: Metadata | null, options: StoreOptions = {}): Promise<MemoryEntry> {
    const checkedKey = requireMemoryKey(key);
    const checkedValue = requireMemoryValue(value);
    const prepared = prepareMetadata(metadata);
    const decayMs = optionalDecayMs(options.decayMs);
    const now = this.clock();
    const valueText = renderValue(checkedValue);
    const embedding = await this.embed(searchText(checkedKey, valueText));
    const entry = { scope: prepared.scope, key: checkedKey, value: checkedValue, metadata: prepared.metadata, createdAt: now, expiresAt: decayMs === null ? null : now + decayMs };
    const result = await this.entries.put({ ...entry, embedding });
    this.index.afterPut(result, { seq: result.seq, scope: prepared.scope, key: checkedKey, valueText, embedding });
    this.tracer?.emit(TraceEventType.MEMORY_WRITE, { key: checkedKey, value_type: valueTypeName(checkedValue) });
    return toMemoryEntry({ ...entry, seq: result.seq }, 0);
  }

  async retrieve(query: string, topK?: number, scope?: string | null): Promise<MemoryEntry[]> {
    const queryText = requireQueryText(query);
    const k = requireTopK(topK);
    const scopeName = optionalScope(scope);
    const now = this.clock();
    await this.purge(now);
    const ranked = this.retrieval === 'exact' ? await this.rankExact(queryText, scopeName, now) : await this.rankSemantic(queryText, k, scopeName, now);
    const head = ranked.slice(0, k);
    const unread = head.filter((candidate) => candidate.entry === undefined).map((candidate) => candidate.seq);
    const stored = new Map((unread.length === 0 ? [] : await this.entries.getEntries(unread)).map((entry) => [entry.seq, entry]));
    const results = head.flatMap((candidate) => {
      const entry = candidate.entry ?? stored.get(candidate.seq);
      return entry === undefined || (entry.expiresAt !== null && entry.expiresAt < now) ? [] : [toMemoryEntry(entry, candidate.score)];
    });
    this.tracer?.emit(TraceEventType.MEMORY_READ, { query: queryText, results_count: results.length, top_k: k });
    return results;
  }

  async clear(scope?: string | null): Promise<number> {
    const scopeName = optionalScope(scope);
    await this.purge(this.clock());
    const result = await this.entries.clear(scopeName);
    this.index.afterRemove(result);
    return result.count;
  }

  async get(key: string, scope: string): Promise<MemoryEntry | null> {
    const checkedKey = requireMemoryKey(key);
    const scopeName = requireScope(scope);
    const found = (await this.entries.findByFoldedKey(checkedKey.toLowerCase(), scopeName, this.clock())).find((entry) => entry.key === checkedKey);
    return found === undefined ? null : toMemoryEntry(found, 1);
  }

  async keys(scope: string): Promise<string[]> {
    const scopeName = requireScope(scope);
    const keys: string[] = [];
    await this.entries.scan(scopeName, this.clock(), (row) => keys.push(row.key));
    return keys;
  }

  async forget(keys: readonly string[], scope: string): Promise<number> {
    const checkedKeys = requireMemoryKeys(keys);
    const scopeName = requireScope(scope);
    const result = await this.entries.deleteKeys(scopeName, checkedKeys);
    this.index.afterRemove(result);
    return result.count;
  }

  async count(scope?: string | null): Promise<number> {
    const scopeName = optionalScope(scope);
    const now = this.clock();
    await this.purge(now);
    return this.entries.count(scopeName, now);
  }

  async purgeExpired(): Promise<number> {
    return this.purge(this.clock());
  }

  /** Every scope with its number of live entries (null: unscoped entries). */
  async listScopes(): Promise<{ scope: string | null; entries: number }[]> {
    const now = this.clock();
    await this.purge(now);
    return this.entries.listScopes(now);
  }

  private async purge(now: number): Promise<number> {
    const result = await this.entries.purgeExpired(now);
    this.index.afterRemove(result);
    return result.count;
  }

  /** The seed's scoring over the scope's live entries: every match, best first. */
  private async rankExact(queryText: string, scope: string | null, now: number): Promise<Candidate[]> {
    const folded = queryText.toLowerCase();
    const candidates: Candidate[] = [];
    await this.entries.scan(scope, now, (row) => {
      const score = exactScore(row.key, row.valueText, folded);
      if (score > 0) candidates.push({ seq: row.seq, score, createdAt: row.createdAt, tier: 0 });
    });
    return candidates.sort(byScoreThenNewest);
  }

  /**
   * Exact key matches first (score 1), then the hybrid search's hits (`CORPUS_DEFAULTS.recall`: RRF over
   * 2 x capPerSource ranked hits) with their fused score over the best possible one; a hit found by meaning alone
   * must reach `minSimilarity`. Every candidate comes with its entry (read once).
   */
  private async rankSemantic(queryText: string, k: number, scope: string | null, now: number): Promise<Candidate[]> {
    const exactKeys = queryText === '' ? [] : await this.entries.findByFoldedKey(queryText.toLowerCase(), scope, now);
    const candidates: Candidate[] = exactKeys.map((entry) => ({ seq: entry.seq, score: EXACT_KEY_SCORE, createdAt: entry.createdAt, tier: 1, entry }));
    const taken = new Set(candidates.map((candidate) => String(candidate.seq)));
    const request = resolveSearchRequest('recall', queryText, { k });
    const { hits, queryVector } = await searchCorpus({
      request,
      index: await this.index.get(scope),
      embedder: this.embedder,
      logger: this.logger,
      read: (ids) => this.entries.getEntries(ids.map(Number)),
      idOf: (entry) => String(entry.seq),
      textOf: (entry) => searchText(entry.key, renderValue(entry.value)),
      keep: (hit) => !taken.has(hit.id) && (hit.explanation.lexical !== null || (hit.explanation.semantic?.score ?? -Infinity) >= this.minSimilarity),
    });
    // First in every arm that ran: the best fused score there is.
    const best = (queryVector === null ? 1 : 2) / (request.rrfK + 1);
    for (const { document: entry, score } of hits) candidates.push({ seq: entry.seq, score: Math.min(1, score / best), createdAt: entry.createdAt, tier: 0, entry });
    return candidates.sort((a, b) => b.tier - a.tier || byScoreThenNewest(a, b));
  }

  private async embed(text: string): Promise<Float32Array | null> {
    if (this.embedder === null) return null;
    try {
      const [vector] = await embedInBatches(this.embedder, [text]);
      return vector ?? null;
    } catch (error) {
      this.logger.warn(`embedder ${this.embedder.provider}/${this.embedder.modelId} failed (${(error as Error).message}); recall entries stored without vectors, found by words`);
      return null;
    }
  }
}

/** A stored entry as a frozen MemoryEntry (times in seconds). */
function toMemoryEntry(entry: Omit<StoredRecallEntry, 'scope'>, score: number): MemoryEntry {
  return Object.freeze({
    key: entry.key,
    value: frozenJsonCopy(entry.value),
    metadata: frozenJsonCopy(entry.metadata),
    score,
    timestamp: entry.createdAt / 1000,
    expiresAt: entry.expiresAt === null ? null : entry.expiresAt / 1000,
  });
}
