// Identifiers: chunk ids are random UUIDs (v4).
import { randomUUID } from 'node:crypto';

/**
 * A new random UUID.
 *
 * @example
 * ```ts
 * const id = newId(); // '3b241101-e2bb-4255-8caf-4136c566a962'
 * ```
 */
export function newId(): string {
  return randomUUID();
}
