// Parses a comma-separated tag option (`--tags brackwater,lamplighters`).

/**
 * The tags of a `--tags` option, trimmed, empty parts dropped.
 *
 * @example
 * ```ts
 * parseTags('brackwater, lamplighters,'); // ['brackwater', 'lamplighters']
 * ```
 */
export function parseTags(value: string): string[] {
  return value.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');
}
