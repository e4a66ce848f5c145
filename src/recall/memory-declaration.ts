// Memory declarations (the seed's `memory Name { store, backend, retrieval, decay }`), validated with zod.
import { z } from 'zod';
import { MnemoError } from '../core/errors.js';
import { DECAY_FORMS, isDecay, parseDecay } from './decay.js';

const received = (input: unknown): string => (input === undefined ? 'nothing' : JSON.stringify(input) ?? String(input));

/** The schema of a declaration as a caller (or a config file) writes it. */
export const memoryDeclarationSchema = z
  .object({
    name: z
      .string({ error: (issue) => `expected the memory's name as a string, got ${received(issue.input)}` })
      .min(1, { error: 'expected a non-empty name, such as "LongTermKnowledge"' })
      .max(200, { error: 'expected a name of at most 200 characters' }),
    store: z.enum(['persistent', 'ephemeral'], { error: (issue) => `expected "persistent" or "ephemeral", got ${received(issue.input)}` }).default('persistent'),
    backend: z.enum(['in_memory', 'vector_db'], { error: (issue) => `expected "in_memory" or "vector_db", got ${received(issue.input)}` }).optional(),
    retrieval: z.enum(['semantic', 'exact'], { error: (issue) => `expected "semantic" or "exact", got ${received(issue.input)}` }).optional(),
    decay: z.string({ error: (issue) => `expected ${DECAY_FORMS}; got ${received(issue.input)}` })
      .refine(isDecay, { error: (issue) => `expected ${DECAY_FORMS}; got ${received(issue.input)}` })
      .default('none'),
  })
  .strict();

/** A declaration as written: only `name` is required. */
export type MemoryDeclarationInput = z.input<typeof memoryDeclarationSchema>;

/** A checked declaration, every field filled in, frozen. `name` is the scope its entries are stored under. */
export interface MemoryDeclaration {
  readonly name: string;
  readonly store: 'persistent' | 'ephemeral';
  readonly backend: 'in_memory' | 'vector_db';
  readonly retrieval: 'semantic' | 'exact';
  readonly decay: string;
  /** The decay in milliseconds, or null for "none". */
  readonly decayMs: number | null;
}

const checked = new WeakSet<MemoryDeclaration>();

function invalid(name: unknown, message: string, field: string): MnemoError {
  const label = typeof name === 'string' && name !== '' ? `memory ${name}` : 'memory declaration';
  return new MnemoError('INVALID_INPUT', `${label}: ${message}`, { details: { field } });
}

/**
 * Checks a memory declaration and fills in its defaults: `store` persistent; `backend` vector_db for a persistent
 * store, in_memory for an ephemeral one; `retrieval` semantic on vector_db, exact on in_memory; `decay` none.
 * Contradictions are errors: an in_memory backend cannot be persistent, nor search by meaning.
 *
 * @example
 * ```ts
 * const LongTermKnowledge = defineMemory({ name: 'LongTermKnowledge', store: 'persistent', backend: 'vector_db', retrieval: 'semantic', decay: 'none' });
 * const ShortTermCache = defineMemory({ name: 'ShortTermCache', store: 'ephemeral', backend: 'in_memory', decay: '1h' });
 * ShortTermCache.decayMs; // 3_600_000
 * ```
 */
export function defineMemory(input: MemoryDeclarationInput | MemoryDeclaration): MemoryDeclaration {
  if (checked.has(input as MemoryDeclaration)) return input as MemoryDeclaration;
  if (input === null || typeof input !== 'object') {
    throw new MnemoError('INVALID_INPUT', `memory declaration: expected an object such as { name: "LongTermKnowledge", store: "persistent" }, got ${received(input)}.`, { details: { field: 'declaration' } });
  }
  const parsed = memoryDeclarationSchema.safeParse(input);
  if (!parsed.success) {
    const messages = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
    throw invalid((input as { name?: unknown }).name, `${messages.join('; ')}.`, String(parsed.error.issues[0]?.path[0] ?? 'declaration'));
  }
  const { name, store, decay } = parsed.data;
  const backend = parsed.data.backend ?? (store === 'persistent' ? 'vector_db' : 'in_memory');
  const retrieval = parsed.data.retrieval ?? (backend === 'vector_db' ? 'semantic' : 'exact');
  if (store === 'persistent' && backend === 'in_memory') {
    throw invalid(name, 'backend: "in_memory" keeps nothing across a restart, so it cannot back a persistent store. Use backend "vector_db", or store "ephemeral".', 'backend');
  }
  if (backend === 'in_memory' && retrieval === 'semantic') {
    throw invalid(name, 'retrieval: the in_memory backend matches substrings only ("exact"). Use backend "vector_db" for semantic retrieval.', 'retrieval');
  }
  const declaration: MemoryDeclaration = Object.freeze({ name, store, backend, retrieval, decay, decayMs: parseDecay(decay) });
  checked.add(declaration);
  return declaration;
}
