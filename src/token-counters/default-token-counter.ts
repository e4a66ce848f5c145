// The counter used when none is given: real o200k_base counts when gpt-tokenizer is installed, else the estimate.
import { isMnemoError } from '../core/errors.js';
import type { TokenCounter } from '../seams/token-counter.js';
import { estimateTokenCounter } from './estimate-token-counter.js';
import { gptTokenCounter } from './gpt-token-counter.js';

/**
 * `gptTokenCounter('o200k_base')` when the optional peer `gpt-tokenizer` is installed, else
 * `estimateTokenCounter()`, which over-counts prose, so a budget it meets holds for the real tokenizer too.
 * The counter's `name` says which one counted.
 *
 * @example
 * ```ts
 * const counter = await defaultTokenCounter(); // name 'o200k_base', or 'estimate:character-classes'
 * ```
 */
export async function defaultTokenCounter(): Promise<TokenCounter> {
  try {
    return await gptTokenCounter();
  } catch (error) {
    if (isMnemoError(error, 'DEPENDENCY_MISSING')) return estimateTokenCounter();
    throw error;
  }
}
