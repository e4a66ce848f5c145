// Input checks of the recall layer: keys, scopes, metadata, decay and topK, each failing with a clear message.
import { MnemoError } from '../core/errors.js';
import { renderValue, requireJsonValue } from '../core/json-value.js';
import { limitExceeded, LIMITS, requireShortText } from '../core/limits.js';
import type { JsonValue, Metadata } from '../core/types.js';
import { describe, requireK } from '../core/validate.js';

function invalid(field: string, expected: string, received: unknown, fix: string): MnemoError {
  return new MnemoError('INVALID_INPUT', `${field}: expected ${expected}, got ${describe(received)}. ${fix}`, {
    details: { field, expected, received: describe(received) },
  });
}

/**
 * Checks a memory key: a non-empty string (the seed's "Memory key must not be empty").
 *
 * @example
 * ```ts
 * requireMemoryKey('contract_type'); // 'contract_type'
 * ```
 */
export function requireMemoryKey(value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw invalid('key', 'a non-empty string', value, 'Memory key must not be empty: name the value, e.g. "contract_type".');
  }
  return requireShortText('key', 'memoryKeyChars', value, 'Name the value with a short key, e.g. "contract_type".');
}

/**
 * Checks an optional scope: absent or null means none; otherwise a non-empty string of at most 200 characters.
 *
 * @example
 * ```ts
 * optionalScope('LegalKnowledge'); // 'LegalKnowledge'
 * optionalScope(undefined);        // null
 * ```
 */
export function optionalScope(value: unknown, field = 'scope'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value.length > 200) {
    throw invalid(field, 'a non-empty string of at most 200 characters, or nothing for every scope', value, 'A scope is the name of a memory declaration, e.g. "LongTermKnowledge".');
  }
  return value;
}

/**
 * Checks a required scope: a non-empty string of at most 200 characters (for reads and deletes by key, which name
 * one namespace).
 *
 * @example
 * ```ts
 * requireScope('LegalKnowledge'); // 'LegalKnowledge'
 * ```
 */
export function requireScope(value: unknown, field = 'scope'): string {
  const scope = optionalScope(value, field);
  if (scope === null) throw invalid(field, 'a non-empty string of at most 200 characters', value, 'Name the scope the keys live in, e.g. "LegalKnowledge".');
  return scope;
}

/**
 * Checks a list of memory keys (at most 1000, each non-empty).
 *
 * @example
 * ```ts
 * requireMemoryKeys(['mood', 'debt']); // ['mood', 'debt']
 * ```
 */
export function requireMemoryKeys(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > 1000) throw invalid('keys', 'an array of at most 1000 keys', value, 'Pass the keys to act on, e.g. ["mood", "debt"].');
  return value.map((key) => requireMemoryKey(key));
}

/**
 * Checks metadata (absent, null or a plain JSON object) and reads its scope.
 *
 * @example
 * ```ts
 * prepareMetadata({ scope: 'LegalKnowledge', source: 'Extract' }); // { metadata: {...}, scope: 'LegalKnowledge' }
 * ```
 */
export function prepareMetadata(value: unknown): { metadata: Metadata; scope: string | null } {
  if (value === undefined || value === null) return { metadata: {}, scope: null };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('metadata', 'a plain object of JSON values', value, 'Pass metadata as { scope: "LegalKnowledge", source: "Extract" }.');
  }
  const metadata = requireJsonValue(value, 'metadata') as Metadata;
  return { metadata, scope: optionalScope(metadata['scope'], 'metadata.scope') };
}

/** Checks a value to store: any JSON value that round-trips exactly, at most LIMITS.memoryValueChars as JSON. */
export function requireMemoryValue(value: unknown): JsonValue {
  const checked = requireJsonValue(value, 'value');
  const length = renderValue(checked).length;
  if (length > LIMITS.memoryValueChars) throw limitExceeded('value', 'memoryValueChars', length, 'Remember a summary, or split the value under several keys.', 'characters');
  return checked;
}

/** Checks an optional decay in milliseconds: absent or null for none, else a whole number > 0. */
export function optionalDecayMs(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw invalid('decayMs', 'a whole number of milliseconds > 0, or null for no decay', value, 'Use parseDecay("1h") to turn a duration into milliseconds.');
  }
  return value;
}

/** Checks topK: an integer from 1 to 1000 (default 5). */
export function requireTopK(value: unknown): number {
  return requireK(value ?? 5, 'topK');
}
