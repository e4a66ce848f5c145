// The life of one LLM call: a deadline and the caller's signal merged into one AbortSignal, and the errors they mean.
import { MnemoError } from '../core/errors.js';

/** One call's cancellation: `signal` fires on the caller's abort or on the deadline, whichever comes first. */
export interface CallScope {
  readonly signal: AbortSignal;
  /** The error to throw for an abort: CANCELLED (the caller) or PROVIDER_TIMEOUT (the deadline); null otherwise. */
  abortError(): MnemoError | null;
  /** Clears the timer and the listener. */
  dispose(): void;
}

/** The error a caller's abort becomes. */
export function cancelledError(what: string): MnemoError {
  return new MnemoError('CANCELLED', `${what} was cancelled by its caller.`);
}

/**
 * Starts a call scope of `timeoutMs` (no deadline when not finite) tied to the caller's `signal`.
 *
 * @example
 * ```ts
 * const scope = callScope({ signal, timeoutMs: 30_000 }, 'openai-compatible/gpt-4o-mini');
 * try { await fetch(url, { signal: scope.signal }); } catch (error) { throw scope.abortError() ?? error; } finally { scope.dispose(); }
 * ```
 */
export function callScope(options: { signal?: AbortSignal; timeoutMs: number }, what: string): CallScope {
  const controller = new AbortController();
  let reason: 'cancelled' | 'timeout' | null = null;
  const onAbort = () => {
    reason ??= 'cancelled';
    controller.abort();
  };
  const caller = options.signal;
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  const timer = Number.isFinite(options.timeoutMs)
    ? setTimeout(() => {
      reason ??= 'timeout';
      controller.abort();
    }, Math.max(0, options.timeoutMs))
    : null;
  return {
    signal: controller.signal,
    abortError() {
      if (reason === 'cancelled') return cancelledError(what);
      if (reason === 'timeout') {
        return new MnemoError('PROVIDER_TIMEOUT', `${what} did not answer within ${options.timeoutMs} ms. Raise timeoutMs, use a faster model, or check the server's load.`, {
          details: { timeoutMs: options.timeoutMs },
        });
      }
      return null;
    },
    dispose() {
      if (timer !== null) clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Waits `milliseconds`, or rejects with CANCELLED as soon as `signal` fires.
 *
 * @example
 * ```ts
 * await sleep(500, signal);
 * ```
 */
export function sleep(milliseconds: number, signal?: AbortSignal, what = 'The wait'): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelledError(what));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError(what));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
