// The static embedder: GloVe word vectors, SIF-weighted, read from the compact table shipped in the package.
export { loadStaticEmbedder, topDirectionsOfModelId } from './static-embedder.js';
export type { StaticEmbedder, StaticEmbedderOptions } from './static-embedder.js';
export { rankProbabilities, countProbabilities, countWords } from './word-probabilities.js';
export type { WordProbabilities } from './word-probabilities.js';
export { readWordCounts } from './read-word-counts.js';
export type { WordCountList } from './read-word-counts.js';
export { loadWordVectors, forgetLoadedWordVectors, DEFAULT_TOP_WORDS, VECTORS_PACKAGE } from './load-word-vectors.js';
export type { LoadedWordVectors, WordVectorOptions } from './load-word-vectors.js';
export { cacheDirCandidates } from './cache-dir.js';
export { WordVectorTable } from './word-vector-table.js';
export { stripDiacritics } from './word-lookup.js';
export { topDirections } from './all-but-the-top.js';
export type { TopDirections } from './all-but-the-top.js';
export { sifWeights, commonComponent, sentenceVector, SIF_SMOOTHING } from './smooth-inverse-frequency.js';
export { SHIPPED_WORD_VECTORS, shippedWordVectorsPath } from './shipped-word-vectors.js';
