// "All-but-the-top" (Mu and Viswanath, ICLR 2018): the word table's mean and its top principal directions, removed from sentence vectors.
import type { WordVectorTable } from './word-vector-table.js';

/** The word table's mean vector and its top principal directions (unit vectors, largest variance first). */
export interface TopDirections {
  /** How many directions were removed (the model id says it). */
  readonly count: number;
  /** The mean of the table's word vectors (dequantised). */
  readonly mean: Float64Array;
  /** `count` unit vectors, the centred table's top principal directions. */
  readonly directions: readonly Float64Array[];
}

/**
 * The mean and the top `count` principal directions of a word table's vectors (every row weighs the same, as
 * in Mu and Viswanath). Deterministic: the covariance is summed in row order and diagonalised by cyclic Jacobi
 * rotations; each direction's sign is fixed so that its largest component is positive.
 *
 * @example
 * ```ts
 * const top = topDirections(table, 3); // { count: 3, mean, directions: [u1, u2, u3] }
 * ```
 */
export function topDirections(table: WordVectorTable, count: number): TopDirections {
  const dimensions = table.dimensions;
  if (!Number.isInteger(count) || count < 0 || count >= dimensions) {
    throw new RangeError(`topDirections: expected a whole number of directions from 0 to ${dimensions - 1}, got ${count}.`);
  }
  const rows = table.size;
  const mean = new Float64Array(dimensions);
  const moment = new Float64Array(dimensions * dimensions);
  const vector = new Float64Array(dimensions);
  for (let row = 0; row < rows; row++) {
    const scale = table.scales[row] as number;
    const base = row * dimensions;
    for (let i = 0; i < dimensions; i++) vector[i] = scale * (table.values[base + i] as number);
    for (let i = 0; i < dimensions; i++) {
      const value = vector[i] as number;
      mean[i] = (mean[i] as number) + value;
      if (value === 0) continue;
      const offset = i * dimensions;
      for (let j = i; j < dimensions; j++) moment[offset + j] = (moment[offset + j] as number) + value * (vector[j] as number);
    }
  }
  if (rows > 0) for (let i = 0; i < dimensions; i++) mean[i] = (mean[i] as number) / rows;
  for (let i = 0; i < dimensions; i++) {
    for (let j = i; j < dimensions; j++) {
      const covariance = rows > 0 ? (moment[i * dimensions + j] as number) / rows - (mean[i] as number) * (mean[j] as number) : 0;
      moment[i * dimensions + j] = covariance;
      moment[j * dimensions + i] = covariance;
    }
  }
  const { values, vectors } = symmetricEigen(moment, dimensions);
  const order = Array.from({ length: dimensions }, (_, index) => index).sort((a, b) => (values[b] as number) - (values[a] as number) || a - b);
  const directions = order.slice(0, count).map((column) => {
    const direction = new Float64Array(dimensions);
    let largest = 0;
    for (let i = 0; i < dimensions; i++) {
      const value = vectors[i * dimensions + column] as number;
      direction[i] = value;
      if (Math.abs(value) > Math.abs(largest)) largest = value;
    }
    if (largest < 0) for (let i = 0; i < dimensions; i++) direction[i] = -(direction[i] as number);
    return direction;
  });
  return { count, mean, directions };
}

/**
 * Eigenvalues and eigenvectors (columns of `vectors`, row-major) of a symmetric matrix, by cyclic Jacobi
 * rotations until the off-diagonal mass is negligible. The input is not modified.
 *
 * @example
 * ```ts
 * symmetricEigen(new Float64Array([2, 1, 1, 2]), 2); // values [1, 3] (or [3, 1]), vectors ±(1, ∓1)/√2, (1, 1)/√2
 * ```
 */
export function symmetricEigen(matrix: Float64Array, size: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(size * size);
  for (let i = 0; i < size; i++) v[i * size + i] = 1;
  let total = 0;
  for (const value of a) total += value * value;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < size; p++) for (let q = p + 1; q < size; q++) off += (a[p * size + q] as number) ** 2;
    if (off <= 1e-30 * total || off === 0) break;
    for (let p = 0; p < size; p++) {
      for (let q = p + 1; q < size; q++) {
        const apq = a[p * size + q] as number;
        if (apq === 0) continue;
        const app = a[p * size + p] as number;
        const aqq = a[q * size + q] as number;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < size; k++) {
          const akp = a[k * size + p] as number;
          const akq = a[k * size + q] as number;
          a[k * size + p] = c * akp - s * akq;
          a[k * size + q] = s * akp + c * akq;
        }
        for (let k = 0; k < size; k++) {
          const apk = a[p * size + k] as number;
          const aqk = a[q * size + k] as number;
          a[p * size + k] = c * apk - s * aqk;
          a[q * size + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < size; k++) {
          const vkp = v[k * size + p] as number;
          const vkq = v[k * size + q] as number;
          v[k * size + p] = c * vkp - s * vkq;
          v[k * size + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(size);
  for (let i = 0; i < size; i++) values[i] = a[i * size + i] as number;
  return { values, vectors: v };
}

/**
 * Removes the top directions from a weighted sum of word vectors, in place: since the post-processing of each
 * word vector is linear (v - μ, then minus its projections on u1..uD), applying it to the sum Σ wᵢ vᵢ equals
 * applying it to every word first: subtract (Σ wᵢ) μ, then project out each direction.
 *
 * @example
 * ```ts
 * removeTopDirections(sum, totalWeight, top); // sum is now Σ wᵢ · postprocessed(vᵢ)
 * ```
 */
export function removeTopDirections(sum: Float64Array, totalWeight: number, top: TopDirections): void {
  const dimensions = sum.length;
  for (let i = 0; i < dimensions; i++) sum[i] = (sum[i] as number) - totalWeight * (top.mean[i] as number);
  for (const direction of top.directions) {
    let projection = 0;
    for (let i = 0; i < dimensions; i++) projection += (sum[i] as number) * (direction[i] as number);
    for (let i = 0; i < dimensions; i++) sum[i] = (sum[i] as number) - projection * (direction[i] as number);
  }
}
