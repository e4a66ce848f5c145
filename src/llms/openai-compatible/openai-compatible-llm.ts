// The OpenAI-compatible chat completions adapter (OpenAI, Ollama, llama.cpp server, vLLM, LM Studio), over fetch.
import { MnemoError } from '../../core/errors.js';
import type { LLM, LlmCallOptions, LlmJsonRequest, LlmMessage } from '../../seams/llm.js';
import { callScope, sleep } from '../call-scope.js';
import { readJsonAnswer, withJsonInstruction } from '../json-answer.js';

/** How JSON answers are asked for. */
export type JsonMode = 'auto' | 'json_schema' | 'json_object' | 'prompt';

/** Options of the OpenAI-compatible adapter. */
export interface OpenAiCompatibleOptions {
  /** The API root, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** The model name the server knows, e.g. `gpt-4o-mini`, `qwen2.5:7b-instruct`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given (local servers usually need none). */
  apiKey?: string | null;
  /** The provider name this adapter reports (default `openai-compatible`). */
  provider?: string;
  /** Deadline of one attempt, in milliseconds (default 60,000). */
  timeoutMs?: number;
  /** Further attempts after a 429, a 5xx or a connection failure (default 2). */
  maxRetries?: number;
  /** First backoff delay in milliseconds, doubled at each retry (default 500). */
  retryBaseMs?: number;
  /** Longest backoff delay, also the cap on a server's Retry-After (default 8,000). */
  retryMaxMs?: number;
  /**
   * `auto` (default) asks for `response_format: json_schema` and, if the server rejects it, falls back to `prompt`
   * for the rest of this adapter's life; `json_object` asks for any JSON object; `prompt` only instructs the model.
   * Every mode reads the answer tolerantly (fences and prose around the JSON are forgiven).
   */
  jsonMode?: JsonMode;
  /** Default sampling temperature (default 0: extraction and consolidation want the likeliest answer). */
  temperature?: number;
  /** Extra HTTP headers. */
  headers?: Record<string, string>;
  /** Extra body fields this server understands (e.g. `{ keep_alive: '10m' }` for Ollama); never override the core fields. */
  providerOptions?: Record<string, unknown>;
}

const DEFAULTS = { timeoutMs: 60_000, maxRetries: 2, retryBaseMs: 500, retryMaxMs: 8_000, temperature: 0 };

/** Thrown inside the adapter when the server refuses `response_format`, so `json` can fall back to the prompt. */
class StructuredOutputRefused extends Error {}

interface ChatCompletion {
  choices?: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }[];
}

function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part: unknown) => (part !== null && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('');
  }
  return null;
}

function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat;
}

/**
 * A chat model behind the OpenAI chat completions protocol. Retries 429 and 5xx answers and connection failures
 * with exponential backoff (honouring Retry-After), gives each attempt a deadline, and stops at once when the
 * caller's signal fires.
 *
 * @example
 * ```ts
 * const llm = new OpenAiCompatibleLlm({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5:7b-instruct' });
 * const text = await llm.complete([{ role: 'user', content: 'Say hello.' }]);
 * ```
 */
export class OpenAiCompatibleLlm implements LLM {
  readonly provider: string;
  readonly modelId: string;
  private readonly url: string;
  private readonly options: OpenAiCompatibleOptions & typeof DEFAULTS;
  private jsonMode: JsonMode;

