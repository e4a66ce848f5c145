// A deterministic synthetic corpus for benchmarks: Zipf-distributed words from a seeded generator.

/** A small seeded PRNG (mulberry32): the same seed gives the same corpus on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A unit-length vector of `dimensions` roughly normal components (as embedders make them), from `random`.
 *
 * @example
 * ```ts
 * const vector = normalEmbedding(seededRandom(7), 100); // Float32Array of norm 1
 * ```
 */
export function normalEmbedding(random: () => number, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let index = 0; index < dimensions; index++) {
    const value = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    vector[index] = value;
    norm += value * value;
  }
  for (let index = 0; index < dimensions; index++) vector[index] = (vector[index] as number) / Math.sqrt(norm);
  return vector;
}

const SYLLABLES = ['ka', 'el', 'mi', 'ra', 'to', 'run', 'dar', 'vel', 'os', 'tin', 'bra', 'lo', 'sen', 'gar', 'fi', 'nu', 'qua', 'zeth', 'mor', 'il'];

/** A vocabulary of `size` invented words. */
export function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const length = 2 + Math.floor(random() * 3);
    let word = '';
    for (let index = 0; index < length; index++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

/**
 * Makes `count` sentences of 12-30 words drawn with Zipf's law (s = 1) from a vocabulary: invented words by
 * default, or `words` (most frequent first), e.g. real English words for an embedder that knows them.
 */
export function* sentences(count: number, seed = 42, vocabularySize = 20_000, words?: readonly string[]): Generator<string> {
  const random = seededRandom(seed);
  if (words === undefined) words = vocabulary(vocabularySize, random);
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let rank = 0; rank < words.length; rank++) cumulative[rank] = total += 1 / (rank + 1);
  const pick = () => {
    const target = random() * total;
    let low = 0;
    let high = words.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return words[low] as string;
  };
  for (let index = 0; index < count; index++) {
    const length = 12 + Math.floor(random() * 19);
    const parts: string[] = [];
    for (let word = 0; word < length; word++) parts.push(pick());
    yield parts.join(' ') + '.';
  }
}
