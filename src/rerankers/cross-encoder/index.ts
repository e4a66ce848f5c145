// The cross-encoder reranker of the seed, through the optional transformers.js runtime.
export { crossEncoderReranker, CROSS_ENCODER_MODEL } from './cross-encoder-reranker.js';
export type { CrossEncoderRerankerOptions, PairScorer } from './cross-encoder-reranker.js';
