// The int8 scan of the semantic arm: the SIMD kernel equals the JS one, and search equals a float32 scan exactly.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDotKernel, jsDotKernel, jsSums, kernelBytes } from '../src/retrieval/int8-dot-kernel.js';
import { MedianStatistics } from '../src/retrieval/median-statistics.js';
import type { BoundsLayout, DotKernel } from '../src/retrieval/int8-dot-kernel.js';
import { assembleWat } from '../scripts/assemble-wat.js';
import { exactTop, QuantizedVectors, roundHalfUp } from '../src/retrieval/quantized-vectors.js';
import { ScoreStatistics } from '../src/retrieval/score-statistics.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotWriter } from '../src/retrieval/snapshot-format.js';
import { TopK } from '../src/retrieval/top-k.js';
import { dotProduct, VectorIndex } from '../src/retrieval/vector-index.js';
import { seededRandom } from '../bench/synthetic-corpus.js';

/** Unit vectors sharing a large common component, as sentence vectors do. */
function vectors(count: number, dims: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const common = Array.from({ length: dims }, () => random() - 0.5);
  return Array.from({ length: count }, () => {
    const vector = Float32Array.from(common, (value) => 3 * value + (random() - 0.5));
    const norm = Math.hypot(...vector);
    return vector.map((value) => value / norm);
  });
}

/** The reference: every row scored in float, the best `limit` kept (ties: lower slot). */
function floatScan(rows: readonly (Float32Array | null)[], query: Float32Array, limit: number, accept?: (slot: number) => boolean) {
  const top = new TopK(limit);
  rows.forEach((row, slot) => {
    if (row !== null && (accept === undefined || accept(slot))) top.push(slot, dotProduct(row, 0, query, query.length));
  });
  return top.sorted();
}

function runScan(kernel: DotKernel, rows: Int8Array[], query: Int16Array): number[] {
  const stride = query.length;
  const need = rows.length * stride + stride * 2 + rows.length * 4 + 64;
  if (kernel.memory.buffer.byteLength < need) kernel.memory.grow(Math.ceil((need - kernel.memory.buffer.byteLength) / 65_536));
  const bytes = new Int8Array(kernel.memory.buffer);
  rows.forEach((row, index) => bytes.set(row, index * stride));
  const queryOffset = Math.ceil((rows.length * stride) / 16) * 16;
  new Int16Array(kernel.memory.buffer, queryOffset, stride).set(query);
  const outOffset = queryOffset + stride * 2;
  kernel.scan(0, rows.length, stride, queryOffset, outOffset);
  return [...new Int32Array(kernel.memory.buffer, outOffset, rows.length)];
}

describe('int8 dot kernel', () => {
  it('runs as WebAssembly SIMD on this Node, and gives the JS fallback\'s integers bit for bit', () => {
    const simd = createDotKernel();
    expect(simd.kind).toBe('wasm-simd');
    const random = seededRandom(3);
    for (const stride of [8, 16, 24, 32, 104]) {
      const rows = Array.from({ length: 37 }, () => Int8Array.from({ length: stride }, () => Math.round(random() * 254) - 127));
      const query = Int16Array.from({ length: stride }, () => Math.round(random() * 65_534) - 32_767);
      const expected = rows.map((row) => row.reduce((sum, value, index) => sum + value * (query[index] as number), 0));
      expect(runScan(simd, rows, query)).toEqual(expected);
      expect(runScan(jsDotKernel(), rows, query)).toEqual(expected);
    }
  });
});

