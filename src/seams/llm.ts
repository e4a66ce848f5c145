// The LLM seam: a chat model that answers with text or with JSON checked against a schema. Vendor settings stay in adapters.

/** Who speaks in a chat message. */
export type LlmRole = 'system' | 'user' | 'assistant';

/** One chat message. */
export interface LlmMessage {
  role: LlmRole;
  content: string;
}

/** A JSON Schema document (draft 2020-12 subset), as plain JSON. */
export type JsonSchema = { [key: string]: unknown };

/** Options every call accepts. */
export interface LlmCallOptions {
  /** Cancels the call: it then rejects with a `CANCELLED` MnemoError. */
  signal?: AbortSignal;
  /** Gives up after this many milliseconds with `PROVIDER_TIMEOUT` (the adapter's default when absent). */
  timeoutMs?: number;
  /** Sampling temperature (the adapter's default, usually 0, when absent). */
  temperature?: number;
  /** Most tokens the answer may hold. */
  maxTokens?: number;
}

/** A call that must answer with JSON. */
export interface LlmJsonRequest<T> extends LlmCallOptions {
  /** The shape the answer should have; servers that support structured output are held to it. */
  schema: JsonSchema;
  /** A short name for the schema (letters, digits, `_`), e.g. `facts`. */
  schemaName: string;
  /**
   * Checks and converts the parsed JSON value. Throw to reject it: the call then fails with `PROVIDER_MALFORMED`.
   */
  parse(value: unknown): T;
}

/**
 * A chat model. `complete` returns the answer's text; `json` returns the answer parsed as JSON and checked by
 * `request.parse`. Failures are MnemoErrors: `PROVIDER_FAILURE` (unreachable, refused, server error after
 * retries), `PROVIDER_TIMEOUT`, `PROVIDER_MALFORMED` (no usable JSON) and `CANCELLED` (the signal fired).
 * Adapters live in `src/llms/`.
 */
export interface LLM {
  /** Who runs the model, e.g. `openai-compatible`, `scripted`. */
  readonly provider: string;
  /** Which model, e.g. `gpt-4o-mini` or `qwen2.5:7b-instruct`. */
  readonly modelId: string;
  /** Sends the messages; resolves to the answer's text. */
  complete(messages: readonly LlmMessage[], options?: LlmCallOptions): Promise<string>;
  /** Sends the messages asking for JSON of `request.schema`; resolves to `request.parse(answer)`. */
  json<T>(messages: readonly LlmMessage[], request: LlmJsonRequest<T>): Promise<T>;
}
