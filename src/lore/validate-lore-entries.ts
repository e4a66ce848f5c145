// Validates lore entries passed in code (not from files) with the same rules as a repository, collecting every problem.
import { canonicalTags, entryInputSchema, scopeTagsProblem } from './lore-schema.js';
import { fieldName } from './lore-problem.js';
import type { LoreProblem } from './lore-problem.js';
import { duplicateProblems } from './read-lore-repository.js';
import type { LocatedLoreEntry } from './read-lore-repository.js';

/**
 * Checks entries given as `{ source, title, content, scopeLevel, scopeTags }`: types, scope level, the level/tags
 * rule and unique titles within a source. Returns the valid entries (tags sorted) and every problem.
 *
 * @example
 * ```ts
 * const { entries, problems } = validateLoreEntries([{ source: 'code', title: 'Tides', content: '...', scopeLevel: 'continental', scopeTags: [] }]);
 * ```
 */
export function validateLoreEntries(inputs: unknown): { entries: LocatedLoreEntry[]; problems: LoreProblem[] } {
  if (!Array.isArray(inputs)) {
    return { entries: [], problems: [{ file: null, entry: null, line: null, column: null, message: 'entries must be an array of { source, title, content, scopeLevel, scopeTags }' }] };
  }
  const entries: LocatedLoreEntry[] = [];
  const problems: LoreProblem[] = [];
  inputs.forEach((raw: unknown, index) => {
    const title = (raw as { title?: unknown } | null)?.title;
    const entry = typeof title === 'string' && title.trim() !== '' ? title.trim() : `#${index + 1}`;
    const result = entryInputSchema.safeParse(raw);
    const found: LoreProblem[] = result.success ? [] : result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ file: null, entry, line: null, column: null, message: `unknown field ${JSON.stringify(key)} (expected source, title, content, scopeLevel, scopeTags, metadata)` }))
        : [{ file: null, entry, line: null, column: null, message: issue.path.length === 0 ? `the entry ${issue.message}` : `${fieldName(issue.path)} ${issue.message}` }]);
    const values = raw as { scopeLevel?: unknown; scopeTags?: unknown } | null;
    const rule = scopeTagsProblem(values?.scopeLevel, values?.scopeTags);
    if (rule !== null) found.push({ file: null, entry, line: null, column: null, message: `scopeTags ${rule}` });
    problems.push(...found);
    if (result.success && found.length === 0) entries.push({ ...result.data, scopeTags: canonicalTags(result.data.scopeTags), file: null, line: null, column: null });
  });
  problems.push(...duplicateProblems(entries));
  return { entries, problems };
}
