// The OpenAI-compatible LLM adapter: OpenAI, Ollama, llama.cpp server, vLLM, LM Studio.
import { OpenAiCompatibleLlm } from './openai-compatible-llm.js';
import type { OpenAiCompatibleOptions } from './openai-compatible-llm.js';

export { OpenAiCompatibleLlm } from './openai-compatible-llm.js';
export type { OpenAiCompatibleOptions, JsonMode } from './openai-compatible-llm.js';

/**
 * A chat model behind an OpenAI-compatible API.
 *
 * @example
 * ```ts
 * const llm = openAiCompatibleLlm({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5:7b-instruct' });
 * const memory = await openMemory({ path: 'game.db', llm });
 * ```
 */
export function openAiCompatibleLlm(options: OpenAiCompatibleOptions): OpenAiCompatibleLlm {
  return new OpenAiCompatibleLlm(options);
}
