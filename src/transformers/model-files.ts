// Finding a transformers.js model on disk before loading it, so a missing model is one clear MODEL_MISSING error.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { MnemoError } from '../core/errors.js';

/** Weight precisions and the file suffix transformers.js gives each (onnx/model<suffix>.onnx). */
export const DTYPE_SUFFIXES = { fp32: '', fp16: '_fp16', q8: '_quantized', int8: '_int8', uint8: '_uint8', q4: '_q4' } as const;
export type ModelDtype = keyof typeof DTYPE_SUFFIXES;

/** Where a model may be. */
export interface ModelLocationOptions {
  /** A folder holding `<model id>/config.json`, ... (transformers.js's localModelPath). Default: MNEMO_MODEL_DIR, else ~/.cache/mnemo/models. */
  modelDir?: string;
  /** transformers.js's download cache (default: its own, inside its package folder). */
  cacheDir?: string;
}

/**
 * The model folder used when none is given: MNEMO_MODEL_DIR, else `$XDG_CACHE_HOME/mnemo/models` or `~/.cache/mnemo/models`.
 *
 * @example
 * ```ts
 * defaultModelDir(); // e.g. '/home/ana/.cache/mnemo/models' when neither MNEMO_MODEL_DIR nor XDG_CACHE_HOME is set
 * ```
 */
export function defaultModelDir(): string {
  const fromEnvironment = process.env.MNEMO_MODEL_DIR;
  if (fromEnvironment !== undefined && fromEnvironment !== '') return fromEnvironment;
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'mnemo', 'models');
}

function runtimeCacheDir(): string | null {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@huggingface/transformers/package.json')), '.cache');
  } catch {
    return null;
  }
}

/** The files a text model needs, for one precision. */
export function requiredModelFiles(dtype: ModelDtype): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', `onnx/model${DTYPE_SUFFIXES[dtype]}.onnx`];
}

/** The folders searched for `<model id>/...`, in order. */
export function modelSearchPath(options: ModelLocationOptions): string[] {
  const folders = [options.modelDir ?? defaultModelDir(), options.cacheDir ?? runtimeCacheDir()];
  return [...new Set(folders.filter((folder): folder is string => folder !== null))];
}

/**
 * The folder (of the search path) that holds every file of the model, or null.
 *
 * @example
 * ```ts
 * findModel('Xenova/all-MiniLM-L6-v2', 'fp32', { modelDir: './models' }); // './models' or null
 * ```
 */
export function findModel(modelId: string, dtype: ModelDtype, options: ModelLocationOptions): string | null {
  for (const folder of modelSearchPath(options)) {
    if (requiredModelFiles(dtype).every((file) => existsSync(join(folder, modelId, file)))) return folder;
  }
  return null;
}

/**
 * Like findModel, but throws MODEL_MISSING naming the folders searched, the files expected and how to get them.
 *
 * @example
 * ```ts
 * const folder = requireModel('Xenova/all-MiniLM-L6-v2', 'fp32', {}); // throws when absent
 * ```
 */
export function requireModel(modelId: string, dtype: ModelDtype, options: ModelLocationOptions): string {
  const found = findModel(modelId, dtype, options);
  if (found !== null) return found;
  const searched = modelSearchPath(options);
  throw new MnemoError(
    'MODEL_MISSING',
    `Model ${modelId} (${dtype}) was not found: expected ${requiredModelFiles(dtype).join(', ')} under ${searched.map((folder) => join(folder, modelId)).join(' or ')}. ` +
      `Copy the model's files there (from a machine that can reach the Hugging Face hub), set modelDir or MNEMO_MODEL_DIR to where they are, or use the static embedder.`,
    { details: { model: modelId, dtype, searched } },
  );
}
