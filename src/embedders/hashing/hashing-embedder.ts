// A deterministic embedder by feature hashing: no model, no network. For tests and as a stand-in.
import type { Embedder } from '../../seams/embedder.js';
import { tokenize } from '../../retrieval/tokenize.js';

function fnv1a(text: string, seed: number): number {
  let hash = 2166136261 ^ seed;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 16777619);
  }
  return hash >>> 0;
}

/** Options of the hashing embedder. */
export interface HashingEmbedderOptions {
  /** Vector length (default 64). */
  dimensions?: number;
  /** Also hash character trigrams of each word, so near spellings come close (default true). */
  trigrams?: boolean;
}

/**
 * Hashes each word (and its character trigrams) into a signed bucket and normalises the sum. Texts sharing
 * words get similar vectors; it has no notion of meaning beyond that. Same text, same vector, always.
 *
 * @example
 * ```ts
 * const embedder = hashingEmbedder({ dimensions: 32 });
 * const [vector] = await embedder.embed(['the red door']); // Float32Array(32), unit length
 * ```
 */
export function hashingEmbedder(options: HashingEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? 64;
  const trigrams = options.trigrams ?? true;
  const embedOne = (text: string): Float32Array => {
    const vector = new Float32Array(dimensions);
    const add = (feature: string, weight: number) => {
      const hash = fnv1a(feature, 0);
      vector[hash % dimensions] = (vector[hash % dimensions] as number) + (fnv1a(feature, 1) & 1 ? weight : -weight);
    };
    for (const token of tokenize(text)) {
      add(`w:${token}`, 1);
      if (trigrams && token.length > 3) for (let start = 0; start + 3 <= token.length; start++) add(`t:${token.slice(start, start + 3)}`, 0.3);
    }
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let index = 0; index < dimensions; index++) vector[index] = (vector[index] as number) / norm;
    return vector;
  };
  return {
    provider: 'hashing',
    modelId: `hashing-${dimensions}${trigrams ? '-trigrams' : ''}`,
    dimensions,
    maxBatchSize: 1024,
    cacheable: false,
    embed: async (texts) => texts.map(embedOne),
  };
}
