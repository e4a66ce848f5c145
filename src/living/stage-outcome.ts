// The result of one LLM stage: its value, or the failure that made the pass yield nothing.
import { MnemoError } from '../core/errors.js';

/** A stage's value, or why it produced nothing. Stages never throw. */
export type StageOutcome<T> = { ok: true; value: T } | { ok: false; error: MnemoError };

/**
 * Runs `work`, turning any throw into a failed outcome (a non-Mnemo error becomes PROVIDER_FAILURE).
 *
 * @example
 * ```ts
 * const outcome = await attempt(() => llm.json(messages, request));
 * if (!outcome.ok) console.log(outcome.error.code);
 * ```
 */
export async function attempt<T>(work: () => Promise<T>): Promise<StageOutcome<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return {
      ok: false,
      error: error instanceof MnemoError ? error : new MnemoError('PROVIDER_FAILURE', `The model call failed: ${(error as Error)?.message ?? String(error)}`, { cause: error }),
    };
  }
}
