// Doubly linked chains of slots held in two Int32Arrays (-1 for none): the corpus index's insertion order and its vector-neighbour links.

/**
 * Links `slot` after `tail` (the chain's last slot, -1 when empty); returns the new tail, `slot`. The arrays must
 * already hold `slot` (grow them first).
 *
 * @example
 * ```ts
 * const previous = new Int32Array(4).fill(-1), next = new Int32Array(4).fill(-1);
 * let tail = appendSlot(previous, next, -1, 0); // 0
 * tail = appendSlot(previous, next, tail, 1); // 1; next[0] === 1, previous[1] === 0
 * ```
 */
export function appendSlot(previous: Int32Array, next: Int32Array, tail: number, slot: number): number {
  previous[slot] = tail;
  next[slot] = -1;
  if (tail >= 0) next[tail] = slot;
  return slot;
}

/**
 * Takes `slot` out of its chain, joining its neighbours; returns the chain's tail afterwards (its predecessor when
 * `slot` was the tail).
 *
 * @example
 * ```ts
 * // chain 0 <-> 1 <-> 2, tail 2
 * const tail = unlinkSlot(previous, next, 2, 1); // 2; next[0] === 2, previous[2] === 0, slot 1 unlinked
 * ```
 */
export function unlinkSlot(previous: Int32Array, next: Int32Array, tail: number, slot: number): number {
  const before = previous[slot] as number;
  const after = next[slot] as number;
  if (before >= 0) next[before] = after;
  if (after >= 0) previous[after] = before;
  previous[slot] = -1;
  next[slot] = -1;
  return tail === slot ? before : tail;
}

/**
 * Chains, in slot order, the slots below `count` whose flag in `live` is 1 (the arrays hold every slot, all -1);
 * returns the tail (-1 when none is live). The same chain as `appendSlot` on each live slot in turn, in one pass.
 *
 * @example
 * ```ts
 * const previous = new Int32Array(3).fill(-1), next = new Int32Array(3).fill(-1);
 * chainLiveSlots(previous, next, new Uint8Array([1, 0, 1]), 3); // 2; next[0] === 2, previous[2] === 0
 * ```
 */
export function chainLiveSlots(previous: Int32Array, next: Int32Array, live: Uint8Array, count: number): number {
  let tail = -1;
  for (let slot = 0; slot < count; slot++) {
    if (live[slot] !== 1) continue;
    previous[slot] = tail;
    if (tail >= 0) next[tail] = slot;
    tail = slot;
  }
  return tail;
}
