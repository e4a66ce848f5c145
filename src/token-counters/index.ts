// Token counters: a real BPE tokenizer (gpt-tokenizer, an optional peer), a documented estimate, and the default between them.
export { gptTokenCounter, GPT_ENCODINGS } from './gpt-token-counter.js';
export type { GptEncoding } from './gpt-token-counter.js';
export { estimateTokenCounter } from './estimate-token-counter.js';
export { defaultTokenCounter } from './default-token-counter.js';
