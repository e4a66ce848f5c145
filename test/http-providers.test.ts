// HTTP providers against an in-process server speaking their protocols: batching, retries, timeouts, bad answers.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { Logger } from '../src/core/logger.js';
import { silentLogger } from '../src/core/logger.js';
import { embedInBatches } from '../src/embedders/embed-in-batches.js';
import { discoverDimensions, openAiCompatibleEmbedder } from '../src/embedders/openai-compatible/index.js';
import { retryAfterMs } from '../src/http/index.js';
import { openMemory } from '../src/open-memory.js';
import { httpReranker } from '../src/rerankers/http/index.js';
import { startProviderServer, vectorFor } from './fixtures/provider-server.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let server: Awaited<ReturnType<typeof startProviderServer>>;
const sleeps: number[] = [];
const sleep = async (milliseconds: number) => { sleeps.push(milliseconds); };

beforeAll(async () => { server = await startProviderServer({ dimensions: 4 }); });
afterAll(async () => { await server.close(); });

const embedder = (options: Partial<Parameters<typeof openAiCompatibleEmbedder>[0]> = {}) =>
  openAiCompatibleEmbedder({ baseUrl: server.baseUrl, apiKey: 'sk-test-secret', model: 'text-embedding-test', dimensions: 4, sleep, ...options });

function fresh() {
  server.script.length = 0;
  server.received.length = 0;
  sleeps.length = 0;
}

describe('OpenAI-compatible embeddings', () => {
  it('batches, sends the model and key, puts vectors back in order and normalises them', async () => {
    fresh();
    const texts = Array.from({ length: 150 }, (_, index) => `text number ${index}`);
    const vectors = await embedInBatches(embedder({ maxBatchSize: 64, providerOptions: { truncate: true } }), texts);
    expect(server.received.map((request) => request.body.input?.length)).toEqual([64, 64, 22]);
    expect(server.received[0]).toMatchObject({ path: '/v1/embeddings', authorization: 'Bearer sk-test-secret', body: { model: 'text-embedding-test', truncate: true } });
    const expected = vectorFor('text number 7', 4);
    const length = Math.hypot(...expected);
    expect([...(vectors[7] as Float32Array)]).toEqual(expected.map((value) => Math.fround(value / length)));
  });

  it('retries a 429, waiting what Retry-After says, then succeeds', async () => {
    fresh();
    server.script.push({ kind: 'status', status: 429, headers: { 'retry-after': '2' } }, { kind: 'status', status: 503 });
    const [vector] = await embedder({ retryBaseMs: 100 }).embed(['hello']);
    expect(vector).toHaveLength(4);
    expect(sleeps).toEqual([2000, 200]);
    expect(server.received).toHaveLength(3);
  });

  it('gives up after maxRetries 5xx answers with PROVIDER_FAILURE naming the URL and attempts', async () => {
    fresh();
    server.script.push(...Array.from({ length: 4 }, () => ({ kind: 'status' as const, status: 500 })));
    const error = await embedder({ maxRetries: 3, retryBaseMs: 10 }).embed(['x']).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'PROVIDER_FAILURE', category: 'THIRD_PARTY', details: { attempts: 4, status: 500 } });
    expect((error as Error).message).toContain(`${server.baseUrl}/embeddings answered 500`);
    expect(sleeps).toEqual([10, 20, 40]);
  });

  it('does not retry a 401, and never shows the key', async () => {
    fresh();
    server.script.push({ kind: 'status', status: 401 });
    const error = await embedder().embed(['x']).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'PROVIDER_FAILURE', details: { status: 401 } });
    expect((error as Error).message).toContain('Check the API key');
    expect(JSON.stringify(error) + (error as Error).message).not.toContain('sk-test-secret');
    expect(server.received).toHaveLength(1);
  });

  it('times out a silent server with PROVIDER_TIMEOUT after its retries', async () => {
    fresh();
    server.script.push({ kind: 'hang' }, { kind: 'hang' });
    const error = await embedder({ timeoutMs: 150, maxRetries: 1, retryBaseMs: 1 }).embed(['x']).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'PROVIDER_TIMEOUT', details: { attempts: 2 } });
    expect((error as Error).message).toContain('no answer within 150 ms');
  });

  it('refuses malformed JSON, a wrong vector count and wrong dimensions with PROVIDER_FAILURE', async () => {
    fresh();
    server.script.push({ kind: 'raw', body: '{"data": [oops' });
    await expect(embedder().embed(['x'])).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('expected a JSON answer') });
    server.script.push({ kind: 'raw', body: '{"data": [{"embedding": "abc", "index": 0}]}' });
    await expect(embedder().embed(['x'])).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('does not match') });
    server.script.push({ kind: 'drop-one' });
    await expect(embedder().embed(['a', 'b'])).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('expected 2 vectors, got 1') });
    server.script.push({ kind: 'dimensions', dimensions: 6 });
    await expect(embedder().embed(['a'])).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('Set dimensions to 6') });
  });

  it('cannot reach a closed port: PROVIDER_FAILURE after retries', async () => {
    const error = await openAiCompatibleEmbedder({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', dimensions: 4, maxRetries: 1, sleep }).embed(['x']).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'PROVIDER_FAILURE', details: { attempts: 2 } });
    expect((error as Error).message).toContain('could not be reached');
  });

  it('discovers the dimensions of a model, and reads Retry-After dates', async () => {
    fresh();
    expect(await discoverDimensions({ baseUrl: server.baseUrl, model: 'm' })).toBe(4);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeNull();
  });

  it('stores and searches through openMemory; a failing server leaves the chunk findable by words', async () => {
    fresh();
    const memory = await openMemory({ path: join(dir, 'http.db'), embedder: embedder({ maxRetries: 0 }), logger: silentLogger });
    await memory.add({ saveId: 's', turnId: 1, text: 'The ferryman waits at the dock.' });
    server.script.push({ kind: 'status', status: 500 });
    await memory.add({ saveId: 's', turnId: 2, text: 'A storm rises over the bay.' });
    const hits = await memory.query('s', 'storm', { k: 2 });
    expect(hits[0]?.text).toContain('storm');
    expect(await memory.store.embeddings.identity()).toEqual({ provider: 'openai-compatible', modelId: 'text-embedding-test', dimensions: 4 });
    await memory.close();
  });

  it('is what the CLI uses for --embedder openai, configured from the environment', async () => {
    fresh();
    const saved = { ...process.env };
    Object.assign(process.env, { MNEMO_OPENAI_BASE_URL: server.baseUrl, MNEMO_OPENAI_API_KEY: 'sk-cli', MNEMO_OPENAI_MODEL: 'tiny', MNEMO_OPENAI_DIMENSIONS: '4' });
    try {
      const output: string[] = [];
      const code = await main(['node', 'mnemo', '--db', join(dir, 'cli.db'), '--embedder', 'openai', 'add', 'camp', '1', 'The', 'bell', 'rings'], { out: (text) => output.push(text), err: (text) => output.push(text) });
      expect(code).toBe(0);
      expect(server.received[0]).toMatchObject({ authorization: 'Bearer sk-cli', body: { model: 'tiny', input: ['The bell rings'] } });
    } finally {
      process.env = saved;
    }
  });
});

