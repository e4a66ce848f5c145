// Input checks shared by every entry point: each failure says what was expected, what arrived and how to fix it.
import { MnemoError } from './errors.js';

/** The largest k a query accepts. */
export const MAX_K = 1000;

/** A short, printable rendering of any value for an error message. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing (undefined)';
  if (typeof value === 'string') return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return `a value of type ${typeof value}`;
}

function invalid(field: string, expected: string, received: unknown, fix: string): MnemoError {
  return new MnemoError('INVALID_INPUT', `${field}: expected ${expected}, got ${describe(received)}. ${fix}`, {
    details: { field, expected, received: describe(received) },
  });
}

/**
 * Checks a save id: a non-empty string of at most 200 characters.
 *
 * @example
 * ```ts
 * requireSaveId('campaign-1'); // 'campaign-1'
 * ```
 */
export function requireSaveId(value: unknown, field = 'saveId'): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200) {
    throw invalid(field, 'a non-empty string of at most 200 characters', value, 'Pass the id of the save, e.g. "campaign-1".');
  }
  return value;
}

/**
 * Checks a turn id: an integer >= 0.
 *
 * @example
 * ```ts
 * requireTurnId(3); // 3
 * ```
 */
export function requireTurnId(value: unknown, field = 'turnId'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(field, 'an integer >= 0', value, 'Turns are numbered 0, 1, 2, ... in the order they happen.');
  }
  return value;
}

/** Checks an optional turn bound (undefined or null passes through as undefined). */
export function optionalTurnId(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  return requireTurnId(value, field);
}

/**
 * Checks the text of a chunk: a string with at least one non-space character.
 *
 * @example
 * ```ts
 * requireText('The innkeeper smiles.'); // 'The innkeeper smiles.'
 * ```
 */
export function requireText(value: unknown, field = 'text'): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(field, 'a string with at least one non-space character', value, 'Skip empty turns instead of storing them.');
  }
  return value;
}

/** Checks k: an integer from 1 to MAX_K. */
export function requireK(value: unknown, field = 'k'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_K) {
    throw invalid(field, `an integer from 1 to ${MAX_K}`, value, 'Ask for the few hits a prompt can use (5 to 50 is typical).');
  }
  return value;
}

/** Checks an optional non-negative integer option. */
export function optionalCount(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(field, 'an integer >= 0', value, `Leave ${field} out to use the default.`);
  }
  return value;
}

/** Checks an optional finite number option. */
export function optionalNumber(value: unknown, field: string, minimum = -Infinity): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum) {
    throw invalid(field, `a finite number >= ${minimum}`, value, `Leave ${field} out to use the default.`);
  }
  return value;
}

/** Checks an optional chunk type name: a non-empty string of at most 64 characters. */
export function optionalChunkType(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.length > 64) {
    throw invalid(field, 'a non-empty string of at most 64 characters', value, 'Use names such as "narrative", "dialogue" or "lore".');
  }
  return value;
}

/** Checks a query text: any string (punctuation and operators are fine), at most 10,000 characters. */
export function requireQueryText(value: unknown, field = 'query'): string {
  if (typeof value !== 'string' || value.length > 10_000) {
    throw invalid(field, 'a string of at most 10,000 characters', value, 'Pass the player message or question as plain text.');
  }
  return value;
}

/** Checks that metadata is a plain JSON object. */
export function optionalMetadata(value: unknown, field = 'metadata'): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(field, 'a plain object of JSON values', value, 'Pass metadata as { key: value }.');
  }
  try {
    JSON.stringify(value);
  } catch (error) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected JSON-serialisable values, but it could not be serialised. Remove functions, cycles and BigInts.`, { cause: error, details: { field } });
  }
  return value as Record<string, unknown>;
}
