// One problem found while reading lore: where it is (file, entry, line and column) and what is wrong.
import { MnemoError } from '../core/errors.js';

/** A validation problem. Positions are 1-based; null where the input has no file or the parser gave none. */
export interface LoreProblem {
  /** The file, relative to the repository root (null for entries passed in code). */
  file: string | null;
  /** The entry's title, or `#N` (1-based) when it has no usable title; null for a file-level problem. */
  entry: string | null;
  line: number | null;
  column: number | null;
  /** What is wrong, naming the field: `scope_tags must be a list of tags, such as ["brackwater"], got "brackwater"`. */
  message: string;
}

/**
 * The name of a field from a validation path, as an author would write it.
 *
 * @example
 * ```ts
 * fieldName(['scope_tags', 1]); // 'scope_tags[1]'
 * ```
 */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('');
}

/**
 * One line per problem, compiler style: `file:line:column, entry 'Title': message`.
 *
 * @example
 * ```ts
 * formatProblem({ file: 'brackwater/regional.yaml', entry: 'The Salt Toll', line: 12, column: 17, message: 'scope_level is required' });
 * // "brackwater/regional.yaml:12:17, entry 'The Salt Toll': scope_level is required"
 * ```
 */
export function formatProblem(problem: LoreProblem): string {
  const place = problem.file === null ? '' : `${problem.file}${problem.line === null ? '' : `:${problem.line}:${problem.column ?? 1}`}`;
  const entry = problem.entry === null ? '' : `entry '${problem.entry}'`;
  const where = [place, entry].filter((part) => part !== '').join(', ');
  return where === '' ? problem.message : `${where}: ${problem.message}`;
}

/** The error an import throws when any problem was found: every problem in the message, one per line. */
export function loreInvalidError(problems: readonly LoreProblem[]): MnemoError {
  const lines = problems.map(formatProblem);
  return new MnemoError('LORE_INVALID', `The lore is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing was written. Fix these and run again:\n${lines.map((line) => `  ${line}`).join('\n')}`, {
    details: { problems: lines, count: problems.length },
  });
}
