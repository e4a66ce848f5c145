// All-but-the-top: the word table's mean and principal directions, and their removal from sentence sums.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { removeTopDirections, symmetricEigen, topDirections } from '../src/embedders/static/all-but-the-top.js';
import { sentenceVector } from '../src/embedders/static/smooth-inverse-frequency.js';
import { quantizeRow, WordVectorTable } from '../src/embedders/static/word-vector-table.js';

/** A table whose rows are the given float vectors (quantised as the shipped table is). */
function tableOf(vectors: number[][]): WordVectorTable {
  const dimensions = (vectors[0] as number[]).length;
  const scales = new Float32Array(vectors.length);
  const values = new Int8Array(vectors.length * dimensions);
  vectors.forEach((vector, row) => {
    const quantised = quantizeRow(vector);
    scales[row] = quantised.scale;
    values.set(quantised.values, row * dimensions);
  });
  return new WordVectorTable({ source: 'test', dimensions, vocabularySize: vectors.length, words: vectors.map((_, row) => `w${row}`), ranks: Uint32Array.from(vectors, (_, row) => row), scales, values });
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
};

describe('symmetricEigen', () => {
  it('diagonalises a symmetric matrix: A v = λ v for every column, and the columns are orthonormal', () => {
    const size = 5;
    const next = seededRandom(7);
    const matrix = new Float64Array(size * size);
    for (let i = 0; i < size; i++) for (let j = i; j < size; j++) matrix[i * size + j] = matrix[j * size + i] = next() - 0.5;
    const { values, vectors } = symmetricEigen(matrix, size);
    for (let column = 0; column < size; column++) {
      const v = Array.from({ length: size }, (_, i) => vectors[i * size + column] as number);
      for (let i = 0; i < size; i++) {
        const row = Array.from({ length: size }, (_, j) => matrix[i * size + j] as number);
        expect(dot(row, v)).toBeCloseTo((values[column] as number) * (v[i] as number), 10);
      }
      for (let other = 0; other < size; other++) {
        const u = Array.from({ length: size }, (_, i) => vectors[i * size + other] as number);
        expect(dot(u, v)).toBeCloseTo(other === column ? 1 : 0, 10);
      }
    }
  });
});

describe('topDirections', () => {
  // Rows spread mostly along (1, 1, 0, 0) / √2, less along (0, 0, 1, 0), around the mean (2, 0, 0, 1).
  const next = seededRandom(11);
  const rows = Array.from({ length: 400 }, () => {
    const major = (next() - 0.5) * 4;
    const minor = (next() - 0.5) * 1;
    const noise = () => (next() - 0.5) * 0.05;
    return [2 + major / Math.SQRT2 + noise(), major / Math.SQRT2 + noise(), minor + noise(), 1 + noise()];
  });
  const table = tableOf(rows);

  it('finds the mean and the directions of largest variance, in order, with a fixed sign', () => {
    const top = topDirections(table, 2);
    expect(top.count).toBe(2);
    const expectedMean = [0, 1, 2, 3].map((i) => rows.reduce((sum, row) => sum + (row[i] as number), 0) / rows.length);
    expectedMean.forEach((value, i) => expect(top.mean[i]).toBeCloseTo(value, 1));
    const [first, second] = top.directions as [Float64Array, Float64Array];
    expect(Math.abs(dot(first, [Math.SQRT1_2, Math.SQRT1_2, 0, 0]))).toBeGreaterThan(0.999);
    expect(Math.abs(dot(second, [0, 0, 1, 0]))).toBeGreaterThan(0.99);
    expect(Math.max(...first.map(Math.abs))).toBe(Math.max(...first));
    expect(dot(first, first)).toBeCloseTo(1, 10);
  });

  it('is deterministic and refuses a count it cannot give', () => {
    expect(topDirections(table, 2)).toEqual(topDirections(table, 2));
    expect(topDirections(table, 0).directions).toEqual([]);
    expect(() => topDirections(table, 4)).toThrow(/from 0 to 3, got 4/);
    expect(() => topDirections(table, 1.5)).toThrow(RangeError);
  });

  it('removing them from a weighted sum equals post-processing every word vector first', () => {
    const top = topDirections(table, 1);
    const picked = [3, 17, 17, 250];
    const weights = [0.5, 2, 2, 0.25];
    const sum = new Float64Array(4);
    picked.forEach((row, index) => table.addScaled(row, weights[index] as number, sum));
    removeTopDirections(sum, weights.reduce((a, b) => a + b, 0), top);
    const expected = new Float64Array(4);
    picked.forEach((row, index) => {
      const vector = table.vector(row).map((value, i) => value - (top.mean[i] as number));
      for (const direction of top.directions) {
        const projection = dot(vector, direction);
        for (let i = 0; i < 4; i++) vector[i] = (vector[i] as number) - projection * (direction[i] as number);
      }
      for (let i = 0; i < 4; i++) expected[i] = (expected[i] as number) + (weights[index] as number) * (vector[i] as number);
    });
    for (let i = 0; i < 4; i++) expect(sum[i]).toBeCloseTo(expected[i] as number, 10);
    expect(Math.abs(dot(sum, top.directions[0] as Float64Array))).toBeLessThan(1e-9);
  });

  it('changes sentence vectors only when asked: no directions given, the SIF vector is unchanged', () => {
    const weights = new Float64Array(rows.length).fill(1);
    const plain = sentenceVector(table, [1, 2, 3], weights, null);
    expect(sentenceVector(table, [1, 2, 3], weights, null, null)).toEqual(plain);
    const processed = sentenceVector(table, [1, 2, 3], weights, null, topDirections(table, 1));
    expect(Math.hypot(...processed)).toBeCloseTo(1, 6);
    expect(processed).not.toEqual(plain);
    expect(sentenceVector(table, [], weights, null, topDirections(table, 1)).every((value) => value === 0)).toBe(true);
  });
});
