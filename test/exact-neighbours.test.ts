// The peer benchmark's exact k-NN reference (bench/peers/exact-neighbours.ts): plain, filtered, with neighbour context, and recall.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DIMENSIONS } from '../bench/peers/corpus.js';
import { exactNeighbours, recallAtK } from '../bench/peers/exact-neighbours.js';

const folder = mkdtempSync(join(tmpdir(), 'mnemo-exact-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A vector along axis `axis`, times `scale` (so rows differ in length but not in direction). */
const axisVector = (axis: number, scale = 1, other?: { axis: number; weight: number }) => {
  const vector = new Float32Array(DIMENSIONS);
  vector[axis] = scale;
  if (other !== undefined) vector[other.axis] = other.weight;
  return vector;
};

function vectorFile(rows: readonly Float32Array[]): string {
  const path = join(folder, `${rows.length}-${Math.random().toString(36).slice(2)}.f32`);
  const bytes = new Uint8Array(rows.length * DIMENSIONS * 4);
  rows.forEach((row, index) => bytes.set(new Uint8Array(row.buffer), index * DIMENSIONS * 4));
  writeFileSync(path, bytes);
  return path;
}

describe('exactNeighbours', () => {
  // Rows 0..11: row r points along axis r % 4, tilted towards axis 5 by r / 100 (so rows of one axis rank by r).
  const rows = Array.from({ length: 12 }, (_, row) => axisVector(row % 4, 2, { axis: 5, weight: row / 100 }));
  const file = vectorFile(rows);

  it('ranks by cosine, whatever the vectors length, best first', () => {
    const [ids] = exactNeighbours(file, 12, [axisVector(1, 1, { axis: 5, weight: 0.2 })], 3, false, 0);
    expect(ids).toEqual(['c9', 'c5', 'c1']);
  });

  it('keeps to the query group when filtered (query i asks for rows r with r % 10 == i % 10)', () => {
    const queries = [axisVector(0), axisVector(1)];
    const [first, second] = exactNeighbours(file, 12, queries, 2, true, 0);
    expect(first).toEqual(['c0', 'c10']); // group 0: rows 0 and 10; row 0 is along axis 0
    expect(second).toEqual(['c1', 'c11']); // group 1: rows 1 and 11; row 1 is along axis 1
  });

  it('scores neighbour context, normalise(own + w (previous + next)), when a weight is given', () => {
    // Row 1 is along axis 2 but both its neighbours are along axis 3: with context (w = 5) it ranks first, then
    // row 3 (one neighbour along axis 3); rows 0 and 2 lean to axis 2 through row 1.
    const context = vectorFile([axisVector(3), axisVector(2), axisVector(3), axisVector(2, 1, { axis: 3, weight: 0.5 })]);
    const query = [axisVector(3)];
    expect(exactNeighbours(context, 4, query, 2, false, 0)[0]).toEqual(['c0', 'c2']);
    expect(exactNeighbours(context, 4, query, 2, false, 5)[0]).toEqual(['c1', 'c3']);
  });
});

describe('recallAtK', () => {
  it('is the mean share of each exact top k found, over the queries answered', () => {
    expect(recallAtK([['c1', 'c2'], ['c3', 'c4']], [['c2', 'c9'], ['c3', 'c4']])).toBe(0.75);
    expect(recallAtK([['c1']], [['c1'], ['c5']])).toBe(1);
    expect(recallAtK([], [['c1']])).toBeNaN();
  });
});
