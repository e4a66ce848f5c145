// The in-memory store: the Store contract without a file, for tests and throwaway sessions.
import { InMemoryStore } from './memory-store.js';

export { InMemoryStore } from './memory-store.js';

/**
 * Opens an empty in-memory store.
 *
 * @example
 * ```ts
 * const memory = await openMemory({ store: openInMemoryStore() });
 * ```
 */
export function openInMemoryStore(): InMemoryStore {
  return new InMemoryStore();
}
