// The shapes of a prompt context: the request, the sections with each line's source, and the rendered variables.
import type { Trend } from '../core/living-types.js';
import type { MetadataWhere } from '../core/types.js';
import type { ScopeLevel } from '../seams/lore-store.js';

/** The sections of a context, in the order the budget serves them (the recall hierarchy, then lore). */
export const CONTEXT_SECTIONS = ['mental_model', 'beliefs', 'facts', 'memories', 'lore_context'] as const;

export type ContextSectionName = (typeof CONTEXT_SECTIONS)[number];

/** What a context is built for: one character answering one message at one turn of one save. */
export interface ContextRequest {
  saveId: string;
  /** The character whose prompt this is (the NPC speaking): its mental model, beliefs and facts come first. */
  character: string;
  /** The player's message: the query for memories, lore and the ranking of beliefs and facts. May be empty. */
  message: string;
  /** The character's lore tags ([] = continental lore only): lore it may not know never enters the context. */
  tags: readonly string[];
  /** The present turn: nothing after it is read (chunks, facts, beliefs, models); belief trends are read at it. */
  currentTurnId?: number;
  /** Tokens for every section together (default 1200). The template's own text is not counted (see `tokens.prompt`). */
  budget?: number;
  /** Other subjects whose mental models and beliefs are included after the character's (default [""]: the world). */
  subjects?: readonly string[];
  /** Here-and-now terms (location, others on scene) that boost memories mentioning them; the character is always one. */
  focusTerms?: readonly string[];
  /** Metadata conditions the memories section's chunks must meet (see `QueryOptions.where`), applied before ranking. */
  where?: MetadataWhere;
  /** How many candidates each section considers before the budget (defaults: beliefs 20, facts 20, memories 8, lore 5). */
  limits?: Partial<Record<'beliefs' | 'facts' | 'memories' | 'lore', number>>;
  /** Each section's share of the budget in the first pass (defaults in DEFAULT_SHARES; normalised to sum 1). */
  shares?: Partial<Record<ContextSectionName, number>>;
  /** A prompt template with `{placeholders}` (default DEFAULT_CONTEXT_TEMPLATE); `{{` and `}}` are literal braces. */
  template?: string;
  /** Extra template variables (e.g. `name`, `personality`, `location`); built-in names cannot be replaced. */
  variables?: Readonly<Record<string, string>>;
  /** End each line with a short source tag such as `[fact 17]` (default true); the full sources are in `sections`. */
  sourceTags?: boolean;
}

/** Where a line came from. */
export type ContextSource =
  | { kind: 'mental_model'; modelId: number | null; subject: string; updatedTurnId: number; stale: boolean }
  | { kind: 'belief'; beliefId: number | null; subject: string; trend: Trend; proofCount: number; updatedTurnId: number; factIds: number[] }
  | { kind: 'fact'; factId: number | null; turnId: number | null }
  | { kind: 'chunk'; chunkId: string; turnId: number; chunkType: string; score: number }
  | { kind: 'lore'; entryId: string; title: string; scopeLevel: ScopeLevel; score: number };

/** One line of a section: the text as it appears in the prompt, its own token count and its source. */
export interface ContextLine {
  text: string;
  tokens: number;
  source: ContextSource;
}

/** One section: the lines kept (in display order), their joined text and its tokens, and what the budget left out. */
export interface ContextSection {
  name: ContextSectionName;
  /** The lines joined with newlines: the value of the variable of the same name. */
  text: string;
  /** Tokens of `text`, counted as a whole. */
  tokens: number;
  /** The section's first-pass cap, in tokens. */
  cap: number;
  lines: ContextLine[];
  /** Candidates left out because they did not fit (never cut in the middle). */
  omitted: ContextLine[];
}

/** The named prompt variables: the five sections, the character and the message, plus the request's own. */
export type ContextVariables = Record<ContextSectionName | 'character' | 'message', string> & Record<string, string>;

/** A built context: the named prompt variables, the sections with sources, and the rendered prompt. */
export interface ContextResult {
  /** `mental_model`, `beliefs`, `facts`, `memories`, `lore_context`, `character`, `message`, plus the request's variables. */
  variables: ContextVariables;
  /** Every section, in budget order (empty ones included). */
  sections: ContextSection[];
  /** The template rendered with the variables. */
  prompt: string;
  tokens: {
    /** The budget asked for. */
    budget: number;
    /** Tokens of the five sections together (<= budget). */
    used: number;
    /** Tokens of the rendered prompt, template text included. */
    prompt: number;
  };
  /** The token counter used, e.g. `o200k_base`. */
  tokenizer: string;
}