describe('HTTP reranker', () => {
  const recording = () => {
    const lines: string[] = [];
    const logger: Logger = { info: (line) => lines.push(line), warn: (line) => lines.push(line) };
    return { lines, logger };
  };

  it('sends query and documents and aligns the scores by index', async () => {
    fresh();
    const reranker = httpReranker({ baseUrl: server.baseUrl, model: 'rerank-test', sleep });
    expect(await reranker.rerank('lamp', ['a lamp', 'a door', 'the lamp room'])).toEqual([0.9, 0.1, 0.9]);
    expect(server.received[0]).toMatchObject({ path: '/v1/rerank', body: { model: 'rerank-test', query: 'lamp', top_n: 3 } });
  });

  it('answers null on failure, a missing score or malformed JSON, logging only the first', async () => {
    fresh();
    const { lines, logger } = recording();
    const reranker = httpReranker({ baseUrl: server.baseUrl, model: 'rerank-test', logger, sleep, maxRetries: 0 });
    server.script.push({ kind: 'status', status: 500 }, { kind: 'drop-one' }, { kind: 'raw', body: 'not json' });
    expect(await reranker.rerank('q', ['a', 'b'])).toBeNull();
    expect(await reranker.rerank('q', ['a', 'b'])).toBeNull();
    expect(await reranker.rerank('q', ['a', 'b'])).toBeNull();
    expect(lines).toHaveLength(1);
    expect(await reranker.rerank('a', ['a', 'b'])).toEqual([0.9, 0.1]);
  });

  it('squashes raw logits a server returns as score', async () => {
    fresh();
    server.script.push({ kind: 'raw', body: JSON.stringify({ results: [{ index: 0, score: 2 }, { index: 1, score: -2 }] }) });
    const scores = await httpReranker({ baseUrl: server.baseUrl, model: 'tei' }).rerank('q', ['a', 'b']);
    expect(scores?.[0]).toBeCloseTo(1 / (1 + Math.exp(-2)));
  });
});
