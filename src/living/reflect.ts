// Reflection: the beliefs held about one subject become its mental model, a 2-4 sentence profile of who it is now,
// via an LLM. Never throws: a failure leaves the profile as it was.
import { z } from 'zod';
import { nameKey } from '../core/living-rules.js';
import type { Belief, ConsolidationAction } from '../core/living-types.js';
import type { JsonSchema, LLM, LlmMessage } from '../seams/llm.js';
import { beliefTrend } from './compute-trend.js';
import { attempt } from './stage-outcome.js';
import type { StageOutcome } from './stage-outcome.js';
import { looseText, withAliases } from './tolerant-json.js';

/** Options of a reflection. */
export interface ReflectOptions {
  /** The memory style that shapes this subject's profile (its own mission, else the world's). */
  mission?: string;
  /** Fewer beliefs than this: nothing to model (default 2). */
  minBeliefs?: number;
  /** Most beliefs shown, the best-supported first (default 30). */
  maxBeliefs?: number;
  /** The present turn, for each belief's trend (default: the latest turn among the beliefs). */
  nowTurn?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The JSON Schema the model is asked to answer with. */
export const MENTAL_MODEL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
};

const modelAnswer = z.preprocess(withAliases({ summary: ['profile', 'description', 'mental_model', 'text'] }), z.object({ summary: looseText }));

/**
 * The subjects whose beliefs a consolidation batch changed, in order: the subject of each CREATE and UPDATE
 * (DELETEs are left out), de-duplicated case-insensitively keeping the first spelling. The world ("") is included.
 *
 * @example
 * ```ts
 * affectedSubjects(actions); // ['Rowan', '', 'Kaël']
 * ```
 */
export function affectedSubjects(actions: readonly ConsolidationAction[]): string[] {
  const seen = new Set<string>();
  const subjects: string[] = [];
  for (const action of actions) {
    if (action.kind === 'DELETE') continue;
    const subject = action.subject.trim();
    const key = nameKey(subject);
    if (seen.has(key)) continue;
    seen.add(key);
    subjects.push(subject);
  }
  return subjects;
}

const SYSTEM = `You write the mental model of one subject of a story: a short profile (2 to 4 sentences, present tense) of who or what it is now, which the narrator reads before writing the next scene.

Rules:
- Base it only on the beliefs listed. Invent nothing.
- Capture how the subject has changed, and its relationships, goals and grudges. Name people by name.
- Never do arithmetic and never count events.
- Weigh well-supported and strengthening beliefs more than stale or weakening ones.

Answer with JSON: {"summary": "..."}`;

/**
 * The messages of a reflection (exported for tests and for prompt tuning).
 *
 * @example
 * ```ts
 * const messages = reflectionMessages('Kaël', await memory.living.beliefs('run-1'), { maxBeliefs: 10 });
 * ```
 */
export function reflectionMessages(subject: string, beliefs: readonly Belief[], options: ReflectOptions = {}): LlmMessage[] {
  const nowTurn = options.nowTurn ?? Math.max(...beliefs.map((belief) => belief.updatedTurnId));
  const shown = [...beliefs].sort((a, b) => b.proofCount - a.proofCount || b.updatedTurnId - a.updatedTurnId).slice(0, options.maxBeliefs ?? 30);
  const system = options.mission !== undefined && options.mission.trim() !== ''
    ? `${SYSTEM}\n\nMemory style to follow (what matters about this subject): ${options.mission.trim()}`
    : SYSTEM;
  const who = subject.trim() === '' ? 'the world of the story' : subject.trim();
  const lines = shown.map((belief) => `- [${beliefTrend(belief, nowTurn)}, ${belief.proofCount} fact${belief.proofCount === 1 ? '' : 's'}] ${belief.statement}`);
  return [{ role: 'system', content: system }, { role: 'user', content: `Subject: ${who}\n\nBeliefs held about it:\n${lines.join('\n')}` }];
}

/**
 * Reflects, reporting a failure instead of hiding it. Too few beliefs: "" without a call.
 *
 * @example
 * ```ts
 * const outcome = await runReflection(llm, 'Kaël', await memory.living.beliefs('run-1'));
 * if (outcome.ok && outcome.value !== '') console.log(outcome.value); // the mental model's new summary
 * ```
 */
export async function runReflection(llm: LLM, subject: string, beliefs: readonly Belief[], options: ReflectOptions = {}): Promise<StageOutcome<string>> {
  const standing = beliefs.filter((belief) => belief.deletedTurnId === null && belief.statement.trim() !== '');
  if (standing.length === 0 || standing.length < (options.minBeliefs ?? 2)) return { ok: true, value: '' };
  return attempt(() => llm.json(reflectionMessages(subject, standing, options), {
    schema: MENTAL_MODEL_SCHEMA,
    schemaName: 'mental_model',
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    parse: (value) => (typeof value === 'string' ? value.trim() : modelAnswer.parse(value).summary),
  }));
}

/**
 * Writes the mental model of `subject` from its beliefs. Returns "" when there are too few beliefs to be worth
 * modelling, or on any failure (never throws), so a background job can call it fire-and-forget.
 *
 * @example
 * ```ts
 * const summary = await reflect(llm, 'Rowan', await store.living.getBeliefs('run-1', { subject: 'Rowan' }));
 * if (summary !== '') await store.living.upsertModel('run-1', 'Rowan', summary, 40);
 * ```
 */
export async function reflect(llm: LLM, subject: string, beliefs: readonly Belief[], options: ReflectOptions = {}): Promise<string> {
  const outcome = await runReflection(llm, subject, beliefs, options);
  return outcome.ok ? outcome.value : '';
}
