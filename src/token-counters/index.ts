// Token counters: a real BPE tokenizer (gpt-tokenizer) and a documented estimate.
export { gptTokenCounter, GPT_ENCODINGS } from './gpt-token-counter.js';
export type { GptEncoding } from './gpt-token-counter.js';
export { estimateTokenCounter } from './estimate-token-counter.js';
