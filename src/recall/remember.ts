// remember(value) -> Memory: stores a value under a declaration's scope, with its decay.
import type { JsonValue, Metadata } from '../core/types.js';
import type { MemoryDeclaration, MemoryDeclarationInput } from './memory-declaration.js';
import { defineMemory } from './memory-declaration.js';
import type { MemoryEntry } from './memory-entry.js';
import { resolveBackend } from './resolve-backend.js';
import type { RecallTarget } from './resolve-backend.js';
import { prepareMetadata } from './validate-recall-input.js';

/**
 * The seed's `remember(ContractSummary) -> LongTermKnowledge`: stores `value` under `key` in the declaration's
 * scope (metadata.scope is always the declaration's name), expiring after its decay.
 *
 * @example
 * ```ts
 * const LongTermKnowledge = defineMemory({ name: 'LongTermKnowledge' });
 * await remember(memory, LongTermKnowledge, 'contract_summary', { parties: ['Acme Corp', 'Beta LLC'] }, { source: 'Summarize' });
 * ```
 */
export async function remember(
  target: RecallTarget,
  declaration: MemoryDeclaration | MemoryDeclarationInput,
  key: string,
  value: JsonValue,
  metadata?: Metadata | null,
): Promise<MemoryEntry> {
  const memory = defineMemory(declaration);
  const extra = prepareMetadata(metadata).metadata;
  return resolveBackend(target, memory).store(key, value, { ...extra, scope: memory.name }, { decayMs: memory.decayMs });
}
