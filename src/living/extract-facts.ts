// Fact extraction: one turn's narrative into atomic, verifiable facts (who/what/when/where/why), via an LLM.
// Never throws: a failure yields no facts for that pass.
import { z } from 'zod';
import { distinctNames, normalizeFact } from '../core/living-rules.js';
import type { Fact } from '../core/living-types.js';
import type { JsonSchema, LLM, LlmMessage } from '../seams/llm.js';
import { attempt } from './stage-outcome.js';
import type { StageOutcome } from './stage-outcome.js';
import { listIn, looseNames, looseText, parseEach, withAliases } from './tolerant-json.js';

/** Options of an extraction. */
export interface ExtractFactsOptions {
  /** Names already in the story, to be reused exactly as written. */
  knownEntities?: readonly string[];
  /** When the scene happens, in the world's terms ("the night of the storm"). */
  whenHint?: string;
  /** At most this many facts (default 8). */
  maxFacts?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The longest narrative sent to the model, in characters (the rest is cut, at a word). */
export const MAX_NARRATIVE_CHARS = 12_000;

/** The JSON Schema the model is asked to answer with. */
export const FACTS_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    facts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          statement: { type: 'string' },
          fact_type: { type: 'string', enum: ['world', 'experience', 'opinion'] },
          who: { type: 'string' },
          what: { type: 'string' },
          when: { type: 'string' },
          where: { type: 'string' },
          why: { type: 'string' },
          entities: { type: 'array', items: { type: 'string' } },
        },
        required: ['statement', 'fact_type', 'who', 'what', 'when', 'where', 'why', 'entities'],
      },
    },
  },
  required: ['facts'],
};

const extractedFact = z.preprocess(
  withAliases({ statement: ['fact', 'text', 'content'], fact_type: ['factType', 'type', 'kind'], entities: ['names', 'entity'] }),
  z.object({
    statement: looseText,
    fact_type: looseText,
    who: looseText,
    what: looseText,
    when: looseText,
    where: looseText,
    why: looseText,
    entities: looseNames,
  }),
);

const SYSTEM = `You extract facts from one turn of an interactive story, for the story's long-term memory.

Rules:
- Atomic: one fact per statement. Split compound sentences into separate facts.
- Verifiable: only what the text states, or what a character explicitly says or does. No speculation, no guessed motives, no predictions, no moods the text does not state.
- Self-contained: each statement is one sentence that names the people, places and things involved (never a bare pronoun). Reuse the known names exactly as written.
- Keep numbers and quantities as the text gives them. Do no arithmetic.
- Keep what someone would need to remember later: events, possessions, relationships, promises, secrets, places, changes of state. Skip atmosphere and small talk.
- At most {maxFacts} facts, the most important first. When nothing is worth remembering, return an empty list.

Each fact has: statement; fact_type ("world" for a lasting truth about the world, a place, an object or a character; "experience" for something that happened in this turn; "opinion" for a belief or feeling a character expresses); who, what, when, where, why (each "" when the text does not say); entities (every character, place, object and group named in it).

Answer with JSON: {"facts": [{"statement": "...", "fact_type": "experience", "who": "...", "what": "...", "when": "", "where": "...", "why": "", "entities": ["..."]}]}`;

/** Cuts a long narrative at a word boundary. */
function clip(text: string): string {
  if (text.length <= MAX_NARRATIVE_CHARS) return text;
  const cut = text.slice(0, MAX_NARRATIVE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > MAX_NARRATIVE_CHARS * 0.8 ? cut.slice(0, space) : cut} [...]`;
}

/**
 * The messages of an extraction (exported for tests and for prompt tuning).
 *
 * @example
 * ```ts
 * const messages = factExtractionMessages('Kaël pays the smith three silver.', { maxFacts: 4, knownEntities: ['Kaël'] });
 * ```
 */
export function factExtractionMessages(narrative: string, options: ExtractFactsOptions = {}): LlmMessage[] {
  const maxFacts = options.maxFacts ?? 8;
  const known = distinctNames(options.knownEntities ?? []);
  const context = [
    known.length > 0 ? `Known names: ${known.join(', ')}` : 'Known names: none yet',
    options.whenHint !== undefined && options.whenHint.trim() !== '' ? `When this turn happens: ${options.whenHint.trim()}` : null,
  ].filter((line) => line !== null);
  return [
    { role: 'system', content: SYSTEM.replace('{maxFacts}', String(maxFacts)) },
    { role: 'user', content: `${context.join('\n')}\n\nNarrative of this turn:\n<<<\n${clip(narrative.trim())}\n>>>` },
  ];
}

/**
 * Extracts facts, reporting a failure instead of hiding it (the background pipeline uses this to decide whether to
 * retry). Empty narrative: no call, no facts.
 *
 * @example
 * ```ts
 * const outcome = await runFactExtraction(llm, 'Kaël pays the smith three silver.', { maxFacts: 4 });
 * if (!outcome.ok) console.warn(outcome.error.code); // the worker retries on a failure
 * ```
 */
export async function runFactExtraction(llm: LLM, narrativeText: string, options: ExtractFactsOptions = {}): Promise<StageOutcome<Fact[]>> {
  const maxFacts = Math.max(0, Math.floor(options.maxFacts ?? 8));
  if (typeof narrativeText !== 'string' || narrativeText.trim() === '' || maxFacts === 0) return { ok: true, value: [] };
  return attempt(() => llm.json(factExtractionMessages(narrativeText, { ...options, maxFacts }), {
    schema: FACTS_SCHEMA,
    schemaName: 'facts',
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    parse(value) {
      const facts = parseEach(listIn(value, 'facts'), extractedFact).flatMap((item) => {
        const fact = normalizeFact({ ...item, factType: item.fact_type }, null);
        return fact === null ? [] : [fact];
      });
      return facts.slice(0, maxFacts);
    },
  }));
}

/**
 * Extracts atomic facts from a turn's narrative. Returns [] for an empty narrative or on any failure (model down,
 * timeout, malformed answer, cancellation): it never throws, so a background job can call it fire-and-forget.
 *
 * @example
 * ```ts
 * const facts = await extractFacts(llm, 'Kaël hides the silver key under the well.', { knownEntities: ['Kaël'] });
 * // [{ statement: 'Kaël hides the silver key under the well.', factType: 'experience', who: 'Kaël', ... }]
 * ```
 */
export async function extractFacts(llm: LLM, narrativeText: string, options: ExtractFactsOptions = {}): Promise<Fact[]> {
  const outcome = await runFactExtraction(llm, narrativeText, options);
  return outcome.ok ? outcome.value : [];
}
