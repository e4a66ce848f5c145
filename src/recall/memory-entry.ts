// MemoryEntry: one remembered value with its key, metadata, score and timestamp; frozen all the way down.
import { MnemoError } from '../core/errors.js';
import { frozenJsonCopy, requireJsonValue } from '../core/json-value.js';
import type { JsonValue, Metadata } from '../core/types.js';

/**
 * A value kept by a MemoryBackend (the seed's frozen `MemoryEntry` dataclass). Every entry is deeply frozen: its
 * value and metadata cannot be changed through it. Times are Unix seconds, as in the seed.
 */
export interface MemoryEntry {
  /** The storage key, unique within a scope. */
  readonly key: string;
  /** The stored JSON value. */
  readonly value: JsonValue;
  /** Free metadata; `scope` names the namespace (a memory declaration). */
  readonly metadata: Readonly<Metadata>;
  /** Relevance of a retrieved entry (0 on an entry that was just stored). See docs/recall.md for each backend. */
  readonly score: number;
  /** When it was stored: Unix time in seconds (milliseconds as the fraction). */
  readonly timestamp: number;
  /** When it stops being returned (Unix seconds), or null when it never decays. */
  readonly expiresAt: number | null;
}

/** The fields of a MemoryEntry; everything but key and value has a default. */
export interface MemoryEntryInput {
  key: string;
  value: JsonValue;
  metadata?: Metadata;
  score?: number;
  timestamp?: number;
  expiresAt?: number | null;
}

/**
 * Makes a frozen MemoryEntry (the value and metadata are copied, never frozen in the caller's hands).
 *
 * @example
 * ```ts
 * const entry = memoryEntry({ key: 'contract_type', value: 'Non-Disclosure Agreement',
 *   metadata: { source: 'Extract', confidence: 0.95 }, timestamp: 1704067200.0 });
 * entry.score; // 0
 * ```
 */
export function memoryEntry(input: MemoryEntryInput): MemoryEntry {
  if (typeof input.key !== 'string' || input.key === '') {
    throw new MnemoError('INVALID_INPUT', `key: expected a non-empty string, got ${JSON.stringify(input.key) ?? 'nothing'}. Memory key must not be empty.`, { details: { field: 'key' } });
  }
  return Object.freeze({
    key: input.key,
    value: frozenJsonCopy(requireJsonValue(input.value, 'value')),
    metadata: frozenJsonCopy(requireJsonValue(input.metadata ?? {}, 'metadata') as Metadata),
    score: input.score ?? 0,
    timestamp: input.timestamp ?? 0,
    expiresAt: input.expiresAt ?? null,
  });
}

/**
 * The same entry with another score (the value and metadata are shared: they are frozen).
 *
 * @example
 * ```ts
 * const scored = withScore(entry, 0.7); // entry is unchanged; scored.score === 0.7
 * ```
 */
export function withScore(entry: MemoryEntry, score: number): MemoryEntry {
  return Object.freeze({ ...entry, score });
}
