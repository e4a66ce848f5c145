// The prompt context builder: one character's mental model, beliefs, facts, memories and permitted lore, within a token budget.
import { resolveMetadataWhere } from '../core/metadata-filter.js';
import { MnemoError } from '../core/errors.js';
import type { Fact, MentalModel } from '../core/living-types.js';
import { LIMITS, limitExceeded, requireShortText } from '../core/limits.js';
import { describe, optionalTurnId, requireFocusTerms, requireQueryText, requireSaveId } from '../core/validate.js';
import type { BeliefView, LivingMemory } from '../living/living-memory.js';
import { LORE_CHUNK_TYPE } from '../lore/lore-book.js';
import type { LoreBook } from '../lore/lore-book.js';
import { requireCharacterTags } from '../lore/scope-tags.js';
import type { NarrativeMemory } from '../narrative/narrative-memory.js';
import { createAnalyzer } from '../retrieval/analyzer.js';
import type { Analyzer } from '../retrieval/corpus-index.js';
import { TimeSlice } from '../core/time-slice.js';
import type { TokenCounter } from '../seams/token-counter.js';
import { defaultTokenCounter } from '../token-counters/default-token-counter.js';
import { countTokens } from '../token-counters/token-tally.js';
import { allocateBudget } from './allocate-budget.js';
import { beliefLines, byTurn, factLines, loreLines, memoryLines, modelLines, termOverlap } from './context-lines.js';
import type { LineStyle } from './context-lines.js';
import { CONTEXT_SECTIONS } from './context-types.js';
import type { ContextRequest, ContextResult, ContextVariables } from './context-types.js';
import { renderTemplate, templatePlaceholders } from './render-template.js';

/** The budget when none is given, in tokens. */
export const DEFAULT_CONTEXT_BUDGET = 1200;

/** The largest budget accepted, in tokens. */
export const MAX_CONTEXT_BUDGET = LIMITS.contextBudget;

/** How many candidates each section considers when the request does not say. */
export const DEFAULT_LIMITS = { beliefs: 20, facts: 20, memories: 8, lore: 5 } as const;

/** How many of the most recent beliefs (per subject) and facts (per entity) are ranked against the message. */
const POOL = 200;

/**
 * The template used when the request gives none: the recall hierarchy, with the lore the character may know. Its
 * blocks are separated by blank lines, one section each; a block whose section is empty is left out, so the
 * prompt never shows a header with nothing under it (a template you pass is rendered as written).
 */
export const DEFAULT_CONTEXT_TEMPLATE = [
  '## Who {character} is now',
  '{mental_model}',
  '',
  '## What {character} believes',
  '{beliefs}',
  '',
  '## What {character} knows happened',
  '{facts}',
  '',
  '## What {character} knows about the world',
  '{lore_context}',
  '',
  '## What {character} remembers',
  '{memories}',
].join('\n');

/**
 * The default template rendered block by block (blocks are separated by a blank line), leaving out each block
 * whose sections are all empty.
 */
function renderDefaultTemplate(variables: ContextVariables): string {
  return DEFAULT_CONTEXT_TEMPLATE.split('\n\n')
    .filter((block) => {
      const sections = templatePlaceholders(block).filter((name) => (CONTEXT_SECTIONS as readonly string[]).includes(name));
      return sections.length === 0 || sections.some((name) => variables[name] !== '');
    })
    .map((block) => renderTemplate(block, variables))
    .join('\n\n');
}

/** The variables every context defines; a request's own variables may not replace them. */
export const BUILT_IN_VARIABLES = [...CONTEXT_SECTIONS, 'character', 'message'] as const;

/** What a ContextBuilder reads from. */
export interface ContextBuilderOptions {
  narrative: NarrativeMemory;
  living: LivingMemory;
  lore: LoreBook;
  /** How beliefs and facts are matched against the message (default: the English analyzer of narrative search). */
  analyzer?: Analyzer;
  /** How tokens are counted (default: defaultTokenCounter(): o200k_base when gpt-tokenizer is installed, else the estimate; loaded on the first build). */
  tokenCounter?: TokenCounter;
}

function requireName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected a name (a non-empty string of at most 200 characters), got ${describe(value)}. Pass the character as the living layer names it, e.g. "Rowan".`, { details: { field } });
  }
  return value.trim();
}

function requireNames(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string' || name.length > 200)) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected an array of names of at most 200 characters such as ["Kaël", "the docks"] ("" is the world), got ${describe(value)}.`, { details: { field } });
  }
  if (value.length > LIMITS.names) throw limitExceeded(field, 'names', value.length, 'Name the few subjects the prompt is about.', 'names');
  return value as string[];
}

