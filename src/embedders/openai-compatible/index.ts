// The OpenAI-compatible embeddings client (OpenAI, Ollama, llama.cpp, vLLM, LM Studio).
export { openAiCompatibleEmbedder, discoverDimensions } from './openai-compatible-embedder.js';
export type { OpenAiCompatibleEmbedderOptions } from './openai-compatible-embedder.js';