  constructor(options: OpenAiCompatibleOptions) {
    if (typeof options?.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
      throw new MnemoError('INVALID_INPUT', `baseUrl: expected an http(s) URL such as "http://127.0.0.1:11434/v1", got ${JSON.stringify(options?.baseUrl)}. Pass the API root of your server.`, { details: { field: 'baseUrl' } });
    }
    if (typeof options.model !== 'string' || options.model.trim() === '') {
      throw new MnemoError('INVALID_INPUT', `model: expected the model name the server knows, got ${JSON.stringify(options.model)}. Pass e.g. "gpt-4o-mini" or "qwen2.5:7b-instruct".`, { details: { field: 'model' } });
    }
    this.options = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) } as OpenAiCompatibleOptions & typeof DEFAULTS;
    this.provider = options.provider ?? 'openai-compatible';
    this.modelId = options.model;
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.jsonMode = options.jsonMode ?? 'auto';
  }

  private get name(): string {
    return `${this.provider}/${this.modelId}`;
  }

  async complete(messages: readonly LlmMessage[], options: LlmCallOptions = {}): Promise<string> {
    return this.send(messages, options, null);
  }

  async json<T>(messages: readonly LlmMessage[], request: LlmJsonRequest<T>): Promise<T> {
    const prompted = withJsonInstruction(messages, request.schema);
    const format = this.responseFormat(request);
    let text: string;
    try {
      text = await this.send(prompted, request, format);
    } catch (error) {
      if (!(error instanceof StructuredOutputRefused)) throw error;
      this.jsonMode = 'prompt';
      text = await this.send(prompted, request, null);
    }
    return readJsonAnswer(text, request, this.name);
  }

  private responseFormat(request: LlmJsonRequest<unknown>): Record<string, unknown> | null {
    switch (this.jsonMode) {
      case 'auto':
      case 'json_schema':
        return { type: 'json_schema', json_schema: { name: request.schemaName, schema: request.schema, strict: false } };
      case 'json_object':
        return { type: 'json_object' };
      case 'prompt':
        return null;
    }
  }

  private body(messages: readonly LlmMessage[], options: LlmCallOptions, format: Record<string, unknown> | null): string {
    return JSON.stringify({
      ...this.options.providerOptions,
      model: this.modelId,
      messages: messages.map(({ role, content }) => ({ role, content })),
      temperature: options.temperature ?? this.options.temperature,
      ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
      ...(format === null ? {} : { response_format: format }),
      stream: false,
    });
  }

  private headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      ...this.options.headers,
    };
  }

  private backoff(attempt: number, retryAfter: number | null): number {
    const exponential = this.options.retryBaseMs * 2 ** attempt;
    return Math.min(this.options.retryMaxMs, retryAfter ?? exponential);
  }

  /** One request with retries; resolves to the answer's text. */
  private async send(messages: readonly LlmMessage[], options: LlmCallOptions, format: Record<string, unknown> | null): Promise<string> {
    const body = this.body(messages, options, format);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const scope = callScope({ signal: options.signal, timeoutMs }, `${this.name} at ${this.url}`);
      let status: number;
      let text: string;
      let retryAfter: number | null;
      try {
        const response = await fetch(this.url, { method: 'POST', headers: this.headers(), body, signal: scope.signal });
        status = response.status;
        retryAfter = retryAfterMs(response.headers.get('retry-after'));
        text = await response.text();
      } catch (error) {
        const aborted = scope.abortError();
        if (aborted !== null) throw aborted;
        if (attempt < this.options.maxRetries) {
          await sleep(this.backoff(attempt, null), options.signal, `A call to ${this.name}`);
          continue;
        }
        throw new MnemoError('PROVIDER_FAILURE', `Could not reach ${this.name} at ${this.url} after ${attempt + 1} attempts: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}. Check that the server is running and the base URL is right.`, {
          cause: error,
          details: { url: this.url, attempts: attempt + 1 },
        });
      } finally {
        scope.dispose();
      }
      if (status >= 200 && status < 300) return this.answerText(text);
      if ((status === 429 || status >= 500) && attempt < this.options.maxRetries) {
        await sleep(this.backoff(attempt, retryAfter), options.signal, `A call to ${this.name}`);
        continue;
      }
      if ((status === 400 || status === 422) && format !== null && this.jsonMode === 'auto' && /response_format|json_schema|schema|structured/i.test(text)) {
        throw new StructuredOutputRefused();
      }
      throw this.httpError(status, text, attempt + 1);
    }
  }

  private answerText(text: string): string {
    let parsed: ChatCompletion;
    try {
      parsed = JSON.parse(text) as ChatCompletion;
    } catch (error) {
      throw new MnemoError('PROVIDER_MALFORMED', `${this.name} answered with something that is not a chat completion (not JSON): ${JSON.stringify(excerpt(text))}. Check that the base URL points at an OpenAI-compatible API (it usually ends in /v1).`, { cause: error });
    }
    const choice = parsed?.choices?.[0];
    const content = textOf(choice?.message?.content);
    if (content === null) {
      const refusal = typeof choice?.message?.refusal === 'string' ? ` The model refused: ${choice.message.refusal}` : '';
      throw new MnemoError('PROVIDER_MALFORMED', `${this.name} answered a chat completion without message content.${refusal} Expected choices[0].message.content to be a string.`, {
        details: { finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null },
      });
    }
    return content;
  }

  private httpError(status: number, text: string, attempts: number): MnemoError {
    const hint = status === 401 || status === 403
      ? 'Check the API key (MNEMO_LLM_API_KEY or --llm-api-key).'
      : status === 404
        ? 'Check the base URL (it usually ends in /v1) and that the server has this model.'
        : status === 429 || status >= 500
          ? 'The server is overloaded or failing; try again later or raise maxRetries.'
          : 'Check the request options and the model name.';
    return new MnemoError('PROVIDER_FAILURE', `${this.name} answered HTTP ${status} after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${JSON.stringify(excerpt(text))}. ${hint}`, {
      details: { status, attempts, url: this.url },
    });
  }
}
