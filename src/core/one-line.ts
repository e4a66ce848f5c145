// Text fit for one line of a prompt or a tool result: whitespace collapsed, and ids shortened to what tells them apart.

/**
 * The text with every run of whitespace (newlines included) made one space, trimmed: a line is never broken.
 *
 * @example
 * ```ts
 * oneLine('  The tide\n  turns. '); // 'The tide turns.'
 * ```
 */
export function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/**
 * The first 8 characters of a UUID: enough to tell lines apart in a prompt; the full id stays in the structured result.
 *
 * @example
 * ```ts
 * shortId('3f2a1b9c-0d4e-4f00-8a1b-2c3d4e5f6a7b'); // '3f2a1b9c'
 * ```
 */
export function shortId(id: string): string {
  return id.slice(0, 8);
}
