// newTimeOrderedId: canonical version-7 UUIDs whose first 48 bits are the millisecond, strictly increasing within a process (a full millisecond and a clock going back included).
import { describe, expect, it } from 'vitest';
import { newTimeOrderedId } from '../src/core/ids.js';
import { storedChunkId } from '../src/stores/sqlite/chunk-ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('newTimeOrderedId', () => {
  it('makes canonical v7 UUIDs, stored as 16 bytes, their time the millisecond given', () => {
    const now = Date.now();
    const id = newTimeOrderedId(now + 10_000);
    expect(id).toMatch(V7);
    expect(msOf(id)).toBe(now + 10_000);
    expect(Buffer.isBuffer(storedChunkId(id))).toBe(true);
    expect(msOf(newTimeOrderedId())).toBeGreaterThanOrEqual(now + 10_000);
  });

  it('is strictly increasing as text and as bytes, through 10,000 ids in one millisecond and a clock going back', () => {
    // A day ahead of the clock (and of the ids made above).
    const start = Date.now() + 86_400_000;
    const ids = [
      ...Array.from({ length: 10_000 }, () => newTimeOrderedId(start)),
      ...Array.from({ length: 50 }, (_, at) => newTimeOrderedId(start - 5_000 + at)),
      newTimeOrderedId(start + 10),
    ];
    for (let at = 1; at < ids.length; at++) {
      expect(ids[at - 1]! < ids[at]!).toBe(true);
      expect(Buffer.compare(storedChunkId(ids[at - 1]!) as Buffer, storedChunkId(ids[at]!) as Buffer)).toBe(-1);
    }
    expect(ids.every((id) => V7.test(id))).toBe(true);
    // 4,096 a millisecond: the time runs ahead of the clock by one millisecond at a time, then the clock catches up.
    expect(msOf(ids[0]!)).toBe(start);
    expect(msOf(ids[4095]!)).toBe(start);
    expect(msOf(ids[4096]!)).toBe(start + 1);
    expect(msOf(ids[10_049]!)).toBe(start + 2);
    expect(msOf(ids[10_050]!)).toBe(start + 10);
    // 62 random bits: no two alike.
    expect(new Set(ids.map((id) => id.slice(19))).size).toBe(ids.length);
  });
});
