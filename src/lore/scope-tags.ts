// Scope levels and a character's lore tags, derived from categorised tags (zone, district, faction).
import { MnemoError } from '../core/errors.js';
import { LIMITS, limitExceeded } from '../core/limits.js';
import { describe } from '../core/validate.js';
import type { ScopeLevel } from '../seams/lore-store.js';

/** The scope levels, broadest first. */
export const SCOPE_LEVELS = ['continental', 'regional', 'local', 'faction'] as const satisfies readonly ScopeLevel[];

/** The tag categories that carry lore access: a zone gives regional lore, a district local lore, a faction its secrets. */
export const LORE_TAG_CATEGORIES = ['zone', 'district', 'faction'] as const;

/** A tag as game engines keep them (Evennia: a key and a category). */
export interface CategorisedTag {
  key: string;
  category?: string | null;
}

/** A character's place in the world, by category. Each field takes one tag or several. */
export interface CharacterPlacement {
  zone?: string | readonly string[];
  district?: string | readonly string[];
  faction?: string | readonly string[];
}

const asList = (value: string | readonly string[] | undefined): readonly string[] => (value === undefined ? [] : typeof value === 'string' ? [value] : value);

function checkTag(tag: unknown, field: string): string {
  if (typeof tag !== 'string' || tag.trim() === '' || /\s/.test(tag)) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected a tag (a non-empty string without spaces), got ${describe(tag)}. Tags look like "brackwater" or "lamplighters".`, { details: { field } });
  }
  if (tag.length > 100) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected a tag of at most 100 characters, got ${describe(tag)}. Tags look like "brackwater" or "lamplighters".`, { details: { field } });
  }
  return tag;
}

/**
 * The lore tags of a character, sorted and distinct, from either its categorised tags (only the zone, district
 * and faction categories count, as the room and faction tags of a MUD do) or a placement object.
 *
 * @example
 * ```ts
 * loreScopeTags({ zone: 'brackwater', district: 'brackwater_docks', faction: ['lamplighters'] });
 * // ['brackwater', 'brackwater_docks', 'lamplighters']
 * loreScopeTags([{ key: 'brackwater', category: 'zone' }, { key: 'grumpy', category: 'mood' }]); // ['brackwater']
 * ```
 */
export function loreScopeTags(source: readonly CategorisedTag[] | CharacterPlacement): string[] {
  const categories: readonly string[] = LORE_TAG_CATEGORIES;
  const tags = Array.isArray(source)
    ? (source as readonly CategorisedTag[]).flatMap((tag, index) => (typeof tag?.category === 'string' && categories.includes(tag.category) ? [checkTag(tag.key, `tags[${index}].key`)] : []))
    : LORE_TAG_CATEGORIES.flatMap((category) => asList((source as CharacterPlacement)[category]).map((tag) => checkTag(tag, category)));
  return [...new Set(tags)].sort();
}

/** Checks a list of character tags given by a caller; returns it sorted and distinct. */
export function requireCharacterTags(value: unknown, field = 'tags'): string[] {
  if (!Array.isArray(value)) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected the character's lore tags as an array of strings ([] for continental lore only), got ${describe(value)}. Derive them with loreScopeTags().`, { details: { field } });
  }
  if (value.length > LIMITS.tags) throw limitExceeded(field, 'tags', value.length, 'A character holds its zone, district and factions: a few tags.', 'tags');
  return [...new Set(value.map((tag, index) => checkTag(tag, `${field}[${index}]`)))].sort();
}
