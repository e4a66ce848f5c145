// Facts, beliefs, mental models and saves as compact text for a model: one line each, the ids a later call can name.
import { oneLine } from '../core/one-line.js';
import type { Fact, MentalModel } from '../core/living-types.js';
import type { SaveSummary } from '../core/types.js';
import type { BeliefView } from '../living/living-memory.js';

const subjectName = (subject: string) => (subject === '' ? 'the world' : subject);

/**
 * Facts, one line each: `turn 5 · fact 17: Marta owes Rowan three silver.`; `No fact.` when there is none.
 *
 * @example
 * ```ts
 * compactFacts(await memory.living.facts('run-1', { entity: 'Marta' }));
 * ```
 */
export function compactFacts(facts: readonly Fact[]): string {
  if (facts.length === 0) return 'No fact.';
  return facts.map((fact) => `turn ${fact.turnId ?? '?'} · fact ${fact.factId ?? '?'}: ${oneLine(fact.statement)}`).join('\n');
}

/**
 * Beliefs, one line each: id, subject, trend and how many facts back it, marked when stale or deleted.
 *
 * @example
 * ```ts
 * compactBeliefs(await memory.living.beliefs('run-1', { subject: 'Marta' }));
 * // belief 4 · Marta · STRENGTHENING · 3 facts: Marta distrusts the Lamplighters.
 * ```
 */
export function compactBeliefs(beliefs: readonly BeliefView[]): string {
  if (beliefs.length === 0) return 'No belief.';
  return beliefs
    .map((belief) => {
      const marks = [belief.stale ? 'stale' : null, belief.deletedTurnId === null ? null : `deleted at turn ${belief.deletedTurnId}`].filter((mark) => mark !== null);
      const facts = `${belief.proofCount} fact${belief.proofCount === 1 ? '' : 's'}`;
      return `belief ${belief.beliefId ?? '?'} · ${subjectName(belief.subject)} · ${belief.trend} · ${facts}${marks.map((mark) => ` · ${mark}`).join('')}: ${oneLine(belief.statement)}`;
    })
    .join('\n');
}

/**
 * Mental models, one line each: subject, the turn it was updated at, its id, then the profile.
 *
 * @example
 * ```ts
 * compactModels(await memory.living.models('run-1', { subject: 'Marta' }));
 * // Marta · turn 12 · model 3: A wary bartender who ...
 * ```
 */
export function compactModels(models: readonly MentalModel[]): string {
  if (models.length === 0) return 'No mental model.';
  return models.map((model) => `${subjectName(model.subject)} · turn ${model.updatedTurnId} · model ${model.modelId ?? '?'}${model.stale ? ' · stale' : ''}: ${oneLine(model.summary)}`).join('\n');
}

/**
 * Saves, one line each: id, chunks and turn range, and the living layer's counts when given (and not zero).
 *
 * @example
 * ```ts
 * compactSaves(await memory.listSaves()); // 'run-1 · 40 chunks · turns 0-39'
 * ```
 */
export function compactSaves(saves: readonly (Pick<SaveSummary, 'saveId' | 'chunks' | 'minTurnId' | 'maxTurnId'> & { facts?: number; beliefs?: number; models?: number })[]): string {
  if (saves.length === 0) return 'No save.';
  const count = (value: number | undefined, name: string) => (value === undefined || value === 0 ? '' : ` · ${value} ${name}${value === 1 ? '' : 's'}`);
  return saves
    .map((save) => `${save.saveId}${count(save.chunks, 'chunk') || ' · 0 chunks'}${save.minTurnId === null ? '' : ` · turns ${save.minTurnId}-${save.maxTurnId}`}${count(save.facts, 'fact')}${count(save.beliefs, 'belief')}${count(save.models, 'model')}`)
    .join('\n');
}
