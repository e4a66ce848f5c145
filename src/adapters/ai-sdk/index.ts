// mnemo-engine/ai-sdk: Mnemo's memory as AI SDK tools, and a system prompt from its context builder (`ai` is an optional peer).
export { mnemoTools } from './memory-tools.js';
export type { MnemoTools, MnemoToolsOptions } from './memory-tools.js';
export { mnemoSystemPrompt } from './system-prompt.js';
export type { SystemPromptRequest } from './system-prompt.js';
