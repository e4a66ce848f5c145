// POSTs JSON to a provider with a timeout per attempt and retries with exponential backoff on 429 and 5xx.
import { MnemoError } from '../core/errors.js';

/** How an HTTP provider is reached. Shared by every HTTP adapter (embeddings, rerank). */
export interface HttpProviderOptions {
  /** The API root including its version, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never logged. */
  apiKey?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Per attempt, in milliseconds (default 30,000). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx, timeouts and connection errors (default 3). */
  maxRetries?: number;
  /** First backoff delay; it doubles each retry (default 500 ms). */
  retryBaseMs?: number;
  /** Longest wait between attempts, Retry-After included (default 30,000 ms). */
  retryMaxMs?: number;
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Replaces the wait between attempts (tests). */
  sleep?: (milliseconds: number) => Promise<void>;
}

const defaultSleep = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/** Joins the base URL and an endpoint path with exactly one slash. */
export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** Reads Retry-After (seconds or an HTTP date) in milliseconds, or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

class RetryableFailure extends Error {
  constructor(message: string, readonly status: number | null, readonly waitMs: number | null, readonly timedOut = false) {
    super(message);
  }
}

async function attempt(url: string, body: string, options: HttpProviderOptions, timeoutMs: number): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers },
      body,
      signal: controller.signal,
    });
    const text = await response.text();
    if (!response.ok) {
      const excerpt = text.length > 300 ? `${text.slice(0, 300)}...` : text;
      const message = `answered ${response.status} ${response.statusText}${excerpt === '' ? '' : `: ${excerpt}`}`;
      if (retryable(response.status)) throw new RetryableFailure(message, response.status, retryAfterMs(response.headers.get('retry-after')));
      throw new MnemoError('PROVIDER_FAILURE', `POST ${url} ${message}. ${response.status === 401 || response.status === 403 ? 'Check the API key.' : 'Check the model name and the request options.'}`, { details: { url, status: response.status } });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new MnemoError('PROVIDER_FAILURE', `POST ${url}: expected a JSON answer, got ${JSON.stringify(text.slice(0, 120))}. Check that baseUrl points at the API (it usually ends in /v1).`, { details: { url, status: response.status } });
    }
  } catch (error) {
    if (error instanceof MnemoError || error instanceof RetryableFailure) throw error;
    if (controller.signal.aborted) throw new RetryableFailure(`gave no answer within ${timeoutMs} ms`, null, null, true);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new RetryableFailure(`could not be reached (${cause?.code ?? cause?.message ?? (error as Error).message})`, null, null);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * POSTs `body` as JSON and returns the parsed answer. Each attempt has its own timeout (AbortController).
 * 408, 429, 5xx, timeouts and connection errors are retried up to `maxRetries` times, waiting
 * retryBaseMs × 2^n or the server's Retry-After, whichever is longer (capped by retryMaxMs). Failing for good:
 * PROVIDER_TIMEOUT when the last attempt timed out, else PROVIDER_FAILURE; both name the URL and the attempts.
 *
 * @example
 * ```ts
 * const answer = await postJson({ baseUrl: 'http://127.0.0.1:11434/v1' }, 'embeddings', { model: 'nomic-embed-text', input: ['hi'] });
 * ```
 */
export async function postJson(options: HttpProviderOptions, path: string, body: unknown): Promise<unknown> {
  const url = endpointUrl(options.baseUrl, path);
  const payload = JSON.stringify(body);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRetries = Math.max(0, options.maxRetries ?? 3);
  const base = options.retryBaseMs ?? 500;
  const cap = options.retryMaxMs ?? 30_000;
  const sleep = options.sleep ?? defaultSleep;
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(url, payload, options, timeoutMs);
    } catch (error) {
      if (!(error instanceof RetryableFailure)) throw error;
      if (attemptNumber > maxRetries) {
        const details = { url, attempts: attemptNumber, status: error.status };
        const message = `POST ${url} ${error.message} (${attemptNumber} attempt${attemptNumber === 1 ? '' : 's'}).`;
        if (error.timedOut) throw new MnemoError('PROVIDER_TIMEOUT', `${message} Raise timeoutMs, or check that the server is up and not overloaded.`, { details });
        throw new MnemoError('PROVIDER_FAILURE', `${message} Check that the server at ${options.baseUrl} is running and healthy.`, { details });
      }
      await sleep(Math.min(cap, Math.max(base * 2 ** (attemptNumber - 1), error.waitMs ?? 0)));
    }
  }
}
