// CRC-32: the CRC of a run of blocks combined from the blocks' CRCs equals zlib's CRC-32 of the run.
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, crcOfBlocks } from '../src/retrieval/crc32.js';

/** Deterministic pseudo-random bytes. */
function bytesOf(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed >>> 0;
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes;
}

describe('crcOfBlocks', () => {
  it('gives the CRC-32 of the blocks laid end to end, for any run, block size and last block', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    for (const [length, blockBytes, seed] of [[1, 4096, 1], [4096, 4096, 2], [4096 * 20, 4096, 3], [4096 * 33 + 1001, 4096, 4], [99_999, 512, 5], [12, 5, 6]] as const) {
      const data = bytesOf(length, seed);
      const blocks = Math.ceil(length / blockBytes);
      const crcs = Uint32Array.from({ length: blocks }, (_, block) => crc32(data.subarray(block * blockBytes, (block + 1) * blockBytes)));
      const last = length - (blocks - 1) * blockBytes;
      expect(crcOfBlocks(crcs, 0, blocks, blockBytes, last)).toBe(zlib.crc32(data));
      if (blocks > 2) {
        expect(crcOfBlocks(crcs, 1, blocks - 1, blockBytes, blockBytes)).toBe(zlib.crc32(data.subarray(blockBytes, (blocks - 1) * blockBytes)));
        // One block's CRC changed: the combination no longer matches the bytes.
        const wrong = Uint32Array.from(crcs);
        wrong[1] = (wrong[1] as number) ^ 1;
        expect(crcOfBlocks(wrong, 0, blocks, blockBytes, last)).not.toBe(zlib.crc32(data));
      }
    }
  });
});
