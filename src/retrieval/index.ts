// `mnemo-engine/retrieval`: the search building blocks on their own (tokenizer, BM25, fusion, caps, focus boost), for experiments and custom rankers.
export { tokenize, uniqueTokens } from './tokenize.js';
export { Bm25Index, buildBm25, rankWithBm25, rankByBm25, BM25_DEFAULTS } from './bm25.js';
export { reciprocalRankFusion, RRF_K } from './reciprocal-rank-fusion.js';
export { capPerSource } from './cap-per-source.js';
export { focusMatches, FOCUS_BOOST } from './focus-boost.js';
export { toUnitScores, sigmoid } from '../rerankers/unit-scores.js';
export type { ScoreKind } from '../rerankers/unit-scores.js';
export { QUESTION_SCAFFOLDING } from './question-scaffolding.js';