/** Random dot products, scales and norms (ties and ineligible rows among them) run through a kernel's pass. */
function runBounds(kernel: DotKernel, rows: number, limit: number, keep: boolean, seed: number): { count: number; bytes: number[] } {
  const random = seededRandom(seed);
  const base = 1024;
  const room = Math.ceil(rows / 8) * 8;
  const layout: BoundsLayout = { dots: base, scales: base + room * 4, errors: base + room * 12, norms: base + room * 20, approximates: base + room * 28, candidates: base + room * 36, eligible: base + room * 40, heap: base + room * 48, out: base + room * 48 + limit * 8 };
  const need = layout.out + 16;
  if (kernel.memory.buffer.byteLength < need) kernel.memory.grow(Math.ceil((need - kernel.memory.buffer.byteLength) / 65_536));
  const buffer = kernel.memory.buffer;
  new Uint8Array(buffer).fill(0);
  // Few distinct values, so that equal bounds are common.
  new Int32Array(buffer, layout.dots, rows).set(Int32Array.from({ length: rows }, () => Math.round(random() * 40) - 20));
  new Float64Array(buffer, layout.scales, rows).set(Float64Array.from({ length: rows }, () => 0.001 * Math.ceil(random() * 3)));
  new Float64Array(buffer, layout.errors, rows).set(Float64Array.from({ length: rows }, () => 0.01 * Math.ceil(random() * 3)));
  new Float64Array(buffer, layout.norms, rows).set(Float64Array.from({ length: rows }, () => random()));
  new Uint8Array(buffer, layout.eligible, rows).set(Uint8Array.from({ length: rows }, () => (random() < 0.8 ? 1 : 0)));
  const count = kernel.bounds(layout, rows, keep, limit, { base: 0.25, step: 0.5, queryNorm: 1, queryError: 0.001, slack: 1e-9 });
  return { count, bytes: [...new Uint8Array(buffer, layout.approximates, layout.out + 16 - layout.approximates)] };
}

describe('kernel module', () => {
  it('is int8-dot.wat assembled, and its scan alone is the scan-only kernel\'s bytes', async () => {
    const text = readFileSync(new URL('../src/retrieval/int8-dot.wat', import.meta.url), 'utf8');
    expect([...kernelBytes()]).toEqual([...(await assembleWat(text))]);
    // The scan alone (16 columns a step), pinned as wabt 1.0.39's wat2wasm assembles it.
    const scanOnly = `${text.slice(0, text.indexOf('  (func (export "bounds")'))})`;
    const wabt = 'AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcRAgZtZW1vcnkCAARzY2FuAAAKiQIBhgIDA38DewF/IAQgAUECdGohBSACQXBxIQcCQANAIAQgBU8NAf0MAAAAAAAAAAAAAAAAAAAAACEI/QwAAAAAAAAAAAAAAAAAAAAAIQlBACEGAkAgB0UNAANAIAAgBmr9AAQAIQogAyAGQQF0aiELIAggCv2HASAL/QAEAP26Af2uASEIIAkgCv2IASAL/QAEEP26Af2uASEJIAZBEGohBiAGIAdJDQALCyAGIAJJBEAgCCAAIAZq/QEDACADIAZBAXRq/QAEAP26Af2uASEICyAIIAn9rgEhCCAEIAj9GwAgCP0bAWogCP0bAiAI/RsDamo2AgAgACACaiEAIARBBGohBAwACwsL';
    expect(Buffer.from(await assembleWat(scanOnly)).toString('base64')).toBe(wabt);
  });

  it('picks the same candidates, approximate scores and floor in WebAssembly as the JS fallback', () => {
    for (const [seed, rows] of [1000, 1, 7, 333].entries()) {
      for (const limit of [1, 3, 10, 400]) {
        for (const keep of [true, false]) {
          const wasm = runBounds(createDotKernel(), rows, limit, keep, seed);
          expect(wasm).toEqual(runBounds(jsDotKernel(), rows, limit, keep, seed));
          // The floor prunes: fewer candidates than eligible rows, more than the limit (the bounds overlap).
          if (rows === 1000 && limit === 10) expect(wasm.count).toBeGreaterThan(limit);
          if (rows === 1000 && limit === 10) expect(wasm.count).toBeLessThan(700);
        }
      }
    }
  });
});

describe('the kernel\'s sums', () => {
  it('are ScoreStatistics.addMany\'s doubles bit for bit, in WebAssembly and JS, continued from any sums', () => {
    const random = seededRandom(5);
    for (const count of [0, 1, 7, 5000]) {
      const scores = Float64Array.from({ length: count }, () => (random() - 0.3) * 1.7);
      const reference = new ScoreStatistics();
      reference.add(0.1);
      reference.add(-0.37);
      const { sum, sumOfSquares } = reference;
      reference.addMany(scores, null, count);
      for (const kernel of [createDotKernel(), jsDotKernel()]) {
        const need = count * 8 + 64;
        if (kernel.memory.buffer.byteLength < need) kernel.memory.grow(Math.ceil(need / 65_536));
        new Float64Array(kernel.memory.buffer, 0, count).set(scores);
        kernel.sums(0, count, sum, sumOfSquares, count * 8 + 16);
        expect([...new Float64Array(kernel.memory.buffer, count * 8 + 16, 2)]).toEqual([reference.sum, reference.sumOfSquares]);
      }
      const buffer = new ArrayBuffer(count * 8 + 32);
      new Float64Array(buffer, 0, count).set(scores);
      jsSums(buffer, 0, count, sum, sumOfSquares, count * 8 + 16);
      expect([...new Float64Array(buffer, count * 8 + 16, 2)]).toEqual([reference.sum, reference.sumOfSquares]);
    }
  });
});

