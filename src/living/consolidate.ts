// Belief consolidation: new facts plus the beliefs already held become CREATE / UPDATE / DELETE actions, via an
// LLM, shaped by the world's mission and the memory styles of the characters in the batch. Never throws.
import { z } from 'zod';
import { distinctNames, nameKey } from '../core/living-rules.js';
import type { Belief, ConsolidationAction, Fact } from '../core/living-types.js';
import type { JsonSchema, LLM, LlmMessage } from '../seams/llm.js';
import { missionFor } from './missions.js';
import type { BeliefMissions } from './missions.js';
import { attempt } from './stage-outcome.js';
import type { StageOutcome } from './stage-outcome.js';
import { listIn, looseId, looseIds, looseText, parseEach, withAliases } from './tolerant-json.js';

/** Options of a consolidation. */
export interface ConsolidateOptions {
  /** The world-wide default mission: what this world remembers. */
  mission?: string;
  /** Per-character memory styles; only those of characters in the batch are shown. */
  missions?: BeliefMissions;
  /** Most existing beliefs shown (default 24): the batch's characters first, then the most recent. <= 0 shows all. */
  maxExisting?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The JSON Schema the model is asked to answer with. */
export const CONSOLIDATION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    actions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          kind: { type: 'string', enum: ['CREATE', 'UPDATE', 'DELETE'] },
          belief_id: { type: ['integer', 'null'] },
          subject: { type: 'string' },
          statement: { type: 'string' },
          source_fact_ids: { type: 'array', items: { type: 'integer' } },
        },
        required: ['kind', 'belief_id', 'subject', 'statement', 'source_fact_ids'],
      },
    },
  },
  required: ['actions'],
};

const proposedAction = z.preprocess(
  withAliases({
    kind: ['action', 'type', 'operation', 'op'],
    belief_id: ['beliefId', 'observation_id', 'observationId', 'id'],
    statement: ['text', 'belief', 'content'],
    source_fact_ids: ['sourceFactIds', 'fact_ids', 'factIds', 'facts', 'sources'],
  }),
  z.object({
    kind: looseText.transform((kind) => kind.toUpperCase()).pipe(z.enum(['CREATE', 'UPDATE', 'DELETE'])),
    belief_id: looseId,
    subject: looseText,
    statement: looseText,
    source_fact_ids: looseIds,
  }),
);

/**
 * The characters a batch of facts involves: their entities and their `who`, first spelling kept.
 *
 * @example
 * ```ts
 * batchCharacters(facts); // e.g. ['Kaël', 'the smith', 'Mira'] for entities ['Kaël', 'the smith'] and who 'Kaël and Mira'
 * ```
 */
export function batchCharacters(facts: readonly Fact[]): string[] {
  return distinctNames(facts.flatMap((fact) => [...fact.entities, ...fact.who.split(/\s*(?:,|;|\band\b)\s*/)]));
}

/**
 * The existing beliefs shown to the consolidator: those about the batch's characters first, then the most recent
 * others, at most `max` (<= 0: all). Within each group, most recently updated first.
 *
 * @example
 * ```ts
 * selectBeliefsForBatch(beliefs, ['Rowan'], 24);
 * ```
 */
export function selectBeliefsForBatch(existing: readonly Belief[], characters: readonly string[], max = 24): Belief[] {
  const keys = new Set(characters.map(nameKey));
  const recentFirst = [...existing].filter((belief) => belief.deletedTurnId === null)
    .sort((a, b) => b.updatedTurnId - a.updatedTurnId || (b.beliefId ?? 0) - (a.beliefId ?? 0));
  const about = recentFirst.filter((belief) => keys.has(nameKey(belief.subject)));
  const others = recentFirst.filter((belief) => !keys.has(nameKey(belief.subject)));
  const chosen = [...about, ...others];
  return max > 0 ? chosen.slice(0, max) : chosen;
}

const SYSTEM = `You keep the beliefs of a story's long-term memory. A belief is one durable statement about one subject: a character, by name, or "" for the world. Beliefs are built from facts, and change as facts accumulate.

Given new facts and the beliefs already held, decide how the beliefs change:
- UPDATE a held belief when a new fact confirms, refines or contradicts it. Prefer UPDATE to creating a near-duplicate.
- When something changed, keep the change in the statement ("Rowan trusted Kaël until Kaël stole from him"): preserve what changed rather than overwriting it.
- CREATE a belief only for something durable that no held belief covers. One facet per belief: a relationship, a trait, a goal, a possession, a grudge, a secret. Never bundle several.
- DELETE only when the facts clearly show a belief is false or over, and an UPDATE cannot say so. Be conservative.
- Never do arithmetic and never count events: state quantities only as the facts give them.
- Cite the ids of the supporting new facts in source_fact_ids for every CREATE and UPDATE.
- Facts that matter for no lasting belief need no action. An empty list of actions is a fine answer.

Answer with JSON: {"actions": [{"kind": "CREATE" | "UPDATE" | "DELETE", "belief_id": <id of the held belief for UPDATE and DELETE, else null>, "subject": "<name, or empty for the world>", "statement": "<the belief, one sentence>", "source_fact_ids": [<fact ids>]}]}`;

