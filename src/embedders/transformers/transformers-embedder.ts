// The MiniLM embedder: a sentence-transformers model (ONNX) run locally by transformers.js, loaded lazily.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MnemoError } from '../../core/errors.js';
import type { Embedder } from '../../seams/embedder.js';
import { importTransformers, requireModel } from '../../transformers/index.js';
import type { ModelDtype, ModelLocationOptions, RuntimeImporter } from '../../transformers/index.js';
import { l2Normalize, meanPool } from './pooling.js';

/** The model used when none is named: all-MiniLM-L6-v2 exported to ONNX (384 dimensions). */
export const MINILM_MODEL = 'Xenova/all-MiniLM-L6-v2';

/** Options of the transformers.js embedder. Everything here is specific to this adapter. */
export interface TransformersEmbedderOptions extends ModelLocationOptions {
  /** A Hugging Face model id laid out as transformers.js expects (default Xenova/all-MiniLM-L6-v2). */
  model?: string;
  /** Weight precision: picks onnx/model.onnx (fp32, default), model_quantized.onnx (q8), ... */
  dtype?: ModelDtype;
  /** Never reach the network (default true). With false, transformers.js may download into cacheDir. */
  offline?: boolean;
  /** Texts per model call (default 32). */
  maxBatchSize?: number;
  /** Longest input in word pieces; longer texts are truncated (default 256, what MiniLM was trained on). */
  maxLength?: number;
  /** Replaces `import('@huggingface/transformers')` (tests). */
  importer?: RuntimeImporter;
}

/**
 * Loads a sentence-transformers model with transformers.js and returns an embedder: tokenize, run the model,
 * mean-pool the last hidden state over real tokens, L2-normalise. Offline by default: the model's files must
 * be in `modelDir` (or transformers.js's cache); otherwise MODEL_MISSING says where they were looked for. Without
 * the optional package, DEPENDENCY_MISSING says how to install it.
 *
 * @example
 * ```ts
 * const embedder = await loadTransformersEmbedder({ modelDir: './models' }); // ./models/Xenova/all-MiniLM-L6-v2/...
 * const [vector] = await embedder.embed(['The keeper lit the lamp.']);     // 384 numbers, unit length
 * ```
 */
export async function loadTransformersEmbedder(options: TransformersEmbedderOptions = {}): Promise<Embedder> {
  const modelId = options.model ?? MINILM_MODEL;
  const dtype = options.dtype ?? 'fp32';
  const offline = options.offline ?? true;
  const runtime = await importTransformers(options.importer, 'The transformers embedder');
  const folder = offline ? requireModel(modelId, dtype, options) : null;
  if (folder !== null) runtime.env.localModelPath = folder.endsWith('/') ? folder : `${folder}/`;
  const loadOptions = { local_files_only: offline, dtype, ...(folder !== null ? { cache_dir: folder } : options.cacheDir !== undefined ? { cache_dir: options.cacheDir } : {}) };
  let tokenizer: Awaited<ReturnType<typeof runtime.AutoTokenizer.from_pretrained>>;
  let model: Awaited<ReturnType<typeof runtime.AutoModel.from_pretrained>>;
  try {
    tokenizer = await runtime.AutoTokenizer.from_pretrained(modelId, loadOptions);
    model = await runtime.AutoModel.from_pretrained(modelId, loadOptions);
  } catch (error) {
    throw new MnemoError('MODEL_MISSING', `Model ${modelId} could not be loaded: ${(error as Error).message}. Check that its files are complete (config.json, tokenizer.json, onnx/model*.onnx).`, { cause: error, details: { model: modelId } });
  }
  const dimensions = folder !== null ? hiddenSize(join(folder, modelId, 'config.json')) : null;
  const maxLength = options.maxLength ?? 256;

  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const inputs = tokenizer([...texts], { padding: true, truncation: true, max_length: maxLength });
    const output = await model(inputs);
    const hidden = output.last_hidden_state ?? output.token_embeddings;
    if (hidden === undefined) throw new MnemoError('PROVIDER_FAILURE', `Model ${modelId} returned no last_hidden_state; expected a feature-extraction (sentence-transformers) model.`);
    return meanPool(hidden, inputs.attention_mask).map(l2Normalize);
  };
  const probe = dimensions ?? (await embedBatch(['dimension probe']))[0]?.length ?? 0;
  return {
    provider: 'transformers',
    modelId: dtype === 'fp32' ? modelId : `${modelId}:${dtype}`,
    dimensions: probe,
    maxBatchSize: options.maxBatchSize ?? 32,
    embed: embedBatch,
  };
}

function hiddenSize(configPath: string): number | null {
  try {
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as { hidden_size?: unknown; dim?: unknown };
    const size = config.hidden_size ?? config.dim;
    return typeof size === 'number' && Number.isInteger(size) && size > 0 ? size : null;
  } catch {
    return null;
  }
}
