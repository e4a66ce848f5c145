// Which MemoryBackend a declaration's remember / recall goes to: a backend given directly, or one a resolver picks.
import { MnemoError } from '../core/errors.js';
import type { MemoryBackend } from './memory-backend.js';
import type { MemoryDeclaration } from './memory-declaration.js';

/** Picks the backend of a declaration (by its store, backend and retrieval). `memory.recall` is one. */
export interface BackendResolver {
  backendFor(declaration: MemoryDeclaration): MemoryBackend;
}

/** What remember() and recall() accept: a backend, a resolver (`memory.recall`), or a Mnemo handle (`memory`). */
export type RecallTarget = MemoryBackend | BackendResolver | { readonly recall: BackendResolver };

const isResolver = (value: unknown): value is BackendResolver => typeof (value as BackendResolver | null)?.backendFor === 'function';
const isBackend = (value: unknown): value is MemoryBackend =>
  typeof (value as MemoryBackend | null)?.store === 'function' && typeof (value as MemoryBackend).retrieve === 'function';

/**
 * The backend a declaration's operations go to. A backend passed directly is used as it is (the declaration then
 * contributes its name as the scope and its decay).
 *
 * @example
 * ```ts
 * resolveBackend(memory, LongTermKnowledge); // memory.recall.backendFor(LongTermKnowledge)
 * ```
 */
export function resolveBackend(target: RecallTarget, declaration: MemoryDeclaration): MemoryBackend {
  if (isResolver(target)) return target.backendFor(declaration);
  const nested = (target as { recall?: unknown } | null)?.recall;
  if (isResolver(nested)) return nested.backendFor(declaration);
  if (isBackend(target)) return target;
  throw new MnemoError('INVALID_INPUT', 'memory: expected a Mnemo handle, memory.recall or a MemoryBackend (such as new InMemoryBackend()), got something else. Pass the memory to remember into.', {
    details: { field: 'memory' },
  });
}
