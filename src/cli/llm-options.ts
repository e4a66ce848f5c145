// The LLM flags of commands that call a model, each with an environment fallback read when the command runs.
import { Option } from 'commander';
import type { Command } from 'commander';
import { MnemoError } from '../core/errors.js';
import { OpenAiCompatibleLlm } from '../llms/openai-compatible/index.js';
import type { JsonMode } from '../llms/openai-compatible/index.js';
import { parseInteger } from './context.js';

/** The flags as commander parses them. */
export interface LlmFlags {
  llmBaseUrl?: string;
  llmModel?: string;
  llmApiKey?: string;
  llmTimeout?: number;
  llmJsonMode?: JsonMode;
}

/** Adds --llm-base-url, --llm-model, --llm-api-key, --llm-timeout and --llm-json-mode (MNEMO_LLM_* in the environment). */
export function addLlmOptions(command: Command): Command {
  return command
    .addOption(new Option('--llm-base-url <url>', 'OpenAI-compatible API root, e.g. http://127.0.0.1:11434/v1 (Ollama)').env('MNEMO_LLM_BASE_URL'))
    .addOption(new Option('--llm-model <name>', 'model name, e.g. qwen2.5:7b-instruct or gpt-4o-mini').env('MNEMO_LLM_MODEL'))
    .addOption(new Option('--llm-api-key <key>', 'API key, if the server needs one').env('MNEMO_LLM_API_KEY'))
    .addOption(new Option('--llm-timeout <ms>', 'deadline of one model call').env('MNEMO_LLM_TIMEOUT_MS').argParser(parseInteger('llmTimeout')))
    .addOption(new Option('--llm-json-mode <mode>', 'how JSON is asked for').choices(['auto', 'json_schema', 'json_object', 'prompt']).env('MNEMO_LLM_JSON_MODE'));
}

/** The model the flags name; fails with a clear message when the URL or the model is missing. */
export function llmFromFlags(flags: LlmFlags): OpenAiCompatibleLlm {
  if (flags.llmBaseUrl === undefined || flags.llmModel === undefined) {
    throw new MnemoError('INVALID_INPUT', `living run: expected a model to call, got ${flags.llmBaseUrl === undefined ? 'no --llm-base-url' : 'no --llm-model'}. Pass --llm-base-url http://127.0.0.1:11434/v1 --llm-model qwen2.5:7b-instruct, or set MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL.`, {
      details: { field: flags.llmBaseUrl === undefined ? 'llmBaseUrl' : 'llmModel' },
    });
  }
  return new OpenAiCompatibleLlm({ baseUrl: flags.llmBaseUrl, model: flags.llmModel, apiKey: flags.llmApiKey, timeoutMs: flags.llmTimeout, jsonMode: flags.llmJsonMode });
}
