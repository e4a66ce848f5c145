// A system prompt for an AI SDK call, built by Mnemo's context builder: your instructions, then what the character knows.
import type { ContextRequest } from '../../context/context-types.js';
import type { Mnemo } from '../../open-memory.js';

/** A context request, plus the instructions that open the prompt. */
export interface SystemPromptRequest extends ContextRequest {
  /** Text placed before the built context (the persona, the rules of the game); `{placeholders}` are not read in it. */
  instructions?: string;
}

/**
 * Builds a system prompt for `generateText` / `streamText`: `instructions`, a blank line, then the context Mnemo's
 * builder renders for the character (mental model, beliefs, facts, lore it may know, memories) within the budget.
 * Sections with nothing in them are left out; the whole ContextResult is `memory.context.build(request)`.
 *
 * @example
 * ```ts
 * const system = await mnemoSystemPrompt(memory, {
 *   instructions: 'You are Marta, the bartender of the Drowned Lantern. Answer in character, in two sentences.',
 *   saveId: 'run-1', character: 'Marta', message: playerMessage, tags: ['brackwater', 'brackwater_docks'], currentTurnId: 12,
 * });
 * const { text } = await generateText({ model, system, prompt: playerMessage });
 * ```
 */
export async function mnemoSystemPrompt(memory: Mnemo, request: SystemPromptRequest): Promise<string> {
  const { instructions, ...contextRequest } = request;
  const { prompt } = await memory.context.build(contextRequest);
  return [instructions?.trim() ?? '', prompt.trim()].filter((part) => part !== '').join('\n\n');
}
