// Question scaffolding: words that shape a question ("likely", "kind of", "things") but are not what it asks about.
import { MnemoError } from '../core/errors.js';

/**
 * A small general list of English question scaffolding beyond the stop words (which already drop "what", "would",
 * "does"): hedges and placeholders a question wraps its content in. Applied to query terms only, never to the
 * indexed text.
 *
 * @example
 * ```ts
 * QUESTION_SCAFFOLDING.includes('likely'); // true
 * ```
 */
export const QUESTION_SCAFFOLDING: readonly string[] = ['likely', 'probably', 'possibly', 'might', 'kind', 'kinds', 'type', 'types', 'sort', 'sorts', 'thing', 'things', 'something', 'anything', 'think', 'ever', 'also', 'else'];

/** The longest scaffolding list a search may give. */
export const MAX_SCAFFOLDING_WORDS = 1000;

/**
 * Checks a scaffolding list as a caller gives it (words; null: off; undefined: `defaults`); a clear INVALID_INPUT
 * for anything else. An empty list is off.
 *
 * @example
 * ```ts
 * optionalScaffolding(['likely'], null); // ['likely']
 * ```
 */
export function optionalScaffolding(value: unknown, defaults: readonly string[] | null): readonly string[] | undefined {
  if (value === null) return undefined;
  if (value === undefined) return defaults === null || defaults.length === 0 ? undefined : defaults;
  if (!Array.isArray(value) || value.length > MAX_SCAFFOLDING_WORDS || value.some((word) => typeof word !== 'string' || word.trim() === '')) {
    throw new MnemoError('INVALID_INPUT', `scaffolding: expected a list of up to ${MAX_SCAFFOLDING_WORDS} non-blank words (QUESTION_SCAFFOLDING is a general English one) or null, got ${JSON.stringify(value)?.slice(0, 200)}.`, {
      details: { field: 'scaffolding' },
    });
  }
  return value.length === 0 ? undefined : (value as string[]);
}

/**
 * The query terms without those of the scaffolding words (each word analyzed as the query is, so "kinds" drops
 * the stem "kind"); the order and repeats of the rest kept.
 *
 * @example
 * ```ts
 * withoutScaffolding(['kind', 'music', 'like'], new Set(['kind'])); // ['music', 'like']
 * ```
 */
export function withoutScaffolding(terms: readonly string[], scaffold: ReadonlySet<string>): string[] {
  return scaffold.size === 0 ? [...terms] : terms.filter((term) => !scaffold.has(term));
}
