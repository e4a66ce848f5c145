// JSON values as stored data: a strict check (exact round trip or a clear error), a deep freeze and a rendering.
import { MnemoError } from './errors.js';
import { LIMITS, limitExceeded } from './limits.js';
import type { JsonValue } from './types.js';

const DEPTH_FIX = 'Flatten the value (e.g. store nested parts under their own keys).';

/**
 * Throws LIMIT_EXCEEDED when `value` nests objects and arrays deeper than LIMITS.jsonDepth. The walk is iterative
 * and stops at the first level past the bound, so even a value nested a million levels deep costs little and
 * never overflows the stack (as JSON.stringify or a recursive check would).
 *
 * @example
 * ```ts
 * requireJsonDepth({ a: [1, { b: 2 }] }, 'metadata'); // ok: depth 3
 * ```
 */
export function requireJsonDepth(value: unknown, field = 'value'): void {
  const seen = new Set<object>();
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: object[] = [];
    for (const item of level) {
      if (item === null || typeof item !== 'object' || seen.has(item)) continue;
      if (depth >= LIMITS.jsonDepth) throw limitExceeded(field, 'jsonDepth', depth + 1, DEPTH_FIX, 'levels of nesting');
      seen.add(item);
      for (const child of Object.values(item)) if (child !== null && typeof child === 'object') next.push(child as object);
    }
    level = next;
  }
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : `${value > 0 ? '' : '-'}Infinity`;
  if (typeof value === 'bigint') return 'a BigInt';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (value instanceof Date) return 'a Date';
  if (value instanceof Map) return 'a Map';
  if (value instanceof Set) return 'a Set';
  if (typeof value === 'object' && value !== null) return `an instance of ${value.constructor?.name ?? 'a class'}`;
  return typeof value;
}

const HINTS: Record<string, string> = {
  'a Date': 'Store date.toISOString() instead.',
  'a BigInt': 'Store it as a string (value.toString()) or a number.',
  'a Map': 'Store Object.fromEntries(map) instead.',
  'a Set': 'Store [...set] instead.',
  undefined: 'Use null, or leave the property out.',
};

function notJson(path: string, value: unknown, reason?: string): MnemoError {
  const kind = reason ?? kindOf(value);
  const hint = HINTS[kind] ?? 'Only strings, finite numbers, booleans, null, arrays and plain objects round-trip exactly.';
  return new MnemoError('INVALID_INPUT', `${path}: expected a JSON value (string, finite number, boolean, null, array or plain object), got ${kind}. ${hint}`, {
    details: { field: path, expected: 'a JSON value', received: kind },
  });
}

function check(value: unknown, path: string, ancestors: Set<object>, field: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw notJson(path, value);
    return;
  }
  if (typeof value !== 'object') throw notJson(path, value);
  if (ancestors.has(value)) throw notJson(path, value, 'a cycle (an object that contains itself)');
  if (ancestors.size >= LIMITS.jsonDepth) throw limitExceeded(field, 'jsonDepth', ancestors.size + 1, DEPTH_FIX, 'levels of nesting');
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) throw notJson(`${path}[${index}]`, undefined, 'a hole in a sparse array');
      check(value[index], `${path}[${index}]`, ancestors, field);
    }
  } else {
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) throw notJson(path, value);
    if (Object.getOwnPropertySymbols(value).length > 0) throw notJson(path, Symbol(), 'an object with symbol keys');
    for (const [key, item] of Object.entries(value)) check(item, /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, ancestors, field);
  }
  ancestors.delete(value);
}

/**
 * Checks that `value` is JSON that round-trips exactly (JSON.parse(JSON.stringify(value)) deep-equals it) and
 * returns it typed. Functions, BigInts, symbols, undefined, NaN, Infinity, cycles, sparse arrays, Dates, Maps,
 * Sets and class instances are refused with an error naming where they are, and so is nesting deeper than
 * LIMITS.jsonDepth (LIMIT_EXCEEDED). (-0 comes back as 0: JSON has no -0.)
 *
 * @example
 * ```ts
 * requireJsonValue({ parties: ['Acme Corp'] }, 'value'); // ok
 * requireJsonValue({ at: new Date() }, 'value');          // MnemoError INVALID_INPUT "value.at: ... got a Date"
 * ```
 */
export function requireJsonValue(value: unknown, field = 'value'): JsonValue {
  check(value, field, new Set(), field);
  return value as JsonValue;
}

/**
 * Freezes a value and everything inside it, then returns it.
 *
 * @example
 * ```ts
 * const frozen = deepFreeze({ a: [1] });
 * Object.isFrozen(frozen.a); // true
 * ```
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * A private, frozen copy of a checked JSON value (the caller's object is never frozen or kept).
 *
 * @example
 * ```ts
 * const copy = frozenJsonCopy({ a: 1 }); // a new, frozen { a: 1 }
 * ```
 */
export function frozenJsonCopy<T extends JsonValue>(value: T): T {
  return deepFreeze(JSON.parse(JSON.stringify(value)) as T);
}

/**
 * The text a value is searched as: a string as it is, anything else as its compact JSON
 * (`{"risk":0.35}`, `[1,2]`, `42`, `true`, `null`). This stands for the seed's `str(value)`.
 *
 * @example
 * ```ts
 * renderValue('NDA');           // 'NDA'
 * renderValue({ risk: 0.35 });  // '{"risk":0.35}'
 * ```
 */
export function renderValue(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