function factLine(fact: Fact): string {
  const details = [fact.who !== '' ? `who: ${fact.who}` : '', fact.where !== '' ? `where: ${fact.where}` : '', fact.when !== '' ? `when: ${fact.when}` : '', fact.entities.length > 0 ? `names: ${fact.entities.join(', ')}` : '']
    .filter((part) => part !== '');
  return `[${fact.factId}] ${fact.statement}${details.length > 0 ? ` (${details.join('; ')})` : ''}`;
}

function beliefLine(belief: Belief): string {
  const subject = belief.subject === '' ? 'the world' : belief.subject;
  const notes = [`about: ${subject}`, `${belief.proofCount} fact${belief.proofCount === 1 ? '' : 's'}`, belief.stale ? 'needs re-checking after a rewind' : ''].filter((part) => part !== '');
  return `[${belief.beliefId}] ${belief.statement} (${notes.join('; ')})`;
}

/**
 * The messages of a consolidation (exported for tests and for prompt tuning).
 *
 * @example
 * ```ts
 * const [system, user] = consolidationMessages(newFacts, await memory.living.beliefs('run-1'));
 * console.log(user?.content);
 * ```
 */
export function consolidationMessages(newFacts: readonly Fact[], shown: readonly Belief[], options: ConsolidateOptions = {}): LlmMessage[] {
  const characters = batchCharacters(newFacts);
  const styles = characters.flatMap((name) => {
    const mission = missionFor(options.missions ?? {}, name);
    return mission === undefined ? [] : [`- ${name}: ${mission}`];
  });
  const system = [
    SYSTEM,
    options.mission !== undefined && options.mission.trim() !== '' ? `\nWhat this world remembers (its mission): ${options.mission.trim()}` : '',
    styles.length > 0 ? `\nMemory styles of the characters in these facts (what each tends to remember and dwell on; apply them to beliefs about or held by that character):\n${styles.join('\n')}` : '',
  ].join('');
  const turns = distinctNames(newFacts.map((fact) => String(fact.turnId)));
  const user = [
    `New facts${turns.length === 1 ? ` (turn ${turns[0]})` : ''}:`,
    ...newFacts.map(factLine),
    '',
    shown.length > 0 ? 'Beliefs held (those about the characters above first):' : 'Beliefs held: none yet.',
    ...shown.map(beliefLine),
  ].join('\n');
  return [{ role: 'system', content: system }, { role: 'user', content: user }];
}

/**
 * Consolidates, reporting a failure instead of hiding it. Actions are checked against what the model was shown:
 * UPDATE and DELETE must name a shown belief (and take its subject), CREATE and UPDATE keep only shown fact ids,
 * and a CREATE left with none is dropped (a belief rests on at least one known fact).
 *
 * @example
 * ```ts
 * const outcome = await runConsolidation(llm, newFacts, await memory.living.beliefs('run-1'));
 * if (outcome.ok) for (const action of outcome.value) console.log(action.kind, action.statement);
 * ```
 */
export async function runConsolidation(llm: LLM, newFacts: readonly Fact[], existing: readonly Belief[], options: ConsolidateOptions = {}): Promise<StageOutcome<ConsolidationAction[]>> {
  const facts = newFacts.filter((fact) => fact.factId !== null && fact.statement.trim() !== '');
  if (facts.length === 0) return { ok: true, value: [] };
  const shown = selectBeliefsForBatch(existing, batchCharacters(facts), options.maxExisting ?? 24);
  const shownById = new Map(shown.map((belief) => [belief.beliefId as number, belief]));
  const factIds = new Set(facts.map((fact) => fact.factId as number));
  return attempt(() => llm.json(consolidationMessages(facts, shown, options), {
    schema: CONSOLIDATION_SCHEMA,
    schemaName: 'consolidation',
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    parse(value) {
      return parseEach(listIn(value, 'actions'), proposedAction).flatMap((proposed): ConsolidationAction[] => {
        const sourceFactIds = [...new Set(proposed.source_fact_ids.filter((id) => factIds.has(id)))];
        if (proposed.kind === 'CREATE') return sourceFactIds.length === 0 ? [] : [{ kind: 'CREATE', statement: proposed.statement, subject: proposed.subject, beliefId: null, sourceFactIds }];
        const target = proposed.belief_id === null ? undefined : shownById.get(proposed.belief_id);
        if (target === undefined) return [];
        return [{ kind: proposed.kind, statement: proposed.kind === 'UPDATE' ? proposed.statement : '', subject: target.subject, beliefId: target.beliefId, sourceFactIds: proposed.kind === 'UPDATE' ? sourceFactIds : [] }];
      });
    },
  }));
}

/**
 * Asks the model how beliefs should change given new facts. Returns [] for no facts or on any failure (never
 * throws), so a background job can call it fire-and-forget.
 *
 * @example
 * ```ts
 * const actions = await consolidate(llm, facts, beliefs, { mission: 'Remember betrayals.', missions: { Rowan: 'remembers every debt' } });
 * const counts = await store.living.applyConsolidation('run-1', 12, actions, new Map(facts.map((f) => [f.factId!, f.turnId!])));
 * ```
 */
export async function consolidate(llm: LLM, newFacts: readonly Fact[], existing: readonly Belief[], options: ConsolidateOptions = {}): Promise<ConsolidationAction[]> {
  const outcome = await runConsolidation(llm, newFacts, existing, options);
  return outcome.ok ? outcome.value : [];
}
