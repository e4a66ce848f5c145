// Reads a JSON command-line argument, with an error that shows how to quote it.
import { MnemoError } from '../core/errors.js';

/**
 * Parses `text` as JSON, or fails with INVALID_INPUT saying how to write the value on a shell line.
 *
 * @example
 * ```ts
 * parseJsonArgument('value', '{"risk":0.35}'); // { risk: 0.35 }
 * ```
 */
export function parseJsonArgument(field: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected JSON such as '"NDA"' (a string, quoted), 42 or '{"risk":0.35}', got ${JSON.stringify(text)} (${(error as Error).message}). Quote strings, or pass --text to store the argument as plain text.`, {
      details: { field },
    });
  }
}
