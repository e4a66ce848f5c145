// What every LLM adapter does around a JSON call: the instruction naming the schema, and checking the answer.
import { MnemoError } from '../core/errors.js';
import type { LlmJsonRequest, LlmMessage } from '../seams/llm.js';
import { extractJson } from './extract-json.js';

/**
 * The messages with a closing instruction to answer with JSON of the schema, for servers without structured output
 * (and as a reminder for those with it).
 *
 * @example
 * ```ts
 * withJsonInstruction(messages, { type: 'object', properties: { summary: { type: 'string' } } });
 * ```
 */
export function withJsonInstruction(messages: readonly LlmMessage[], schema: object): LlmMessage[] {
  const instruction = `Answer with one JSON value and nothing else (no prose, no code fence). It must match this JSON Schema:\n${JSON.stringify(schema)}`;
  const copy = messages.map((message) => ({ ...message }));
  const system = copy.find((message) => message.role === 'system');
  if (system !== undefined) system.content = `${system.content}\n\n${instruction}`;
  else copy.unshift({ role: 'system', content: instruction });
  return copy;
}

/**
 * Reads a model's answer as JSON (tolerantly) and runs the request's `parse`. Throws `PROVIDER_MALFORMED` when the
 * answer holds no JSON or `parse` rejects it.
 *
 * @example
 * ```ts
 * const value = readJsonAnswer('```json\n{"summary":"x"}\n```', request, 'scripted/test');
 * ```
 */
export function readJsonAnswer<T>(text: string, request: Pick<LlmJsonRequest<T>, 'parse' | 'schemaName'>, what: string): T {
  const value = extractJson(text);
  try {
    return request.parse(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
    throw new MnemoError('PROVIDER_MALFORMED', `${what} answered JSON that does not fit the ${request.schemaName} schema: ${reason.slice(0, 300)}. Use a model that follows instructions, or one whose server supports structured output.`, {
      cause: error,
      details: { schema: request.schemaName },
    });
  }
}
