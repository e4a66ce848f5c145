// Picks an embedder by name; `auto` takes a local MiniLM model if present, else the static vectors, else none.
import { isMnemoError, MnemoError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { silentLogger } from '../core/logger.js';
import { hashingEmbedder } from './hashing/index.js';
import { loadStaticEmbedder, topDirectionsOfModelId } from './static/index.js';
import { loadTransformersEmbedder, MINILM_MODEL } from './transformers/index.js';
import type { Embedder } from '../seams/embedder.js';
import type { EmbedderIdentity } from '../seams/embedding-store.js';
import { findModel, modelSearchPath } from '../transformers/index.js';
import type { ModelDtype, RuntimeImporter } from '../transformers/index.js';
import { describeIdentity } from './embedder-identity.js';

/** The embedders that can be named (the CLI's --embedder adds `openai`, configured from the environment). */
export const EMBEDDER_NAMES = ['auto', 'static', 'minilm', 'hashing', 'none'] as const;
export type EmbedderName = (typeof EMBEDDER_NAMES)[number];

/** Where `auto`, `static` and `minilm` look for their files. */
export interface ResolveEmbedderOptions {
  /** Folder of local transformers.js models (default MNEMO_MODEL_DIR, else ~/.cache/mnemo/models). */
  modelDir?: string;
  /** Folder for the compact word vectors (default MNEMO_CACHE_DIR, else node_modules/.cache/mnemo, else ~/.cache/mnemo). */
  cacheDir?: string;
  /** The identity the store already records: `auto` prefers it when it can build it, so it never causes a mismatch. */
  recorded?: EmbedderIdentity | null;
  /** Where the one line saying which embedder was chosen goes. */
  logger?: Logger;
  /** Replaces the transformers.js import (tests). */
  importer?: RuntimeImporter;
}

function localMiniLm(options: ResolveEmbedderOptions): ModelDtype | null {
  for (const dtype of ['fp32', 'q8'] as const) if (findModel(MINILM_MODEL, dtype, options) !== null) return dtype;
  return null;
}

const minilm = (options: ResolveEmbedderOptions, dtype: ModelDtype) =>
  loadTransformersEmbedder({ model: MINILM_MODEL, dtype, modelDir: options.modelDir, importer: options.importer });

/** Rebuilds the hashing embedder a `hashing-<n>[-trigrams]` model id stands for. */
function hashingFor(modelId: string): Embedder | null {
  const match = /^hashing-(\d+)(-trigrams)?$/.exec(modelId);
  return match === null ? null : hashingEmbedder({ dimensions: Number(match[1]), trigrams: match[2] !== undefined });
}

async function matchRecorded(recorded: EmbedderIdentity, options: ResolveEmbedderOptions): Promise<Embedder | null> {
  const same = (embedder: Embedder | null) => (embedder !== null && embedder.modelId === recorded.modelId && embedder.dimensions === recorded.dimensions ? embedder : null);
  try {
    if (recorded.provider === 'static') return same(await loadStaticEmbedder({ cacheDir: options.cacheDir, topDirections: topDirectionsOfModelId(recorded.modelId) }));
    if (recorded.provider === 'hashing') return same(hashingFor(recorded.modelId));
    if (recorded.provider === 'transformers' && recorded.modelId.startsWith(MINILM_MODEL)) {
      const dtype = localMiniLm(options);
      return dtype === null ? null : same(await minilm(options, dtype));
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * Builds the embedder a name stands for. `auto`: the embedder the store already records when it can be built
 * here; else all-MiniLM-L6-v2 when its files are in the model folder and transformers.js loads; else the
 * static GloVe vectors; else none (lexical search). It logs one line saying which, and why.
 *
 * @example
 * ```ts
 * const embedder = await resolveEmbedder('auto', { logger: consoleLogger }); // [mnemo] embedder: static/... (auto: ...)
 * ```
 */
export async function resolveEmbedder(name: EmbedderName, options: ResolveEmbedderOptions = {}): Promise<Embedder | null> {
  const logger = options.logger ?? silentLogger;
  switch (name) {
    case 'none':
      return null;
    case 'hashing':
      return hashingEmbedder({ dimensions: 64 });
    case 'static':
      return loadStaticEmbedder({ cacheDir: options.cacheDir, logger });
    case 'minilm':
      return minilm(options, localMiniLm(options) ?? 'fp32');
    case 'auto':
      return auto(options, logger);
    default:
      throw new MnemoError('INVALID_INPUT', `embedder: expected one of ${EMBEDDER_NAMES.join(', ')} or an Embedder, got ${JSON.stringify(name)}.`, { details: { field: 'embedder' } });
  }
}

async function auto(options: ResolveEmbedderOptions, logger: Logger): Promise<Embedder | null> {
  const chose = (embedder: Embedder | null, why: string) => {
    logger.info(`embedder: ${embedder === null ? 'none, words only' : describeIdentity(embedder)} (auto: ${why})`);
    return embedder;
  };
  if (options.recorded != null) {
    const matching = await matchRecorded(options.recorded, options);
    if (matching !== null) return chose(matching, 'the embedder that made this store\'s vectors');
  }
  const reasons: string[] = [];
  const dtype = localMiniLm(options);
  if (dtype !== null) {
    try {
      return chose(await minilm(options, dtype), `local model ${MINILM_MODEL} found`);
    } catch (error) {
      reasons.push(`MiniLM present but unusable: ${isMnemoError(error) ? error.code : (error as Error).message}`);
    }
  } else {
    reasons.push(`no ${MINILM_MODEL} in ${modelSearchPath(options).join(' or ')}`);
  }
  try {
    return chose(await loadStaticEmbedder({ cacheDir: options.cacheDir, logger }), reasons.join('; '));
  } catch (error) {
    reasons.push(`static vectors unavailable: ${(error as Error).message}`);
  }
  return chose(null, reasons.join('; '));
}
