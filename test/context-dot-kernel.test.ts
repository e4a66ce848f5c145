// The neighbour-context score kernel: its module is context-dot.wat assembled, and it scores as the JS does, to the bit.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contextKernel, contextKernelBytes, jsContextKernel, mixContext } from '../src/retrieval/context-dot-kernel.js';
import { dotProduct } from '../src/retrieval/vector-index.js';
import { assembleWat } from '../scripts/assemble-wat.js';
import { seededRandom } from '../bench/synthetic-corpus.js';

function randomVector(dims: number, random: () => number): Float32Array {
  return Float32Array.from({ length: dims }, () => random() * 2 - 1);
}

describe('context kernel', () => {
  it('is context-dot.wat assembled', async () => {
    const text = readFileSync(new URL('../src/retrieval/context-dot.wat', import.meta.url), 'utf8');
    expect([...contextKernelBytes()]).toEqual([...(await assembleWat(text))]);
  });

  it('runs as WebAssembly, and gives the JS scores (dotProduct\'s four lanes, or one in order) to the bit', () => {
    const kernel = contextKernel();
    expect(kernel.kind).toBe('wasm');
    const js = jsContextKernel();
    const random = seededRandom(17);
    for (const dims of [1, 3, 4, 7, 100, 384, 5000]) {
      for (let trial = 0; trial < 20; trial++) {
        const own = randomVector(dims, random);
        const previous = trial % 4 === 1 ? null : randomVector(dims, random);
        const next = trial % 4 === 2 ? null : randomVector(dims, random);
        const query = randomVector(dims, random);
        const weight = trial === 3 ? 0 : random();
        const mixed = mixContext(new Float32Array(dims), own, previous, next, weight);
        const four = kernel.score(own, previous, next, weight, query, 4);
        expect(Object.is(four, js.score(own, previous, next, weight, query, 4))).toBe(true);
        expect(Object.is(four, dotProduct(mixed, 0, query, dims))).toBe(true);
        let inOrder = 0;
        for (let index = 0; index < dims; index++) inOrder += (mixed[index] as number) * (query[index] as number);
        const one = kernel.score(own, previous, next, weight, query, 1);
        expect(Object.is(one, js.score(own, previous, next, weight, query, 1))).toBe(true);
        expect(Object.is(one, inOrder)).toBe(true);
      }
    }
    // A zero vector stays zero (no division by a zero norm); vectors of no values score 0.
    const zero = new Float32Array(8);
    expect(kernel.score(zero, null, null, 0.5, randomVector(8, random), 4)).toBe(0);
    const none = new Float32Array(0);
    expect(kernel.score(none, none, none, 0.5, none, 4)).toBe(0);
    expect(kernel.score(none, none, none, 0.5, none, 1)).toBe(0);
  });

  it('makes the context vector normalise(own + w * (previous + next)), each sum stored as float32', () => {
    const mixed = mixContext(new Float32Array(2), new Float32Array([1, 0]), new Float32Array([0, 1]), new Float32Array([0, 1]), 0.5);
    expect([...mixed]).toEqual([Math.fround(1 / Math.SQRT2), Math.fround(1 / Math.SQRT2)]);
  });
});