describe('QuantizedVectors', () => {
  const rows = vectors(3000, 100, 11);
  const exact = (query: Float32Array) => (slot: number) => dotProduct(rows[slot] as Float32Array, 0, query, query.length);

  it('returns exactly the float32 top k, scores included, filtered or not', () => {
    const quantized = QuantizedVectors.build(rows.length, (slot) => rows[slot] ?? null);
    for (const [seed, query] of vectors(20, 100, 99).entries()) {
      for (const limit of [1, 10, 50]) {
        expect(quantized.search(query, limit, exact(query))).toEqual(floatScan(rows, query, limit));
        const odd = (slot: number) => slot % 2 === 1 || slot === seed;
        expect(quantized.search(query, limit, exact(query), odd)).toEqual(floatScan(rows, query, limit, odd));
      }
    }
  });

  it('tells which slots it scores before scoring them, in at most two rounds, and still returns the float32 top k', () => {
    const quantized = QuantizedVectors.build(rows.length, (slot) => rows[slot] ?? null);
    for (const query of vectors(10, 100, 7)) {
      const told = new Set<number>();
      let rounds = 0;
      const score = exact(query);
      const counted = (slot: number) => {
        expect(told.has(slot)).toBe(true);
        return score(slot);
      };
      const result = quantized.search(query, 10, counted, undefined, undefined, (slots) => {
        rounds++;
        for (const slot of slots) told.add(slot);
      });
      expect(result).toEqual(floatScan(rows, query, 10));
      expect(rounds).toBeLessThanOrEqual(2);
    }
  });

  it('exactTop scores a candidate only while its bound can still reach the top, and a NaN met has every one scored in slot order', () => {
    const scores = new Map([[4, 0.85], [9, 0.45], [12, 0.7]]);
    const asked: number[] = [];
    const score = (slot: number) => {
      asked.push(slot);
      return scores.get(slot) as number;
    };
    const told: number[][] = [];
    expect(exactTop([4, 9, 12], [0.9, 0.5, 0.8], 1, score, (slots) => told.push([...slots]))).toEqual([{ slot: 4, score: 0.85 }]);
    // 12's bound (0.8) is below 4's score: never asked; 9 neither.
    expect(asked).toEqual([4]);
    expect(told).toEqual([[4]]);
    asked.length = 0;
    expect(exactTop([4, 9, 12], [0.9, 0.5, 0.8], 2, score)).toEqual([{ slot: 4, score: 0.85 }, { slot: 12, score: 0.7 }]);
    expect(asked).toEqual([4, 12]);
    // A NaN (outside any bound): every candidate scored, pushed in slot order, as scoring all did.
    scores.set(12, Number.NaN);
    const all = new TopK(2);
    for (const slot of [4, 9, 12]) all.push(slot, scores.get(slot) as number);
    expect(exactTop([4, 9, 12], [0.9, 0.5, 0.8], 2, (slot) => scores.get(slot) as number)).toEqual(all.sorted());
  });

  it('exactTop equals scoring every candidate, for any bounds at or above the scores, ties included (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 3 })), { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), (pairs, limit) => {
        // Coarse scores (ties) and bounds at or above them; slots in ascending order, as the scan lists them.
        const slots = pairs.map((_, index) => 3 * index + 1);
        const scores = pairs.map(([score]) => score / 2);
        const uppers = pairs.map(([score, slack]) => score / 2 + slack / 4);
        const all = new TopK(limit);
        slots.forEach((slot, index) => all.push(slot, scores[index] as number));
        const asked: number[] = [];
        const told: number[] = [];
        const result = exactTop(slots, uppers, limit, (slot) => {
          asked.push(slot);
          return scores[slots.indexOf(slot)] as number;
        }, (given) => told.push(...given));
        expect(result).toEqual(all.sorted());
        expect(new Set(asked).size).toBe(asked.length);
        expect(asked.every((slot) => told.includes(slot))).toBe(true);
      }),
      { seed: 17, numRuns: 300 },
    );
  });

  // A build writes the scales and norms straight into the scan's memory (as a copy read from a snapshot holds them),
  // not into arrays of their own copied there at the first search: the same rows, results and written bytes.
  it('builds its scales and norms in the scan memory only, searching and writing as rows set one by one', () => {
    const centre = rows.reduce((sum, row) => sum.map((value, index) => value + (row[index] as number) / rows.length), new Array<number>(100).fill(0));
    const withGaps = (slot: number) => (slot % 10 === 3 ? null : (rows[slot] ?? null));
    const built = QuantizedVectors.build(rows.length, withGaps, centre);
    const oneByOne = new QuantizedVectors(centre);
    for (let slot = 0; slot < rows.length; slot++) oneByOne.set(slot, withGaps(slot));
    const bytesOf = (vectors: QuantizedVectors) => {
      const writer = new SnapshotWriter();
      vectors.writeState(writer, 'q');
      return writer.finish({ version: 1 });
    };
    expect(Buffer.compare(bytesOf(built), bytesOf(oneByOne))).toBe(0);
    const reader = SnapshotReader.open(bytesSnapshotFile(bytesOf(built)));
    reader.readApart(QuantizedVectors.sectionsReadInto('q'));
    const read = QuantizedVectors.readState(reader, 'q');
    // No arrays of their own beside the scan's memory (25 bytes a row less): what a copy read back holds.
    expect(built.memoryBytes).toBe(read.memoryBytes);
    const present = (query: Float32Array) => (slot: number) => exact(query)(slot);
    const kept = (slot: number) => withGaps(slot) !== null;
    for (const query of vectors(8, 100, 41)) expect(built.search(query, 10, present(query))).toEqual(floatScan(rows, query, 10, kept));
    // A write after the build gives the arrays back their own memory first; the results follow it.
    built.set(3, rows[3] as Float32Array);
    for (const query of vectors(4, 100, 42)) expect(built.search(query, 10, present(query))).toEqual(floatScan(rows, query, 10, (slot) => slot === 3 || kept(slot)));
  });

  it('stays exact for any data, centre and query (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 12 }), fc.boolean(), (seed, count, limit, centred) => {
        const data = vectors(count, 24, seed);
        const query = vectors(1, 24, seed + 1)[0] as Float32Array;
        const score = (slot: number) => dotProduct(data[slot] as Float32Array, 0, query, 24);
        const quantized = centred ? QuantizedVectors.build(count, (slot) => data[slot] ?? null) : QuantizedVectors.build(count, (slot) => data[slot] ?? null, null);
        expect(quantized.search(query, limit, score)).toEqual(floatScan(data, query, limit));
      }),
      { seed: 42, numRuns: 60 },
    );
  });

  it('breaks ties by the lower slot, skips removed rows, and ranks a zero query exactly', () => {
    const same = rows[5] as Float32Array;
    const data: (Float32Array | null)[] = [rows[1] as Float32Array, same, rows[2] as Float32Array, same, same];
    const quantized = QuantizedVectors.build(data.length, (slot) => data[slot] ?? null);
    const score = (slot: number) => dotProduct(data[slot] as Float32Array, 0, same, same.length);
    expect(quantized.search(same, 2, score).map(({ slot }) => slot)).toEqual([1, 3]);
    quantized.remove(1);
    data[1] = null;
    expect(quantized.search(same, 2, score).map(({ slot }) => slot)).toEqual([3, 4]);
    const zero = new Float32Array(same.length);
    expect(quantized.search(zero, 2, () => 0).map(({ slot }) => slot)).toEqual([0, 2]);
  });

  it('reports the statistics of every accepted row, each within the error bound', () => {
    const quantized = QuantizedVectors.build(rows.length, (slot) => rows[slot] ?? null);
    const query = vectors(1, 100, 5)[0] as Float32Array;
    const statistics = new ScoreStatistics();
    quantized.search(query, 10, exact(query), (slot) => slot < 1000, statistics);
    const reference = new ScoreStatistics();
    for (let slot = 0; slot < 1000; slot++) reference.add(exact(query)(slot));
    expect(statistics.count).toBe(1000);
    expect(statistics.mean).toBeCloseTo(reference.mean, 3);
    expect(statistics.deviation).toBeCloseTo(reference.deviation, 3);
    // A median normaliser gets every score too, and the same sums.
    const median = new MedianStatistics();
    quantized.search(query, 10, exact(query), (slot) => slot < 1000, median);
    expect([median.count, median.sum, median.sumOfSquares]).toEqual([statistics.count, statistics.sum, statistics.sumOfSquares]);
    // Its centre is the kept scores' median (without them it would fall back to the moments: the mean).
    expect(median.mean).not.toBe(statistics.mean);
    expect(median.mean).toBeCloseTo(reference.mean, 1);
  });
});

