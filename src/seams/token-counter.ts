// The TokenCounter seam: how many tokens a text costs in a prompt, for budgets such as the context builder's.

/**
 * Counts the tokens of a text. `count` is synchronous and deterministic (same text, same count).
 * Adapters: `gptTokenCounter()` (a real BPE tokenizer, o200k_base by default) and `estimateTokenCounter()`.
 */
export interface TokenCounter {
  /** What counts, e.g. `o200k_base` or `estimate:utf8/3`. */
  readonly name: string;
  count(text: string): number;
  /**
   * Optional: the same count made piece by piece, in text order (the pieces' counts add up to `count(text)`). A
   * caller counting long texts uses it to stop once a limit is passed and to give the event loop back between
   * pieces (`TokenTally`); without it, each text is counted in one call.
   */
  pieces?(text: string): Iterable<number>;
}
