// The optional transformers.js runtime: imported lazily, with an install hint when it is absent.
import { MnemoError } from '../core/errors.js';

/** A tensor as transformers.js returns it: flat data and its shape. */
export interface TensorLike {
  data: ArrayLike<number | bigint>;
  dims: readonly number[];
}

/** What Mnemo calls on a transformers.js tokenizer. */
export interface TokenizerLike {
  (texts: string[], options: { text_pair?: string[]; padding?: boolean; truncation?: boolean; max_length?: number }): Record<string, unknown> & { attention_mask: TensorLike };
}

/** What Mnemo calls on a transformers.js model. */
export interface ModelLike {
  (inputs: Record<string, unknown>): Promise<Record<string, TensorLike | undefined>>;
  dispose?(): Promise<unknown>;
}

/** Loading options transformers.js understands. */
export interface PretrainedOptions {
  local_files_only?: boolean;
  cache_dir?: string;
  dtype?: string;
}

/** The part of `@huggingface/transformers` Mnemo uses. */
export interface TransformersRuntime {
  env: { localModelPath: string; allowLocalModels: boolean; cacheDir: string | null };
  AutoTokenizer: { from_pretrained(model: string, options?: PretrainedOptions): Promise<TokenizerLike> };
  AutoModel: { from_pretrained(model: string, options?: PretrainedOptions): Promise<ModelLike> };
  AutoModelForSequenceClassification: { from_pretrained(model: string, options?: PretrainedOptions): Promise<ModelLike> };
}

/** Imports the runtime module; replaceable in tests. */
export type RuntimeImporter = () => Promise<unknown>;

/** The package that provides the runtime, and the version Mnemo is tested with. */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
export const TRANSFORMERS_VERSION = '4.3.1';

const defaultImporter: RuntimeImporter = () => import('@huggingface/transformers');

/**
 * The command that installs the runtime. Mnemo runs it on the CPU, whose binaries ship inside onnxruntime-node;
 * skipping that package's install step keeps it from downloading CUDA files (which fails offline).
 */
export const TRANSFORMERS_INSTALL = `ONNXRUNTIME_NODE_INSTALL=skip npm i ${TRANSFORMERS_PACKAGE}@${TRANSFORMERS_VERSION}`;

/**
 * Imports transformers.js on first use. When it is not installed (it is an optional peer dependency) or its
 * native runtime cannot load, throws DEPENDENCY_MISSING with the command that installs it.
 *
 * @example
 * ```ts
 * const runtime = await importTransformers();
 * const tokenizer = await runtime.AutoTokenizer.from_pretrained('Xenova/all-MiniLM-L6-v2', { local_files_only: true });
 * ```
 */
export async function importTransformers(importer: RuntimeImporter = defaultImporter, purpose = 'This embedder'): Promise<TransformersRuntime> {
  let loaded: unknown;
  try {
    loaded = await importer();
  } catch (error) {
    const notInstalled = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
    throw new MnemoError(
      'DEPENDENCY_MISSING',
      `${purpose} needs ${TRANSFORMERS_PACKAGE}, an optional peer dependency, which ${notInstalled ? 'is not installed' : `could not be loaded (${(error as Error).message})`}. ` +
        `Install it with \`${TRANSFORMERS_INSTALL}\`, or use the static embedder (no runtime needed).`,
      { cause: error, details: { package: TRANSFORMERS_PACKAGE } },
    );
  }
  const runtime = ((loaded as { default?: unknown }).default ?? loaded) as Partial<TransformersRuntime>;
  if (typeof runtime.AutoTokenizer?.from_pretrained !== 'function' || typeof runtime.AutoModel?.from_pretrained !== 'function' || runtime.env === undefined) {
    throw new MnemoError('DEPENDENCY_MISSING', `${TRANSFORMERS_PACKAGE} loaded but lacks AutoTokenizer/AutoModel; expected version ${TRANSFORMERS_VERSION}. Install it with \`${TRANSFORMERS_INSTALL}\`.`);
  }
  return runtime as TransformersRuntime;
}
