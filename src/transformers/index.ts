// The optional transformers.js runtime shared by the MiniLM embedder and the cross-encoder reranker.
export { importTransformers, TRANSFORMERS_INSTALL, TRANSFORMERS_PACKAGE, TRANSFORMERS_VERSION } from './transformers-runtime.js';
export type { TransformersRuntime, RuntimeImporter, TensorLike, TokenizerLike, ModelLike, PretrainedOptions } from './transformers-runtime.js';
export { findModel, requireModel, requiredModelFiles, modelSearchPath, defaultModelDir, DTYPE_SUFFIXES } from './model-files.js';
export type { ModelDtype, ModelLocationOptions } from './model-files.js';
