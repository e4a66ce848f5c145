// Slot chains: appending and unlinking keep both directions and the tail consistent.
import { describe, expect, it } from 'vitest';
import { appendSlot, chainLiveSlots, unlinkSlot } from '../src/retrieval/slot-chain.js';

function walk(previous: Int32Array, next: Int32Array, tail: number): { forward: number[]; backward: number[] } {
  const backward: number[] = [];
  for (let slot = tail; slot >= 0; slot = previous[slot] as number) backward.push(slot);
  const forward: number[] = [];
  for (let slot = backward.at(-1) ?? -1; slot >= 0; slot = next[slot] as number) forward.push(slot);
  return { forward, backward: backward.reverse() };
}

describe('slot chains', () => {
  it('appends in order and unlinks a middle, the head and the tail', () => {
    const previous = new Int32Array(5).fill(-1);
    const next = new Int32Array(5).fill(-1);
    let tail = -1;
    for (const slot of [0, 1, 2, 3, 4]) tail = appendSlot(previous, next, tail, slot);
    expect(walk(previous, next, tail)).toEqual({ forward: [0, 1, 2, 3, 4], backward: [0, 1, 2, 3, 4] });
    tail = unlinkSlot(previous, next, tail, 2);
    expect(walk(previous, next, tail)).toEqual({ forward: [0, 1, 3, 4], backward: [0, 1, 3, 4] });
    tail = unlinkSlot(previous, next, tail, 4);
    expect(tail).toBe(3);
    tail = unlinkSlot(previous, next, tail, 0);
    expect(walk(previous, next, tail)).toEqual({ forward: [1, 3], backward: [1, 3] });
    expect([previous[2], next[2], previous[0], next[0], previous[4], next[4]]).toEqual([-1, -1, -1, -1, -1, -1]);
    tail = appendSlot(previous, next, tail, 2);
    expect(walk(previous, next, tail)).toEqual({ forward: [1, 3, 2], backward: [1, 3, 2] });
  });

  it('empties a chain of one', () => {
    const previous = new Int32Array(1).fill(-1);
    const next = new Int32Array(1).fill(-1);
    const tail = unlinkSlot(previous, next, appendSlot(previous, next, -1, 0), 0);
    expect(tail).toBe(-1);
  });

  it('chains the live slots in one pass as appending each in turn does', () => {
    let state = 7;
    for (const count of [0, 1, 2, 17, 200]) {
      const live = new Uint8Array(count).map(() => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 3 === 0 ? 0 : 1));
      const appended = { previous: new Int32Array(count).fill(-1), next: new Int32Array(count).fill(-1), tail: -1 };
      for (let slot = 0; slot < count; slot++) if (live[slot] === 1) appended.tail = appendSlot(appended.previous, appended.next, appended.tail, slot);
      const previous = new Int32Array(count).fill(-1);
      const next = new Int32Array(count).fill(-1);
      const tail = chainLiveSlots(previous, next, live, count);
      expect({ previous: [...previous], next: [...next], tail }).toEqual({ previous: [...appended.previous], next: [...appended.next], tail: appended.tail });
    }
  });
});
