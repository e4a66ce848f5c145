// The HTTP rerank client (Cohere / Jina style).
export { httpReranker } from './http-reranker.js';
export type { HttpRerankerOptions } from './http-reranker.js';
