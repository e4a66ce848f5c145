// Rerankers: the cross-encoder (injected scorer, real loading path) and the [0, 1] squashing rule.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import type { Logger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import { CROSS_ENCODER_MODEL, crossEncoderReranker } from '../src/rerankers/cross-encoder/index.js';
import { sigmoid, toUnitScores } from '../src/rerankers/unit-scores.js';
import { fakeRuntime, writeModelFolder } from './fixtures/fake-transformers.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (message) => lines.push(`info: ${message}`), warn: (message) => lines.push(`warn: ${message}`) };
}

describe('unit scores', () => {
  it('passes calibrated scores through and squashes logits with a sigmoid', () => {
    expect(toUnitScores([0, 0.4, 1])).toEqual([0, 0.4, 1]);
    expect(toUnitScores([-2, 0.5, 3])).toEqual([sigmoid(-2), sigmoid(0.5), sigmoid(3)]);
    expect(toUnitScores([0.2, 0.9], 'logits')).toEqual([sigmoid(0.2), sigmoid(0.9)]);
    expect(toUnitScores([Number.NaN])).toBeNull();
  });
});

describe('cross-encoder reranker', () => {
  it('scores pairs with an injected model, in batches, squashing logits', async () => {
    const seen: number[] = [];
    const reranker = crossEncoderReranker({ batchSize: 16, scorer: { predict: (pairs) => { seen.push(pairs.length); return pairs.map(([, document]) => (document.startsWith('yes') ? 3 : -3)); } } });
    const documents = Array.from({ length: 40 }, (_, index) => (index % 3 === 0 ? `yes ${index}` : `no ${index}`));
    const scores = await reranker.rerank('query', documents);
    expect(seen).toEqual([16, 16, 8]);
    expect(scores?.[0]).toBeCloseTo(sigmoid(3));
    expect(scores?.[1]).toBeCloseTo(sigmoid(-3));
    expect(await reranker.rerank('query', [])).toEqual([]);
  });

  it('passes scores already in [0, 1] through', async () => {
    const reranker = crossEncoderReranker({ scorer: { predict: (pairs) => pairs.map((_, index) => index / 10) } });
    expect(await reranker.rerank('q', ['a', 'b', 'c'])).toEqual([0, 0.1, 0.2]);
  });

  it('answers null and logs once when the model fails, never throwing', async () => {
    const logger = recordingLogger();
    const reranker = crossEncoderReranker({ logger, scorer: { predict: () => { throw new Error('out of memory'); } } });
    expect(await reranker.rerank('q', ['a'])).toBeNull();
    expect(await reranker.rerank('q', ['b'])).toBeNull();
    expect(logger.lines).toEqual([expect.stringContaining('out of memory')]);
  });

  it('answers null, logged once, when its model is missing (the default: off unless configured)', async () => {
    const logger = recordingLogger();
    const reranker = crossEncoderReranker({ logger, modelDir: join(dir, 'none'), cacheDir: join(dir, 'none-cache') });
    expect(await reranker.rerank('q', ['a', 'b'])).toBeNull();
    expect(await reranker.rerank('q', ['a', 'b'])).toBeNull();
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toContain('MiniLM-L-6-v2');
  });

  it('loads tokenizer and classifier from the local folder and squashes their logits', async () => {
    const modelDir = join(dir, 'models');
    writeModelFolder(modelDir, CROSS_ENCODER_MODEL);
    const calls: unknown[] = [];
    const reranker = crossEncoderReranker({ modelDir, importer: async () => fakeRuntime(calls), logger: silentLogger });
    const scores = await reranker.rerank('lamp', ['the lamp is lit', 'the door is shut']);
    expect(scores?.[0]).toBeCloseTo(sigmoid(4));
    expect(scores?.[1]).toBeCloseTo(sigmoid(-4));
    expect(calls.map((call) => (call as unknown[])[0])).toEqual(['tokenizer', 'classifier']);
  });

  it('re-sorts the head of a query, and each hit says its rerank score', async () => {
    const reranker = crossEncoderReranker({ scorer: { predict: (pairs) => pairs.map(([, document]) => (document.includes('lantern') ? 5 : -5)) } });
    const memory = await openMemory({ path: ':memory:', embedder: hashingEmbedder({ dimensions: 32 }), reranker, logger: silentLogger });
    await memory.add({ saveId: 's', turnId: 1, text: 'The old keeper climbs the stairs of the tower.' });
    await memory.add({ saveId: 's', turnId: 2, text: 'A lantern burns in the keeper window.' });
    await memory.add({ saveId: 's', turnId: 3, text: 'The keeper, the keeper, always the keeper.' });
    const [top] = await memory.query('s', 'keeper', { k: 3 });
    expect(top?.text).toContain('lantern');
    expect(top?.explanation.rerank).toBeCloseTo(sigmoid(5));
    const plain = await memory.query('s', 'keeper', { k: 3, rerank: false });
    expect(plain.every((hit) => hit.explanation.rerank === null)).toBe(true);
    await memory.close();
  });
});
