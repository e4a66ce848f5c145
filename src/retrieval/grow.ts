// Growable typed arrays: double the capacity when full, keep the prefix.

/** Returns `array` if it can hold `needed` items, else a copy with doubled (or larger) capacity. */
export function grow<T extends Int32Array | Float32Array | Float64Array | Uint8Array | Uint16Array>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  let capacity = Math.max(16, array.length);
  while (capacity < needed) capacity *= 2;
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}

/**
 * Returns `array` if it holds `capacity` items, else a copy of exactly `capacity` (for a size known in advance,
 * so a bulk load neither over-allocates nor copies as it goes).
 *
 * @example
 * ```ts
 * reserve(new Int32Array(4), 100_000).length; // 100000
 * ```
 */
export function reserve<T extends Int32Array | Float32Array | Float64Array | Uint8Array | Uint16Array>(array: T, capacity: number): T {
  if (capacity <= array.length) return array;
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}
