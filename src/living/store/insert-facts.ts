// Storing a turn's facts: normalised, blank ones skipped, ids and turn set on the caller's objects.
import { normalizeFact } from '../../core/living-rules.js';
import type { Fact, FactInput } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { rows } from './rows.js';

/**
 * Stores the facts of `turnId` (see normalizeFact); sets `factId` and `turnId` on each input actually stored and
 * returns the new ids.
 *
 * @example
 * ```ts
 * const ids = await backend.write(insertFacts('run-1', 3, [{ statement: 'Kaël owns a silver key.' }]));
 * ```
 */
export function* insertFacts(saveId: string, turnId: number, inputs: FactInput[]): LivingProgram<number[]> {
  const stored: { input: FactInput; fact: Fact }[] = [];
  for (const input of inputs) {
    const fact = normalizeFact(input, turnId);
    if (fact !== null) stored.push({ input, fact });
  }
  if (stored.length === 0) return [];
  const ids = yield* rows.insertFacts(saveId, stored.map(({ fact }) => fact));
  stored.forEach(({ input }, index) => {
    input.factId = ids[index] as number;
    input.turnId = turnId;
  });
  return ids;
}
