// Metadata filters of a chunk search (`where`): their bounds, and the one resolution every arm applies (the shapes are in types.ts).
import { MnemoError } from './errors.js';
import { LIMITS, limitExceeded } from './limits.js';
import type { JsonValue, MetadataClause } from './types.js';
import { describe } from './validate.js';

/**
 * The canonical form a filter compares a stored metadata value by: the JSON text of a string, number or boolean
 * (so the string "1" and the number 1 differ), null for any other value (null, arrays, objects: present, never equal).
 *
 * @example
 * ```ts
 * canonicalMetadataValue('Marta'); // '"Marta"'
 * canonicalMetadataValue([1, 2]); // null
 * ```
 */
export function canonicalMetadataValue(value: JsonValue | undefined): string | null {
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number' && Number.isFinite(value)) return JSON.stringify(value);
  return null;
}

function invalid(field: string, expected: string, received: unknown): MnemoError {
  return new MnemoError('INVALID_INPUT', `${field}: expected ${expected}, got ${describe(received)}. A condition is a value ("Marta", 3, true), { in: [values] } or { exists: true | false }.`, {
    details: { field, expected, received: describe(received) },
  });
}

function scalar(value: unknown, field: string): string {
  if (typeof value === 'string' && value.length > LIMITS.whereValueChars) throw limitExceeded(field, 'whereValueChars', value.length, 'Filter on a short value (an id, a name).', 'characters');
  const canonical = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? canonicalMetadataValue(value) : null;
  if (canonical === null) throw invalid(field, 'a string, a finite number or a boolean', value);
  return canonical;
}

/**
 * Validates a metadata filter and resolves it into clauses in key order (undefined when absent or empty). Bounded:
 * at most `whereClauses` keys of at most `whereKeyChars` characters, `whereValues` values per one-of, string values
 * of at most `whereValueChars` characters; anything else is INVALID_INPUT or LIMIT_EXCEEDED.
 *
 * @example
 * ```ts
 * resolveMetadataWhere({ speaker: 'Marta', quest: { exists: true } });
 * // [{ key: 'quest', exists: true }, { key: 'speaker', values: ['"Marta"'] }]
 * ```
 */
export function resolveMetadataWhere(where: unknown, field = 'where'): MetadataClause[] | undefined {
  if (where === undefined || where === null) return undefined;
  if (typeof where !== 'object' || Array.isArray(where)) throw invalid(field, 'an object of metadata key -> condition', where);
  const given = Object.keys(where);
  if (given.length > LIMITS.whereClauses) throw limitExceeded(field, 'whereClauses', given.length, 'Filter on the few keys that matter.', 'keys');
  const keys = given.sort();
  const clauses = keys.map((key): MetadataClause => {
    const at = `${field}.${key}`;
    if (key === '' || key.length > LIMITS.whereKeyChars || key === '__proto__') throw invalid(field, `metadata keys of 1 to ${LIMITS.whereKeyChars} characters, other than "__proto__"`, key);
    const condition = (where as Record<string, unknown>)[key];
    if (typeof condition !== 'object' || condition === null) return { key, values: [scalar(condition, at)] };
    if (Array.isArray(condition)) throw invalid(at, 'a value, { in: [...] } or { exists: boolean } (for one of several values, write { in: [...] })', condition);
    const entries = Object.keys(condition);
    if (entries.length === 1 && entries[0] === 'exists') {
      const exists = (condition as { exists: unknown }).exists;
      if (typeof exists !== 'boolean') throw invalid(`${at}.exists`, 'true or false', exists);
      return { key, exists };
    }
    if (entries.length === 1 && entries[0] === 'in') {
      const values = (condition as { in: unknown }).in;
      if (!Array.isArray(values) || values.length === 0) throw invalid(`${at}.in`, 'a non-empty array of values', values);
      if (values.length > LIMITS.whereValues) throw limitExceeded(`${at}.in`, 'whereValues', values.length, 'Filter on fewer values, or on a key that groups them.', 'values');
      return { key, values: [...new Set(values.map((value, index) => scalar(value, `${at}.in[${index}]`)))] };
    }
    throw invalid(at, 'a value, { in: [...] } or { exists: boolean }', condition);
  });
  return clauses.length === 0 ? undefined : clauses;
}
