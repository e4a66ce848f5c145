// The seed's InMemoryBackend: a map in process memory, substring scoring, scopes, decay and tracing.
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { frozenJsonCopy, renderValue } from '../core/json-value.js';
import type { JsonValue, Metadata } from '../core/types.js';
import { requireQueryText } from '../core/validate.js';
import type { Tracer } from '../tracing/tracer.js';
import { TraceEventType } from '../tracing/trace-event.js';
import { byScoreThenNewest, exactScore } from './exact-score.js';
import type { KeyedMemoryBackend, StoreOptions } from './memory-backend.js';
import { withScore } from './memory-entry.js';
import type { MemoryEntry } from './memory-entry.js';
import { optionalDecayMs, optionalScope, prepareMetadata, requireMemoryKey, requireMemoryKeys, requireMemoryValue, requireScope, requireTopK } from './validate-recall-input.js';
import { valueTypeName } from './value-type-name.js';

interface Held {
  entry: MemoryEntry;
  scope: string | null;
  valueText: string;
  seq: number;
  createdAt: number;
  expiresAt: number | null;
}

/** How an InMemoryBackend is made. */
export interface InMemoryBackendOptions {
  /** Receives `memory_write` and `memory_read` events. */
  tracer?: Tracer | null;
  /** Stamps entries and decides expiry (milliseconds). */
  clock?: Clock;
}

/**
 * The seed's dict-based backend, for tests and simple uses: fast, in process, gone when the process ends.
 * Retrieval is exact: a case-insensitive substring match scored 1.0 (key equals the query), 0.7 (key contains it)
 * or 0.4 (the value's text contains it); no match is left out; results go by score, then newest first.
 *
 * @example
 * ```ts
 * const tracer = new Tracer();
 * const memory = new InMemoryBackend({ tracer });
 * await memory.store('contract_type', 'NDA');
 * await memory.store('contract_date', '2024-01-15');
 * await memory.retrieve('contract', 2); // contract_type and contract_date, score 0.7 each
 * ```
 */
export class InMemoryBackend implements KeyedMemoryBackend {
  readonly retrieval = 'exact' as const;
  private readonly entries = new Map<string, Held>();
  private readonly tracer: Tracer | null;
  private readonly clock: Clock;
  private seq = 0;

  constructor(options: InMemoryBackendOptions = {}) {
    this.tracer = options.tracer ?? null;
    this.clock = options.clock ?? systemClock;
  }

  async store(key: string, value: JsonValue, metadata?: Metadata | null, options: StoreOptions = {}): Promise<MemoryEntry> {
    const checkedKey = requireMemoryKey(key);
    const checkedValue = requireMemoryValue(value);
    const prepared = prepareMetadata(metadata);
    const decayMs = optionalDecayMs(options.decayMs);
    const now = this.clock();
    const expiresAt = decayMs === null ? null : now + decayMs;
    const identity = `${prepared.scope ?? ''}\u0000${checkedKey}`;
    const entry: MemoryEntry = Object.freeze({
      key: checkedKey,
      value: frozenJsonCopy(checkedValue),
      metadata: frozenJsonCopy(prepared.metadata),
      score: 0,
      timestamp: now / 1000,
      expiresAt: expiresAt === null ? null : expiresAt / 1000,
    });
    const seq = this.entries.get(identity)?.seq ?? ++this.seq;
    this.entries.set(identity, { entry, scope: prepared.scope, valueText: renderValue(entry.value), seq, createdAt: now, expiresAt });
    this.tracer?.emit(TraceEventType.MEMORY_WRITE, { key: checkedKey, value_type: valueTypeName(checkedValue) });
    return entry;
  }

  async retrieve(query: string, topK?: number, scope?: string | null): Promise<MemoryEntry[]> {
    const queryText = requireQueryText(query);
    const k = requireTopK(topK);
    const scopeName = optionalScope(scope);
    this.purge(this.clock());
    const folded = queryText.toLowerCase();
    const candidates: (Held & { score: number })[] = [];
    for (const held of this.entries.values()) {
      if (scopeName !== null && held.scope !== scopeName) continue;
      const score = exactScore(held.entry.key, held.valueText, folded);
      if (score > 0) candidates.push({ ...held, score });
    }
    const results = candidates.sort(byScoreThenNewest).slice(0, k).map((held) => withScore(held.entry, held.score));
    this.tracer?.emit(TraceEventType.MEMORY_READ, { query: queryText, results_count: results.length, top_k: k });
    return results;
  }

  async clear(scope?: string | null): Promise<number> {
    const scopeName = optionalScope(scope);
    this.purge(this.clock());
    return this.remove((held) => scopeName === null || held.scope === scopeName);
  }

  async count(scope?: string | null): Promise<number> {
    const scopeName = optionalScope(scope);
    this.purge(this.clock());
    let count = 0;
    for (const held of this.entries.values()) if (scopeName === null || held.scope === scopeName) count++;
    return count;
  }

  async purgeExpired(): Promise<number> {
    return this.purge(this.clock());
  }

  async get(key: string, scope: string): Promise<MemoryEntry | null> {
    const checkedKey = requireMemoryKey(key);
    const scopeName = requireScope(scope);
    this.purge(this.clock());
    const held = this.entries.get(`${scopeName}\u0000${checkedKey}`);
    return held === undefined ? null : withScore(held.entry, 1);
  }

  async keys(scope: string): Promise<string[]> {
    const scopeName = requireScope(scope);
    this.purge(this.clock());
    return [...this.entries.values()].filter((held) => held.scope === scopeName).sort((a, b) => a.seq - b.seq).map((held) => held.entry.key);
  }

  async forget(keys: readonly string[], scope: string): Promise<number> {
    const doomed = new Set(requireMemoryKeys(keys));
    const scopeName = requireScope(scope);
    return this.remove((held) => held.scope === scopeName && doomed.has(held.entry.key));
  }

  /** Expired means now is past expiresAt (the seed: now - timestamp > decay). */
  private purge(now: number): number {
    return this.remove((held) => held.expiresAt !== null && held.expiresAt < now);
  }

  private remove(doomed: (held: Held) => boolean): number {
    let removed = 0;
    for (const [identity, held] of this.entries) {
      if (!doomed(held)) continue;
      this.entries.delete(identity);
      removed++;
    }
    return removed;
  }
}
