// The seed's cross-encoder reranker (ms-marco-MiniLM-L-6-v2 via transformers.js): off by default, lazy, never a crash.
import type { Logger } from '../../core/logger.js';
import { isMnemoError } from '../../core/errors.js';
import { silentLogger } from '../../core/logger.js';
import type { Reranker } from '../../seams/reranker.js';
import { importTransformers, requireModel } from '../../transformers/index.js';
import type { ModelDtype, ModelLocationOptions, RuntimeImporter } from '../../transformers/index.js';
import { toUnitScores } from '../unit-scores.js';
import type { ScoreKind } from '../unit-scores.js';

/** The cross-encoder used when none is named. */
export const CROSS_ENCODER_MODEL = 'Xenova/ms-marco-MiniLM-L-6-v2';

/** Anything that scores (query, document) pairs: a loaded cross-encoder, or a stand-in injected by tests. */
export interface PairScorer {
  /** What predict returns (default `auto`: passed through when all in [0, 1], else squashed by a sigmoid). */
  readonly output?: ScoreKind;
  predict(pairs: readonly (readonly [string, string])[]): Promise<readonly number[]> | readonly number[];
}

/** Options of the cross-encoder reranker. */
export interface CrossEncoderRerankerOptions extends ModelLocationOptions {
  /** The model id (default Xenova/ms-marco-MiniLM-L-6-v2). */
  model?: string;
  dtype?: ModelDtype;
  /** Never reach the network (default true). */
  offline?: boolean;
  /** A ready scorer: bypasses loading entirely (tests, or your own model). */
  scorer?: PairScorer;
  /** Pairs per model call (default 16). */
  batchSize?: number;
  /** Longest pair in word pieces (default 512). */
  maxLength?: number;
  importer?: RuntimeImporter;
  /** Where the one "unavailable" line goes (default: nowhere; pass a logger to see it). */
  logger?: Logger;
}

async function loadScorer(options: CrossEncoderRerankerOptions, modelId: string): Promise<PairScorer> {
  const dtype = options.dtype ?? 'fp32';
  const offline = options.offline ?? true;
  const runtime = await importTransformers(options.importer, 'The cross-encoder reranker');
  const folder = offline ? requireModel(modelId, dtype, options) : null;
  if (folder !== null) runtime.env.localModelPath = folder.endsWith('/') ? folder : `${folder}/`;
  const loadOptions = { local_files_only: offline, dtype, ...(folder !== null ? { cache_dir: folder } : options.cacheDir !== undefined ? { cache_dir: options.cacheDir } : {}) };
  const tokenizer = await runtime.AutoTokenizer.from_pretrained(modelId, loadOptions);
  const model = await runtime.AutoModelForSequenceClassification.from_pretrained(modelId, loadOptions);
  const maxLength = options.maxLength ?? 512;
  return {
    output: 'logits',
    async predict(pairs) {
      const inputs = tokenizer(pairs.map(([query]) => query), { text_pair: pairs.map(([, document]) => document), padding: true, truncation: true, max_length: maxLength });
      const { logits } = await model(inputs);
      if (logits === undefined) throw new Error(`${modelId} returned no logits`);
      const labels = logits.dims[1] ?? 1;
      return pairs.map((_, row) => Number(logits.data[row * labels + (labels > 1 ? 1 : 0)]));
    },
  };
}

/**
 * A Reranker that reads each (query, document) pair jointly. The model loads on the first call; if the runtime
 * or the model is missing, or a call fails, it logs once and answers null (the fused order stands) from then on
 * — never an exception. Logits go through a sigmoid; scores already in [0, 1] pass through.
 *
 * @example
 * ```ts
 * const reranker = crossEncoderReranker({ modelDir: './models' });
 * const memory = await openMemory({ path: 'game.db', reranker });
 * // in tests: crossEncoderReranker({ scorer: { predict: (pairs) => pairs.map(([q, d]) => (d.includes(q) ? 5 : -5)) } })
 * ```
 */
export function crossEncoderReranker(options: CrossEncoderRerankerOptions = {}): Reranker {
  const modelId = options.model ?? CROSS_ENCODER_MODEL;
  const logger = options.logger ?? silentLogger;
  const batchSize = Math.max(1, options.batchSize ?? 16);
  let scorer: Promise<PairScorer | null> | null = options.scorer !== undefined ? Promise.resolve(options.scorer) : null;
  let disabled = false;
  const giveUp = (error: unknown): null => {
    if (!disabled) logger.warn(`reranker ${modelId} unavailable (${isMnemoError(error) ? `${error.code}: ` : ''}${(error as Error).message}); keeping the fused order`);
    disabled = true;
    return null;
  };
  return {
    provider: 'cross-encoder',
    modelId,
    async rerank(query, documents) {
      if (disabled) return null;
      if (documents.length === 0) return [];
      scorer ??= loadScorer(options, modelId).catch(giveUp);
      const ready = await scorer;
      if (ready === null) return null;
      try {
        const raw: number[] = [];
        for (let start = 0; start < documents.length; start += batchSize) {
          const pairs = documents.slice(start, start + batchSize).map((document) => [query, document] as const);
          const scores = await ready.predict(pairs);
          if (scores.length !== pairs.length) throw new Error(`expected ${pairs.length} scores, got ${scores.length}`);
          raw.push(...scores);
        }
        return toUnitScores(raw, ready.output ?? 'auto') ?? giveUp(new Error('the model returned a score that is not a number'));
      } catch (error) {
        return giveUp(error);
      }
    },
  };
}