/** The request's focus terms: at most LIMITS.focusTerms - 1, since the character is one of them. */
function requireContextFocusTerms(value: unknown): string[] {
  if (Array.isArray(value) && value.length >= LIMITS.focusTerms) {
    throw new MnemoError('LIMIT_EXCEEDED', `focusTerms: at most ${LIMITS.focusTerms - 1} terms in a context request (limit focusTerms, less the character, which is always one; see docs/limits.md), got ${value.length}. Name the place and the characters on scene.`, {
      details: { field: 'focusTerms', limit: 'focusTerms', maximum: LIMITS.focusTerms - 1, received: value.length },
    });
  }
  return requireFocusTerms(value);
}

function requireInteger(value: unknown, field: string, minimum: number, maximum: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected an integer from ${minimum} to ${maximum}, got ${describe(value)}.`, { details: { field } });
  }
  return value;
}

function requireVariables(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MnemoError('INVALID_INPUT', `variables: expected an object of strings such as { "name": "Rowan" }, got ${describe(value)}.`, { details: { field: 'variables' } });
  }
  const entries = Object.entries(value);
  if (entries.length > LIMITS.templateVariables) throw limitExceeded('variables', 'templateVariables', entries.length, 'Pass the few values the template names.', 'variables');
  for (const [name, text] of entries) {
    if ((BUILT_IN_VARIABLES as readonly string[]).includes(name)) {
      throw new MnemoError('INVALID_INPUT', `variables.${name}: {${name}} is filled by the context builder and cannot be replaced. Use another name.`, { details: { field: `variables.${name}` } });
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/u.test(name) || typeof text !== 'string') {
      throw new MnemoError('INVALID_INPUT', `variables.${name}: expected a string under a name of letters, digits and _, got ${describe(text)}.`, { details: { field: `variables.${name}` } });
    }
    requireShortText(`variables.${name}`, 'templateChars', text, 'Keep long texts in the lore book or in memories.');
  }
  return { ...(value as Record<string, string>) };
}

/**
 * Builds the context of one prompt, following the recall hierarchy of living memory (mental model, then beliefs,
 * then facts, then raw chunks) plus the lore the character may know, within a token budget. Deterministic: the
 * same store and request give the same text. Every line carries its source (model, belief, fact, chunk or lore
 * entry id, and the turn), and the budget rule is `allocateBudget`'s: shares first, leftover by priority, lines
 * whole or absent. See docs/serving.md.
 *
 * @example
 * ```ts
 * const context = await memory.context.build({
 *   saveId: 'run-1', character: 'Rowan', message: 'Who founded Brackwater?', currentTurnId: 40,
 *   tags: ['brackwater', 'brackwater_docks'], budget: 800,
 *   template: 'You are {name}.\n## What you know about the world\n{lore_context}\n## Your history\n{memories}',
 *   variables: { name: 'Rowan' },
 * });
 * context.prompt; // the template filled in
 * context.sections.find((section) => section.name === 'lore_context')?.lines[0]?.source; // { kind: 'lore', entryId, ... }
 * ```
 */
export class ContextBuilder {
  private readonly narrative: NarrativeMemory;
  private readonly living: LivingMemory;
  private readonly lore: LoreBook;
  private readonly analyzer: Analyzer;
  private counter: TokenCounter | Promise<TokenCounter> | null;

  constructor(options: ContextBuilderOptions) {
    this.narrative = options.narrative;
    this.living = options.living;
    this.lore = options.lore;
    this.analyzer = options.analyzer ?? createAnalyzer();
    this.counter = options.tokenCounter ?? null;
  }

  /** The token counter in use (the default one is loaded on the first call). */
  async tokenCounter(): Promise<TokenCounter> {
    this.counter ??= defaultTokenCounter();
    try {
      this.counter = await this.counter;
    } catch (error) {
      this.counter = null;
      throw error;
    }
    return this.counter;
  }

  /** Builds the context of one prompt (see the class). */
  async build(request: ContextRequest): Promise<ContextResult> {
    if (request === null || typeof request !== 'object') throw new MnemoError('INVALID_INPUT', `context: expected a request object { saveId, character, message, tags, ... }, got ${describe(request)}.`);
    const saveId = requireSaveId(request.saveId);
    const character = requireName(request.character, 'character');
    const message = requireQueryText(request.message, 'message');
    const tags = requireCharacterTags(request.tags);
    const currentTurnId = optionalTurnId(request.currentTurnId, 'currentTurnId');
    if (typeof request.budget === 'number' && Number.isSafeInteger(request.budget) && request.budget > MAX_CONTEXT_BUDGET) throw limitExceeded('budget', 'contextBudget', request.budget, 'A prompt\'s context is a few thousand tokens.', 'tokens');
    const budget = requireInteger(request.budget ?? DEFAULT_CONTEXT_BUDGET, 'budget', 1, MAX_CONTEXT_BUDGET);
    const limit = (name: keyof typeof DEFAULT_LIMITS) => {
      const value = request.limits?.[name] ?? DEFAULT_LIMITS[name];
      if (typeof value === 'number' && Number.isSafeInteger(value) && value > LIMITS.contextSectionItems) throw limitExceeded(`limits.${name}`, 'contextSectionItems', value, 'A prompt uses a few dozen lines of each kind.', 'candidates');
      return requireInteger(value, `limits.${name}`, 0, LIMITS.contextSectionItems);
    };
    for (const name of Object.keys(DEFAULT_LIMITS) as (keyof typeof DEFAULT_LIMITS)[]) limit(name);
    const template = request.template ?? DEFAULT_CONTEXT_TEMPLATE;
    if (typeof template !== 'string') throw new MnemoError('INVALID_INPUT', `template: expected a string with {placeholders}, got ${describe(template)}.`, { details: { field: 'template' } });
    requireShortText('template', 'templateChars', template, 'Keep the template to the prompt\'s frame; pass long texts as variables.');
    const extra = requireVariables(request.variables);
    const known = new Set<string>([...BUILT_IN_VARIABLES, ...Object.keys(extra)]);
    renderTemplate(template, Object.fromEntries([...known].map((name) => [name, '']))); // an unknown placeholder throws here, before any read
    const subjects = this.subjects(character, request.subjects);
    const focusTerms = [character, ...requireContextFocusTerms(request.focusTerms)];
    resolveMetadataWhere(request.where);

    const counter = await this.tokenCounter();
    const style: LineStyle = { sourceTags: request.sourceTags !== false };
    const messageTerms = new Set(this.analyzer(message));
    const relevance = (text: string) => termOverlap(this.analyzer, messageTerms, text);

    const models: MentalModel[] = [];
    for (const subject of subjects) models.push(...(await this.living.models(saveId, { subject, maxTurnId: currentTurnId, limit: 1 })));
    const beliefs: BeliefView[] = [];
    if (limit('beliefs') > 0) {
      for (const subject of subjects) beliefs.push(...(await this.living.beliefs(saveId, { subject, maxTurnId: currentTurnId, nowTurn: currentTurnId, limit: POOL })));
    }
    const facts = new Map<number | null, Fact>();
    if (limit('facts') > 0) {
      for (const entity of subjects.filter((subject) => subject !== '')) {
        for (const fact of await this.living.facts(saveId, { entity, maxTurnId: currentTurnId, limit: POOL })) facts.set(fact.factId, fact);
      }
    }
    const hits = limit('memories') === 0 ? [] : await this.narrative.query(saveId, message, { k: limit('memories'), currentTurnId, excludeChunkType: LORE_CHUNK_TYPE, focusTerms, where: request.where });
    const lore = limit('lore') === 0 ? [] : await this.lore.search(message, { tags, k: limit('lore'), focusTerms });

    const slice = new TimeSlice();
    const sections = await allocateBudget(
      {
        mental_model: { lines: modelLines(style, models) },
        beliefs: { lines: beliefLines(style, beliefs, subjects.map((subject) => subject.toLowerCase()), relevance).slice(0, limit('beliefs')) },
        facts: { lines: factLines(style, [...facts.values()], relevance).slice(0, limit('facts')), display: byTurn },
        memories: { lines: memoryLines(style, hits), display: byTurn },
        lore_context: { lines: loreLines(style, lore) },
      },
      budget,
      request.shares ?? {},
      counter,
      slice,
    );
    const texts = Object.fromEntries(sections.map((section) => [section.name, section.text])) as Record<(typeof sections)[number]['name'], string>;
    const variables: ContextVariables = { ...extra, ...texts, character, message };
    const prompt = request.template === undefined ? renderDefaultTemplate(variables) : renderTemplate(template, variables);
    return {
      variables,
      sections,
      prompt,
      tokens: { budget, used: sections.reduce((sum, section) => sum + section.tokens, 0), prompt: await countTokens(counter, prompt, slice) },
      tokenizer: counter.name,
    };
  }

  /** The character, then the request's subjects (default: the world, ""), without repeats (case-insensitive). */
  private subjects(character: string, requested: readonly string[] | undefined): string[] {
    const subjects: string[] = [];
    for (const subject of [character, ...(requested === undefined ? [''] : requireNames(requested, 'subjects'))].map((name) => name.trim())) {
      if (!subjects.some((seen) => seen.toLowerCase() === subject.toLowerCase())) subjects.push(subject);
    }
    return subjects;
  }
}

/**
 * Builds a prompt context with a Mnemo handle's builder (the same as `memory.context.build(request)`).
 *
 * @example
 * ```ts
 * const { prompt, variables } = await buildContext(memory, { saveId: 'run-1', character: 'Rowan', message: 'Any news?', tags: ['brackwater'] });
 * ```
 */
export function buildContext(memory: { readonly context: ContextBuilder }, request: ContextRequest): Promise<ContextResult> {
  return memory.context.build(request);
}
