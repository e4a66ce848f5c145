// Smooth inverse frequency (Arora, Liang and Ma, 2017): word weights a / (a + p(w)) and the common component.
import { removeTopDirections } from './all-but-the-top.js';
import type { TopDirections } from './all-but-the-top.js';
import type { WordVectorTable } from './word-vector-table.js';

/** The SIF smoothing constant a: words far more frequent than a are weighted down. */
export const SIF_SMOOTHING = 1e-3;
/** The sentence length the common component is estimated for (in known words). */
export const COMPONENT_SENTENCE_LENGTH = 12;

/**
 * Each row's weight a / (a + p(w)).
 *
 * @example
 * ```ts
 * sifWeights(new Float64Array([0.05, 0]), 1e-3); // [0.0196..., 1]
 * ```
 */
export function sifWeights(probabilities: Float64Array, smoothing = SIF_SMOOTHING): Float64Array {
  return probabilities.map((probability) => smoothing / (smoothing + probability));
}

/**
 * The common component of SIF sentence vectors, estimated without a corpus of sentences: the top eigenvector of
 * the second moment of the weighted mean of `sentenceLength` words drawn independently from p(w):
 *
 *   M = (1/L) Σ q(w) u(w) u(w)ᵀ + (1 - 1/L) μ μᵀ,   u(w) = weight(w) v(w),   μ = Σ q(w) u(w),
 *
 * with q = p normalised over the table's words. Arora et al. take the first singular vector of a corpus's
 * sentence vectors (uncentred); under their model that is this M's top eigenvector. It depends only on p(w),
 * so it is fixed for a given distribution: the same text gets the same vector whatever else is stored.
 * Returns a unit vector (Float64Array), found by power iteration from μ; deterministic.
 *
 * @example
 * ```ts
 * const component = commonComponent(table, probabilities, sifWeights(probabilities));
 * ```
 */
export function commonComponent(table: WordVectorTable, probabilities: Float64Array, weights: Float64Array, sentenceLength = COMPONENT_SENTENCE_LENGTH): Float64Array {
  const dimensions = table.dimensions;
  let mass = 0;
  for (const probability of probabilities) mass += probability;
  const moment = new Float64Array(dimensions * dimensions);
  const mean = new Float64Array(dimensions);
  if (mass <= 0) return mean;
  const vector = new Float64Array(dimensions);
  for (let row = 0; row < table.size; row++) {
    const q = (probabilities[row] as number) / mass;
    if (q === 0) continue;
    vector.fill(0);
    table.addScaled(row, weights[row] as number, vector);
    const factor = q / sentenceLength;
    for (let i = 0; i < dimensions; i++) {
      const scaled = factor * (vector[i] as number);
      mean[i] = (mean[i] as number) + q * (vector[i] as number);
      if (scaled === 0) continue;
      const base = i * dimensions;
      for (let j = i; j < dimensions; j++) moment[base + j] = (moment[base + j] as number) + scaled * (vector[j] as number);
    }
  }
  const meanWeight = 1 - 1 / sentenceLength;
  for (let i = 0; i < dimensions; i++) {
    for (let j = i; j < dimensions; j++) {
      const value = (moment[i * dimensions + j] as number) + meanWeight * (mean[i] as number) * (mean[j] as number);
      moment[i * dimensions + j] = value;
      moment[j * dimensions + i] = value;
    }
  }
  return topEigenvector(moment, dimensions, mean);
}

function normalize(vector: Float64Array): number {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) / norm;
  return norm;
}

/** Power iteration on a symmetric positive semi-definite matrix, started from `start`. */
function topEigenvector(matrix: Float64Array, dimensions: number, start: Float64Array): Float64Array {
  let current = Float64Array.from(start);
  if (normalize(current) === 0) current[0] = 1;
  for (let iteration = 0; iteration < 500; iteration++) {
    const next = new Float64Array(dimensions);
    for (let i = 0; i < dimensions; i++) {
      let sum = 0;
      for (let j = 0; j < dimensions; j++) sum += (matrix[i * dimensions + j] as number) * (current[j] as number);
      next[i] = sum;
    }
    if (normalize(next) === 0) return current;
    let change = 0;
    for (let i = 0; i < dimensions; i++) change = Math.max(change, Math.abs((next[i] as number) - (current[i] as number)));
    current = next;
    if (change < 1e-12) break;
  }
  return current;
}

/**
 * The SIF sentence vector of some table rows: Σ weight(w) v(w), minus its projection on the common component,
 * L2-normalised. All zeros when no row is given (or nothing is left after the projection).
 *
 * @example
 * ```ts
 * const vector = sentenceVector(table, [row1, row2], weights, component); // Float32Array, unit length
 * ```
 */
export function sentenceVector(table: WordVectorTable, rows: readonly number[], weights: Float64Array, component: Float64Array | null, top: TopDirections | null = null): Float32Array {
  const dimensions = table.dimensions;
  const sum = new Float64Array(dimensions);
  let totalWeight = 0;
  for (const row of rows) {
    table.addScaled(row, weights[row] as number, sum);
    totalWeight += weights[row] as number;
  }
  if (top !== null && rows.length > 0) removeTopDirections(sum, totalWeight, top);
  if (component !== null) {
    let projection = 0;
    for (let index = 0; index < dimensions; index++) projection += (sum[index] as number) * (component[index] as number);
    for (let index = 0; index < dimensions; index++) sum[index] = (sum[index] as number) - projection * (component[index] as number);
  }
  const norm = normalize(sum);
  const result = new Float32Array(dimensions);
  if (norm > 1e-9) result.set(sum);
  return result;
}
