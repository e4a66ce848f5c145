// The exact k nearest rows (cosine, the given vectors) of each benchmark query, and an engine's recall@k against them.
import { FILTER_GROUPS } from './engine.js';
import { readVectors } from './corpus.js';

const normalised = (vector: Float32Array): Float32Array => {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
  return vector.map((value) => value * scale);
};

/**
 * With `neighbourWeight` w above 0, the vectors Mnemo's semantic arm scores (its neighbour context):
 * normalise(own + w * (previous + next)) over unit vectors, the neighbours being the adjacent rows.
 */
function contextVectors(units: readonly Float32Array[], neighbourWeight: number): Float32Array[] {
  if (neighbourWeight === 0) return [...units];
  return units.map((own, row) => {
    const mixed = new Float32Array(own);
    for (const other of [units[row - 1], units[row + 1]]) {
      if (other !== undefined) for (let d = 0; d < mixed.length; d++) mixed[d] = (mixed[d] as number) + neighbourWeight * (other[d] as number);
    }
    return normalised(mixed);
  });
}

/**
 * The ids (`c<row>`) of the `k` rows of the first `size` corpus vectors nearest each query vector by cosine,
 * best first, by a full scan; with `filtered`, among the rows of the query's group only (query `i`, group
 * `i % FILTER_GROUPS`, as the filtered mode asks); with `neighbourWeight` above 0, each row scored by its
 * neighbour context as Mnemo scores it. Ties go to the lower row.
 *
 * @example
 * ```ts
 * const exact = exactNeighbours(paths.syntheticVectors, 10_000, readVectors(paths.queryVectors, 0, 200), 10, true, 0);
 * ```
 */
export function exactNeighbours(vectorsFile: string, size: number, queries: readonly Float32Array[], k: number, filtered: boolean, neighbourWeight: number): string[][] {
  const rows = contextVectors(readVectors(vectorsFile, 0, size).map(normalised), neighbourWeight);
  return queries.map((query, index) => {
    const unit = normalised(query);
    const best: { row: number; score: number }[] = [];
    for (let row = filtered ? index % FILTER_GROUPS : 0; row < size; row += filtered ? FILTER_GROUPS : 1) {
      const vector = rows[row] as Float32Array;
      let score = 0;
      for (let d = 0; d < unit.length; d++) score += (unit[d] as number) * (vector[d] as number);
      if (best.length === k && score <= (best[k - 1] as { score: number }).score) continue;
      let at = best.length;
      while (at > 0 && (best[at - 1] as { score: number }).score < score) at--;
      best.splice(at, 0, { row, score });
      if (best.length > k) best.pop();
    }
    return best.map((hit) => `c${hit.row}`);
  });
}

/**
 * Mean share of each exact top k found in the engine's top k, over the queries the engine answered (its list
 * may be shorter than `exact`: a query it did not time is left out).
 *
 * @example
 * ```ts
 * recallAtK([['c1', 'c2']], [['c2', 'c9']]); // 0.5
 * ```
 */
export function recallAtK(ranked: readonly (readonly string[] | undefined | null)[], exact: readonly (readonly string[])[]): number {
  let sum = 0;
  let count = 0;
  for (const [index, ids] of ranked.entries()) {
    const truth = exact[index];
    if (ids === undefined || ids === null || truth === undefined || truth.length === 0) continue;
    const found = new Set(ids);
    sum += truth.filter((id) => found.has(id)).length / truth.length;
    count++;
  }
  return count === 0 ? NaN : sum / count;
}
