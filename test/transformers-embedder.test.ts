// The transformers.js embedder: pooling on tensors built here, and the real loading path up to the missing model.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { l2Normalize, loadTransformersEmbedder, meanPool, MINILM_MODEL } from '../src/embedders/transformers/index.js';
import { findModel, importTransformers } from '../src/transformers/index.js';
import type { TensorLike } from '../src/transformers/index.js';
import { fakeRuntime, writeModelFolder } from './fixtures/fake-transformers.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

describe('pooling', () => {
  it('averages token vectors where the mask is 1, leaving padding out', () => {
    const hidden: TensorLike = { data: Float32Array.from([1, 2, 3, 4, 100, 100, 5, 6, 0, 0, 0, 0]), dims: [2, 3, 2] };
    const mask: TensorLike = { data: BigInt64Array.from([1n, 1n, 0n, 1n, 0n, 0n]), dims: [2, 3] };
    const [first, second] = meanPool(hidden, mask);
    expect([...(first as Float32Array)]).toEqual([2, 3]);
    expect([...(second as Float32Array)]).toEqual([5, 6]);
  });

  it('gives zeros for a text with no real token, and refuses shapes that do not match', () => {
    const [empty] = meanPool({ data: [7, 7], dims: [1, 1, 2] }, { data: [0], dims: [1, 1] });
    expect([...(empty as Float32Array)]).toEqual([0, 0]);
    expect(() => meanPool({ data: [1, 2], dims: [1, 2] }, { data: [1], dims: [1, 1] })).toThrow(/expected hidden/);
  });

  it('normalises to unit length, and leaves a zero vector alone', () => {
    expect([...l2Normalize(Float32Array.from([3, 4]))]).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect([...l2Normalize(new Float32Array(2))]).toEqual([0, 0]);
  });
});

describe('transformers embedder', () => {
  it('says MODEL_MISSING, naming the folders searched, when the model is absent (offline by default)', async () => {
    const modelDir = join(dir, 'empty-models');
    const error = await loadTransformersEmbedder({ modelDir, cacheDir: join(dir, 'empty-cache') }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MODEL_MISSING', category: 'SYSTEM' });
    expect((error as Error).message).toContain(join(modelDir, MINILM_MODEL));
    expect((error as Error).message).toContain('onnx/model.onnx');
  });

  it('says DEPENDENCY_MISSING with the install command when transformers.js is not installed', async () => {
    const modelDir = join(dir, 'models-a');
    writeModelFolder(modelDir, MINILM_MODEL);
    const importer = async () => { throw Object.assign(new Error("Cannot find package '@huggingface/transformers'"), { code: 'ERR_MODULE_NOT_FOUND' }); };
    const error = await loadTransformersEmbedder({ modelDir, importer }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'DEPENDENCY_MISSING' });
    expect((error as Error).message).toContain('npm i @huggingface/transformers@4.3.1');
  });

  it('loads tokenizer and model from the local folder only, then mean-pools and normalises', async () => {
    const modelDir = join(dir, 'models-b');
    writeModelFolder(modelDir, MINILM_MODEL);
    expect(findModel(MINILM_MODEL, 'fp32', { modelDir })).toBe(modelDir);
    const calls: unknown[] = [];
    const runtime = fakeRuntime(calls);
    const embedder = await loadTransformersEmbedder({ modelDir, importer: async () => runtime });
    expect(embedder).toMatchObject({ provider: 'transformers', modelId: MINILM_MODEL, dimensions: 3 });
    expect(calls).toEqual([
      ['tokenizer', MINILM_MODEL, expect.objectContaining({ local_files_only: true, cache_dir: modelDir, dtype: 'fp32' })],
      ['model', MINILM_MODEL, expect.objectContaining({ local_files_only: true })],
    ]);
    expect(runtime.env.localModelPath).toBe(`${modelDir}/`);
    const [short, long] = await embedder.embed(['ab', 'ab cdef xy']);
    const expected = (vector: number[]) => { const length = Math.hypot(...vector); return vector.map((value) => Math.fround(value / length)); };
    expect([...(short as Float32Array)]).toEqual(expected([1, 0, 2]));
    expect([...(long as Float32Array)]).toEqual(expected([1, 1, 8 / 3]));
  });

  it('reaches the real transformers.js runtime, and turns an unreadable model into MODEL_MISSING', async () => {
    const runtime = await importTransformers();
    expect(typeof runtime.AutoModel.from_pretrained).toBe('function');
    const modelDir = join(dir, 'models-broken');
    writeModelFolder(modelDir, MINILM_MODEL, { 'onnx/model.onnx': 'not an onnx file' });
    const error = await loadTransformersEmbedder({ modelDir }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MODEL_MISSING' });
    expect((error as Error).message).toContain('could not be loaded');
  });
});
