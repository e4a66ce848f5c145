// Sentence vectors from token vectors: the mean over real tokens (attention mask), then unit length.
import type { TensorLike } from '../../transformers/index.js';

/**
 * Mean pooling as sentence-transformers does it: for each text, the average of its token vectors where the
 * attention mask is 1 (padding left out). `hidden` is [batch, tokens, dims]; `mask` is [batch, tokens].
 *
 * @example
 * ```ts
 * meanPool({ data: [1, 2, 3, 4], dims: [1, 2, 2] }, { data: [1n, 0n], dims: [1, 2] }); // [Float32Array [1, 2]]
 * ```
 */
export function meanPool(hidden: TensorLike, mask: TensorLike): Float32Array[] {
  const [batch, tokens, dimensions] = hidden.dims as [number, number, number];
  if (hidden.dims.length !== 3 || mask.dims.length !== 2 || mask.dims[0] !== batch || mask.dims[1] !== tokens) {
    throw new Error(`meanPool: expected hidden [batch, tokens, dims] and mask [batch, tokens], got [${hidden.dims.join(', ')}] and [${mask.dims.join(', ')}]`);
  }
  const vectors: Float32Array[] = [];
  for (let item = 0; item < batch; item++) {
    const sum = new Float64Array(dimensions);
    let count = 0;
    for (let token = 0; token < tokens; token++) {
      if (Number(mask.data[item * tokens + token]) === 0) continue;
      count++;
      const base = (item * tokens + token) * dimensions;
      for (let index = 0; index < dimensions; index++) sum[index] = (sum[index] as number) + Number(hidden.data[base + index]);
    }
    vectors.push(Float32Array.from(sum, (value) => (count === 0 ? 0 : value / count)));
  }
  return vectors;
}

/**
 * Scales a vector to unit length in place (a zero vector stays zero) and returns it.
 *
 * @example
 * ```ts
 * l2Normalize(new Float32Array([3, 4])); // Float32Array [0.6, 0.8]
 * ```
 */
export function l2Normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) / norm;
  return vector;
}
