// The packed-vector decoder kernel: its module is unpack-vector.wat assembled, and it decodes as the JS loop does, to the bit, cut and damaged bytes included.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { isMnemoError } from '../src/core/errors.js';
import { jsUnpackVector, packVector, unpackVector } from '../src/stores/sqlite/packed-vector.js';
import { unpackKernelBytes } from '../src/stores/sqlite/unpack-vector-kernel.js';
import { assembleWat } from '../scripts/assemble-wat.js';

const bitsOf = (vector: Float32Array) => [...new Uint32Array(vector.buffer, vector.byteOffset, vector.length)];

/** The bits `decode` gives for `bytes`, or the STORE_FAILURE it throws (as a string, to compare). */
function outcome(decode: (bytes: Uint8Array) => Float32Array, bytes: Uint8Array): number[] | string {
  try {
    return bitsOf(decode(bytes));
  } catch (error) {
    expect(isMnemoError(error, 'STORE_FAILURE')).toBe(true);
    return (error as Error).message;
  }
}

describe('unpack-vector kernel', () => {
  it('is unpack-vector.wat assembled', async () => {
    const text = readFileSync(new URL('../src/stores/sqlite/unpack-vector.wat', import.meta.url), 'utf8');
    expect([...unpackKernelBytes()]).toEqual([...(await assembleWat(text))]);
  });

  it('gives the JS loop\'s bits for random floats of every exponent, at any length (seeded)', () => {
    const random = seededRandom(71);
    let packedCount = 0;
    for (const dimensions of [1, 2, 3, 5, 17, 100, 384, 1536, 20_000]) {
      for (let round = 0; round < 40; round++) {
        const bits = new Uint32Array(dimensions);
        // Mostly exponents near the largest (as embeddings), some far off (escaped), some zeros and subnormals.
        const top = 100 + Math.floor(random() * 60);
        for (let index = 0; index < dimensions; index++) {
          const pick = random();
          const exponent = pick < 0.05 ? 0 : pick < 0.15 ? Math.floor(random() * top) : top - Math.floor(random() * 12);
          bits[index] = ((random() < 0.5 ? 0x80000000 : 0) | (exponent << 23) | Math.floor(random() * 0x800000)) >>> 0;
        }
        const vector = new Float32Array(bits.buffer);
        const packed = packVector(vector);
        if (packed === null) continue;
        packedCount++;
        const decoded = unpackVector(packed);
        expect(bitsOf(decoded)).toEqual(bitsOf(jsUnpackVector(packed)));
        expect(bitsOf(decoded)).toEqual([...bits]);
      }
    }
    expect(packedCount).toBeGreaterThan(150);
  });

  it('agrees with the JS loop on cut, padded and damaged bytes: the same floats or the same STORE_FAILURE', () => {
    const random = seededRandom(23);
    let refused = 0;
    for (let round = 0; round < 400; round++) {
      const vector = Float32Array.from({ length: 1 + Math.floor(random() * 200) }, () => (random() * 2 - 1) * 2 ** Math.floor(random() * 6 - 3));
      const packed = packVector(vector);
      if (packed === null) continue;
      const bytes = Uint8Array.from(packed);
      const change = random();
      let bad: Uint8Array;
      if (change < 0.3) bad = bytes.subarray(0, Math.floor(random() * bytes.length));
      else if (change < 0.4) bad = Uint8Array.from([...bytes, 0, 0, 0, 0]);
      else {
        bad = bytes;
        for (let flip = 0; flip < 3; flip++) {
          const at = Math.floor(random() * bad.length);
          bad[at] = (bad[at] as number) ^ (1 << Math.floor(random() * 8));
        }
      }
      const js = outcome(jsUnpackVector, bad);
      if (typeof js === 'string') refused++;
      expect(outcome(unpackVector, bad)).toEqual(js);
    }
    expect(refused).toBeGreaterThan(50);
  });
});
