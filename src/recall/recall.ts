// recall("query") from Memory: the best live entries of a declaration's scope.
import type { MemoryDeclaration, MemoryDeclarationInput } from './memory-declaration.js';
import { defineMemory } from './memory-declaration.js';
import type { MemoryEntry } from './memory-entry.js';
import { resolveBackend } from './resolve-backend.js';
import type { RecallTarget } from './resolve-backend.js';

/** Options of recall(). */
export interface RecallOptions {
  /** How many entries at most (1..1000, default 5). */
  topK?: number;
}

/**
 * The seed's `recall("contract types") from LongTermKnowledge`: retrieves from the declaration's scope only, with
 * the declaration's retrieval (semantic or exact). Expired entries never come back.
 *
 * @example
 * ```ts
 * const results = await recall(memory, LongTermKnowledge, 'contract types', { topK: 5 });
 * ```
 */
export async function recall(
  target: RecallTarget,
  declaration: MemoryDeclaration | MemoryDeclarationInput,
  query: string,
  options: RecallOptions = {},
): Promise<MemoryEntry[]> {
  const memory = defineMemory(declaration);
  return resolveBackend(target, memory).retrieve(query, options.topK ?? 5, memory.name);
}