describe('VectorIndex on the int8 scan', () => {
  it('read from a snapshot (scales and norms in the scan memory only), searches as the copy written, through growth and writes', () => {
    const rows = vectors(3000, 100, 11);
    const exact = (query: Float32Array) => (slot: number) => dotProduct(rows[slot] as Float32Array, 0, query, query.length);
    const written = QuantizedVectors.build(rows.length, (slot) => rows[slot] ?? null);
    const writer = new SnapshotWriter();
    written.writeState(writer, 'q');
    const bytes = writer.finish({ version: 5 });
    const reader = SnapshotReader.open(bytesSnapshotFile(bytes));
    reader.readApart(QuantizedVectors.sectionsReadInto('q'));
    const read = QuantizedVectors.readState(reader, 'q');
    const queries = vectors(6, 100, 31);
    for (const query of queries) expect(read.search(query, 10, exact(query))).toEqual(floatScan(rows, query, 10));
    // A larger limit grows the scan's memory (its old buffer is detached): the scales and norms go with it.
    const before = read.memoryBytes;
    expect(read.search(queries[0] as Float32Array, 3000, exact(queries[0] as Float32Array))).toEqual(floatScan(rows, queries[0] as Float32Array, 3000));
    expect(read.memoryBytes).toBeGreaterThan(before);
    for (const query of queries) expect(read.search(query, 10, exact(query))).toEqual(floatScan(rows, query, 10));
    // Written again, it is the same snapshot.
    const again = new SnapshotWriter();
    read.writeState(again, 'q');
    expect(Buffer.compare(again.finish({ version: 5 }), bytes)).toBe(0);
    // A write (past the capacity: the rows' room grows) and a removal, then the same as a float32 scan.
    const current: (Float32Array | null)[] = [...rows, queries[1] as Float32Array];
    read.set(rows.length, queries[1] as Float32Array);
    read.remove(7);
    current[7] = null;
    const scoreOf = (query: Float32Array) => (slot: number) => dotProduct(current[slot] as Float32Array, 0, query, query.length);
    for (const query of queries) expect(read.search(query, 10, scoreOf(query))).toEqual(floatScan(current, query, 10));
  });

  it('searches the same as before it had an int8 copy, and keeps it in step with later writes', () => {
    const data = vectors(500, 100, 21);
    const index = new VectorIndex();
    data.forEach((vector, slot) => index.set(slot, vector));
    const [query, later] = vectors(2, 100, 22) as [Float32Array, Float32Array];
    expect(index.search(query, 10)).toEqual(floatScan(data, query, 10));
    index.set(500, query);
    index.remove(3);
    const current: (Float32Array | null)[] = [...data, query];
    current[3] = null;
    expect(index.search(query, 5)).toEqual(floatScan(current, query, 5));
    expect(index.search(later, 5)).toEqual(floatScan(current, later, 5));
    expect(index.search(query, 1)[0]).toEqual({ slot: 500, score: dotProduct(query, 0, query, 100) });
  });
});

describe('roundHalfUp', () => {
  it('equals Math.round (zeros compared as numbers), at halves, next to them and on random values', () => {
    const below = (x: number) => x - Math.abs(x) * Number.EPSILON / 2 - Number.MIN_VALUE;
    const tricky = [0, -0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -126.5, 127.49999999999999, 0.49999999999999994, -0.49999999999999994, 0.5000000000000001, 1e-300, -1e-300, 5e-324, 127, -127, 127.00000000000003];
    const halves = Array.from({ length: 257 }, (_, index) => index - 128 + 0.5);
    const random = seededRandom(5);
    const values = [...tricky, ...halves, ...halves.map(below), ...halves.map((x) => -below(-x)), ...Array.from({ length: 100_000 }, () => (random() - 0.5) * 260)];
    for (const value of values) expect(roundHalfUp(value) === Math.round(value), `${value}`).toBe(true);
    expect(Number.isNaN(roundHalfUp(Number.NaN))).toBe(true);
  });
});
