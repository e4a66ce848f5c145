// Mnemo's memory as AI SDK tools (remember, recall, query_memory, lore_search, build_context) for generateText / streamText agents.
import type { Tool } from 'ai';
import { z } from 'zod';
import { compactEntries, compactEntry, compactHits, compactLoreHits } from '../../compact/index.js';
import { MnemoError } from '../../core/errors.js';
import type { Hit } from '../../core/types.js';
import type { ContextResult } from '../../context/context-types.js';
import type { LoreHit } from '../../lore/lore-book.js';
import type { Mnemo } from '../../open-memory.js';
import { parseDecay } from '../../recall/decay.js';
import type { MemoryEntry } from '../../recall/memory-entry.js';

/** What the tools act on: the application decides the save, the scope and the character; the model never does. */
export interface MnemoToolsOptions {
  /** The save the agent's turns live in: `query_memory` and `build_context` read it. */
  saveId: string;
  /** The remember / recall scope (default: the save id, so an agent run's notes stay its own). */
  scope?: string;
  /** The present turn (a number, or a function read at each call): nothing later is read. */
  currentTurnId?: number | (() => number | undefined);
  /** The character the agent plays: with `tags`, adds `build_context`. */
  character?: string;
  /** The character's lore tags ([] = continental lore only): with them, adds `lore_search` (and `build_context`). */
  tags?: readonly string[];
  /** Token budget of `build_context` (default 1200). */
  budget?: number;
  /** Show scores in the text the model reads (default false: they cost tokens and rarely help a model). */
  scores?: boolean;
}

/** The tools `mnemoTools` makes (a type, so that it is an AI SDK ToolSet); `lore_search` needs `tags`, `build_context` needs `character` and `tags`. */
export type MnemoTools = {
  remember: Tool<RememberInput, MemoryEntry>;
  recall: Tool<RecallInput, { entries: MemoryEntry[] }>;
  query_memory: Tool<QueryInput, { hits: Hit[] }>;
  lore_search?: Tool<LoreInput, { hits: LoreHit[] }>;
  build_context?: Tool<ContextInput, ContextResult>;
};

const text = (value: string) => ({ type: 'text' as const, value });

const rememberInput = z.strictObject({
  key: z.string().min(1).max(200).describe('A short name for what is remembered, e.g. "player_name" or "debt_to_rowan"; remembering the same key again replaces it.'),
  value: z.string().min(1).max(10_000).describe('What to remember, as a sentence or a short value.'),
  decay: z.string().max(20).optional().describe('Forget it after this long: "30s", "15m", "1h", "7d" (default: never).'),
});
const recallInput = z.strictObject({
  query: z.string().min(1).max(2_000).describe('What to look for among remembered values: a key or a few words of the value.'),
  k: z.number().int().min(1).max(20).optional().describe('How many entries to return (default 5).'),
});
const queryInput = z.strictObject({
  query: z.string().min(1).max(2_000).describe('What to look for in what happened: a question or a few words.'),
  k: z.number().int().min(1).max(20).optional().describe('How many memories to return (default 5).'),
});
const loreInput = z.strictObject({
  query: z.string().min(1).max(2_000).describe('What to look up in the world lore the character may know.'),
  k: z.number().int().min(1).max(20).optional().describe('How many entries to return (default 5).'),
});
const contextInput = z.strictObject({
  message: z.string().max(2_000).describe('The message to answer: memories, beliefs, facts and lore are ranked against it.'),
});

type RememberInput = z.output<typeof rememberInput>;
type RecallInput = z.output<typeof recallInput>;
type QueryInput = z.output<typeof queryInput>;
type LoreInput = z.output<typeof loreInput>;
type ContextInput = z.output<typeof contextInput>;

function requireOptions(options: MnemoToolsOptions): void {
  if (options === null || typeof options !== 'object' || typeof options.saveId !== 'string' || options.saveId === '') {
    throw new MnemoError('INVALID_INPUT', `mnemoTools: expected options with a saveId (the save the agent's turns live in), got ${JSON.stringify(options)}. Pass e.g. { saveId: 'run-1' }.`, { details: { field: 'saveId' } });
  }
}

/**
 * Mnemo's memory as AI SDK tools, for `generateText` / `streamText`. Each tool has a zod input schema with every
 * field described and bounded, returns the full result to your code (`toolResults`), and gives the model compact
 * text: one line per hit (turn, type, a short id, the text), scores only with `scores: true`. The save, the recall
 * scope, the turn and the character's lore tags come from `options`, never from the model, so a model cannot read
 * another save or lore its character may not know. `ai` is needed only for its types: this module loads nothing of it.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { mnemoTools } from 'mnemo-engine/ai-sdk';
 *
 * const tools = mnemoTools(memory, { saveId: 'run-1', character: 'Marta', tags: ['brackwater', 'brackwater_docks'], currentTurnId: () => turn });
 * const { text } = await generateText({ model, tools, stopWhen: stepCountIs(4), prompt: 'Who founded Brackwater?' });
 * ```
 */
export function mnemoTools(memory: Mnemo, options: MnemoToolsOptions): MnemoTools {
  requireOptions(options);
  const { saveId } = options;
  const scope = options.scope ?? saveId;
  const scores = { scores: options.scores === true };
  const currentTurnId = () => (typeof options.currentTurnId === 'function' ? options.currentTurnId() : options.currentTurnId);

  const tools: MnemoTools = {
    remember: {
      description: 'Remember a value under a key for later (it survives restarts); the same key again replaces it. Use recall to read it back.',
      inputSchema: rememberInput,
      execute: async ({ key, value, decay }) => memory.recall.store(key, value, { scope }, { decayMs: decay === undefined ? null : parseDecay(decay) }),
      toModelOutput: ({ output }) => text(`Remembered ${compactEntry(output)}`),
    },
    recall: {
      description: 'Recall values remembered earlier, by key or by meaning; best first.',
      inputSchema: recallInput,
      execute: async ({ query, k }) => ({ entries: await memory.recall.retrieve(query, k ?? 5, scope) }),
      toModelOutput: ({ output }) => text(compactEntries(output.entries, scores)),
    },
    query_memory: {
      description: 'Search what has happened so far (words and meaning); each line is one memory: its turn, its type, a short id and its text.',
      inputSchema: queryInput,
      execute: async ({ query, k }) => ({ hits: await memory.query(saveId, query, { k: k ?? 5, currentTurnId: currentTurnId(), excludeChunkType: 'lore' }) }),
      toModelOutput: ({ output }) => text(compactHits(output.hits, scores)),
    },
  };
  if (options.tags !== undefined) {
    const tags = [...options.tags];
    tools.lore_search = {
      description: `Look up world lore${options.character === undefined ? '' : ` ${options.character} may know`} (history, places, factions); each line is one entry: its title, scope, a short id and its content.`,
      inputSchema: loreInput,
      execute: async ({ query, k }) => ({ hits: await memory.lore.search(query, { tags, k: k ?? 5 }) }),
      toModelOutput: ({ output }) => text(compactLoreHits(output.hits, scores)),
    };
    if (options.character !== undefined) {
      const character = options.character;
      tools.build_context = {
        description: `Gather what ${character} knows that bears on a message (who ${character} is now, beliefs, facts, memories, lore), within a token budget.`,
        inputSchema: contextInput,
        execute: async ({ message }) => memory.context.build({ saveId, character, message, tags, currentTurnId: currentTurnId(), budget: options.budget }),
        toModelOutput: ({ output }) => text(output.prompt.trim() === '' ? `Nothing is known yet that bears on this.` : output.prompt),
      };
    }
  }
  return tools;
}
