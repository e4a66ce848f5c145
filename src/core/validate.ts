// Input checks shared by every entry point: each failure says what was expected, what arrived and how to fix it.
import { MnemoError } from './errors.js';
import { requireJsonDepth } from './json-value.js';
import { LIMITS, limitExceeded, requireShortText } from './limits.js';

/** The largest k a query accepts. */
export const MAX_K = LIMITS.k;

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
  return requireShortText(field, 'textChars', value, 'Split the text into several chunks (a paragraph or a turn each).');
}

/** Checks k: an integer from 1 to MAX_K. */
export function requireK(value: unknown, field = 'k'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(field, `an integer from 1 to ${MAX_K}`, value, 'Ask for the few hits a prompt can use (5 to 50 is typical).');
  }
  if (value > MAX_K) throw limitExceeded(field, 'k', value, 'Ask for the few hits a prompt can use (5 to 50 is typical).', 'hits');
  return value;
}

/** Checks an optional integer option from 0 to the bound `limit` of LIMITS. */
function optionalBoundedCount(value: unknown, field: string, limit: 'capPerSource' | 'rerankTop', fix: string): number | undefined {
  const count = optionalCount(value, field);
  if (count !== undefined && count > LIMITS[limit]) throw limitExceeded(field, limit, count, fix);
  return count;
}

/**
 * Checks capPerSource: an integer from 0 to LIMITS.capPerSource, where 0 asks for that largest cap.
 *
 * @example
 * ```ts
 * optionalCapPerSource(0);   // 10000
 * optionalCapPerSource(50);  // 50
 * optionalCapPerSource(4294967296); // throws LIMIT_EXCEEDED
 * ```
 */
export function optionalCapPerSource(value: unknown, field = 'capPerSource'): number | undefined {
  const cap = optionalBoundedCount(value, field, 'capPerSource', 'Leave it out for the default, max(50, 5k).');
  return cap === 0 ? LIMITS.capPerSource : cap;
}

/** Checks rerankTop: an integer from 0 to LIMITS.rerankTop. */
export function optionalRerankTop(value: unknown, field = 'rerankTop'): number | undefined {
  return optionalBoundedCount(value, field, 'rerankTop', 'Leave it out for the default, max(20, 2k).');
}

/**
 * Checks the pseudo-relevance feedback option: undefined (the default), null (off), or { documents, terms, weight }
 * with documents and terms from 0 to LIMITS.feedback and a finite weight >= 0.
 *
 * @example
 * ```ts
 * optionalFeedback({ documents: 3, terms: 5, weight: 0.5 }); // the same object
 * ```
 */
export function optionalFeedback(value: unknown, field = 'feedback'): { documents: number; terms: number; weight: number } | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(field, 'null or { documents, terms, weight }', value, 'Leave it out for the default (3 documents, 5 terms, weight 0.5).');
  const { documents, terms, weight } = value as Record<string, unknown>;
  const fix = 'Feedback reads a few top documents (3 is the default).';
  const count = (item: unknown, name: string) => {
    const checked = optionalCount(item, `${field}.${name}`);
    if (checked === undefined) throw invalid(`${field}.${name}`, 'an integer >= 0', item, fix);
    if (checked > LIMITS.feedback) throw limitExceeded(`${field}.${name}`, 'feedback', checked, fix);
    return checked;
  };
  const checkedWeight = optionalNumber(weight, `${field}.weight`, 0);
  if (checkedWeight === undefined) throw invalid(`${field}.weight`, 'a finite number >= 0', weight, fix);
  return { documents: count(documents, 'documents'), terms: count(terms, 'terms'), weight: checkedWeight };
}

/**
 * Checks focus terms: an array of at most LIMITS.focusTerms strings of at most LIMITS.focusTermChars characters;
 * blank terms are dropped.
 *
 * @example
 * ```ts
 * requireFocusTerms(['Harvest Moon', ' ', 'Rowan']); // ['Harvest Moon', 'Rowan']
 * requireFocusTerms(undefined);                      // []
 * ```
 */
export function requireFocusTerms(value: unknown, field = 'focusTerms'): string[] {
  if (value === undefined || value === null) return [];
  const fix = 'Name the place and the characters on scene, not a list of keywords.';
  if (!Array.isArray(value)) throw invalid(field, 'an array of strings such as ["Harvest Moon", "Rowan"]', value, fix);
  if (value.length > LIMITS.focusTerms) throw limitExceeded(field, 'focusTerms', value.length, fix, 'terms');
  return value.flatMap((term: unknown, index) => {
    if (typeof term !== 'string') throw invalid(`${field}[${index}]`, 'a string', term, fix);
    requireShortText(`${field}[${index}]`, 'focusTermChars', term, fix);
    return term.trim() === '' ? [] : [term];
  });
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

/** Checks a query text: any string (punctuation and operators are fine), at most LIMITS.queryChars characters. */
export function requireQueryText(value: unknown, field = 'query'): string {
  if (typeof value !== 'string') {
    throw invalid(field, `a string of at most ${LIMITS.queryChars.toLocaleString('en-US')} characters`, value, 'Pass the player message or question as plain text.');
  }
  return requireShortText(field, 'queryChars', value, 'Pass the player message or question, not a whole transcript.');
}

/** Checks that metadata is a plain JSON object. */
export function optionalMetadata(value: unknown, field = 'metadata'): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(field, 'a plain object of JSON values', value, 'Pass metadata as { key: value }.');
  }
  requireJsonDepth(value, field);
  try {
    JSON.stringify(value);
  } catch (error) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected JSON-serialisable values, but it could not be serialised. Remove functions, cycles and BigInts.`, { cause: error, details: { field } });
  }
  return value as Record<string, unknown>;
}
