// The zod schemas of lore input (repository files, the manifest, entries passed in code) and their messages.
import { z } from 'zod';
import { isMnemoError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { Metadata } from '../core/types.js';
import { describe, optionalMetadata } from '../core/validate.js';
import { SCOPE_LEVELS } from './scope-tags.js';

/** A message for a value of the wrong type: "is required" when absent, else what was expected and what came. */
const wrongType = (expected: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${expected}, got ${describe(issue.input)}`);

const nonEmptyText = (expected: string, maximum?: number) => {
  const text = z.string({ error: wrongType(expected) }).trim().min(1, 'must not be empty');
  return maximum === undefined ? text : text.max(maximum, `must be at most ${maximum} characters`);
};

/** A tag: a non-empty string without spaces, at most 100 characters. */
export const tagSchema = z
  .string({ error: wrongType('a tag string such as "brackwater"') })
  .regex(/^\S+$/u, 'must be a tag without spaces, such as "brackwater_docks"')
  .max(100, 'must be at most 100 characters');

export const titleSchema = nonEmptyText('a string (quote numbers and dates)', 200);
export const contentSchema = nonEmptyText('a string (use a | block for paragraphs)').max(LIMITS.loreContentChars, `must be at most ${LIMITS.loreContentChars.toLocaleString('en-US')} characters (limit loreContentChars, see docs/limits.md); split it into several entries`);
export const sourceSchema = nonEmptyText('a string naming the file, such as "brackwater/regional.yaml"', 200);
export const scopeLevelSchema = z.enum(SCOPE_LEVELS, { error: (issue) => (issue.input === undefined ? 'is required' : `must be one of ${SCOPE_LEVELS.join(', ')}, got ${describe(issue.input)}`) });
export const scopeTagsSchema = z.array(tagSchema, { error: wrongType('a list of tags, such as ["brackwater"]') });

/**
 * An entry's free metadata: a mapping of keys to JSON values, checked as a chunk's metadata is (`optionalMetadata`:
 * plain values, at most LIMITS.jsonDepth levels), kept as its JSON copy; `{}` when absent. Searches filter on it
 * (`where`) and a save's lore chunks carry it; it is never embedded, so a change of metadata alone re-embeds nothing.
 */
export const metadataSchema = z
  .record(z.string(), z.unknown(), { error: wrongType('a mapping of keys to values, such as { district: "docks" }') })
  .optional()
  .transform((value, context): Metadata => {
    try {
      const checked = optionalMetadata(value, 'metadata');
      return checked === undefined ? {} : (JSON.parse(JSON.stringify(checked)) as Metadata);
    } catch (error) {
      if (!isMnemoError(error)) throw error;
      context.addIssue({ code: 'custom', message: `is not valid metadata (${error.message})` });
      return z.NEVER;
    }
  });

/** One entry of a repository file, as authored (snake_case). */
export const repositoryEntrySchema = z.strictObject({
  title: titleSchema,
  content: contentSchema,
  scope_level: scopeLevelSchema,
  scope_tags: scopeTagsSchema,
  metadata: metadataSchema,
});

/** A repository content file: its source and its entries (each checked on its own, to report every problem). */
export const repositoryFileSchema = z.strictObject(
  {
    source: sourceSchema,
    entries: z.array(z.unknown(), { error: wrongType('a list of entries') }),
  },
  { error: wrongType('a mapping with `source` and `entries`') },
);

/** The manifest, index.yaml: the content files to read, relative to the repository root. */
export const manifestSchema = z.strictObject(
  {
    files: z.array(z.string({ error: wrongType('a relative path such as "continental.yaml"') }).trim().min(1, 'must not be empty'), {
      error: wrongType('a list of file paths'),
    }),
  },
  { error: wrongType('a mapping with `files`, such as "files: [continental.yaml]"') },
);

/** An entry passed in code (camelCase), e.g. to `importEntries`. */
export const entryInputSchema = z.strictObject(
  {
    source: sourceSchema,
    title: titleSchema,
    content: contentSchema,
    scopeLevel: scopeLevelSchema,
    scopeTags: scopeTagsSchema,
    metadata: metadataSchema,
  },
  { error: wrongType('an entry { source, title, content, scopeLevel, scopeTags, metadata? }') },
);

/** A validated entry, from a file or from code. Tags are sorted and distinct. */
export interface LoreEntryDraft {
  source: string;
  title: string;
  content: string;
  scopeLevel: (typeof SCOPE_LEVELS)[number];
  scopeTags: string[];
  /** Free keys (`{}` when none). */
  metadata: Metadata;
}

/** What the caller passes to `importEntries`, derived from the schema. */
export type LoreEntryInput = z.input<typeof entryInputSchema>;

/**
 * The rule between level and tags: a continental entry reaches everyone, so it takes no tags; any other level
 * needs at least one tag (an entry with none would reach everyone too). Returns the problem, or null.
 *
 * @example
 * ```ts
 * scopeTagsProblem('regional', []); // 'a regional entry needs at least one tag ...'
 * ```
 */
export function scopeTagsProblem(scopeLevel: unknown, scopeTags: unknown): string | null {
  if (typeof scopeLevel !== 'string' || !Array.isArray(scopeTags) || !(SCOPE_LEVELS as readonly string[]).includes(scopeLevel)) return null;
  if (scopeLevel === 'continental' && scopeTags.length > 0) {
    return `must be empty for a continental entry (it reaches everyone), got ${JSON.stringify(scopeTags)}; use regional, local or faction to restrict it`;
  }
  if (scopeLevel !== 'continental' && scopeTags.length === 0) {
    return `a ${scopeLevel} entry needs at least one tag (the zone, district or faction that knows it); only continental entries have none`;
  }
  return null;
}

/** Sorted, distinct tags: the canonical form stored and hashed (tag order never matters). */
export function canonicalTags(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}
