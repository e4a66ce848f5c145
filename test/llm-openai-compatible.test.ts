// The OpenAI-compatible adapter against an in-process server speaking the protocol: JSON modes, retries, deadlines, cancellation.
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiCompatibleLlm } from '../src/llms/openai-compatible/index.js';
import type { LlmJsonRequest } from '../src/seams/llm.js';
import { startChatServer } from './fake-chat-server.js';
import type { FakeChatServer } from './fake-chat-server.js';

let server: FakeChatServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const summaryRequest: LlmJsonRequest<{ summary: string }> = {
  schemaName: 'mental_model',
  schema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
  parse(value) {
    const summary = (value as { summary?: unknown })?.summary;
    if (typeof summary !== 'string') throw new Error('summary: expected a string');
    return { summary };
  },
};
const ask = [{ role: 'system' as const, content: 'You profile characters.' }, { role: 'user' as const, content: 'Profile Rowan.' }];

function llm(overrides: Partial<ConstructorParameters<typeof OpenAiCompatibleLlm>[0]> = {}) {
  return new OpenAiCompatibleLlm({ baseUrl: server!.baseUrl, model: 'test-model', retryBaseMs: 1, retryMaxMs: 20, ...overrides });
}

describe('OpenAI-compatible LLM', () => {
  it('completes text, sending the model, messages, temperature 0 and the bearer key', async () => {
    server = await startChatServer(() => ({ content: 'Hello, traveller.' }));
    const text = await llm({ apiKey: 'sk-test' }).complete(ask, { maxTokens: 50 });
    expect(text).toBe('Hello, traveller.');
    const [request] = server.requests;
    expect(request?.body).toMatchObject({ model: 'test-model', temperature: 0, max_tokens: 50, messages: ask });
    expect(request?.body.response_format).toBeUndefined();
    expect(request?.headers.authorization).toBe('Bearer sk-test');
  });

  it('asks for json_schema output and parses the answer', async () => {
    server = await startChatServer(() => ({ content: '{"summary":"Rowan is wary."}' }));
    const model = llm();
    expect(await model.json(ask, summaryRequest)).toEqual({ summary: 'Rowan is wary.' });
    const format = server.requests[0]?.body.response_format;
    expect(format?.type).toBe('json_schema');
    expect(format?.json_schema).toMatchObject({ name: 'mental_model', schema: summaryRequest.schema });
    expect(server.requests[0]?.body.messages[0]?.content).toContain('JSON Schema');
  });

  it('falls back to the prompt when the server rejects response_format, and remembers it', async () => {
    server = await startChatServer((request) => request.body.response_format !== undefined
      ? { status: 400, body: '{"error":{"message":"response_format json_schema is not supported"}}' }
      : { content: 'Here you go:\n```json\n{"summary": "Rowan keeps the bridge."}\n```\nAnything else?' });
    const model = llm();
    expect(await model.json(ask, summaryRequest)).toEqual({ summary: 'Rowan keeps the bridge.' });
    expect(await model.json(ask, summaryRequest)).toEqual({ summary: 'Rowan keeps the bridge.' });
    expect(server.requests.map((request) => request.body.response_format === undefined)).toEqual([false, true, true]);
  });

  it('reads JSON embedded in prose in prompt mode', async () => {
    server = await startChatServer(() => ({ content: 'I think {"summary": "A {curious} \\"fox\\"."} fits.' }));
    expect(await llm({ jsonMode: 'prompt' }).json(ask, summaryRequest)).toEqual({ summary: 'A {curious} "fox".' });
    expect(server.requests[0]?.body.response_format).toBeUndefined();
  });

  it('fails with PROVIDER_MALFORMED on an answer without JSON, or JSON of the wrong shape', async () => {
    server = await startChatServer((request) => ({ content: request.index === 1 ? 'I cannot help with that.' : '{"profile": 3}' }));
    await expect(llm().json(ask, summaryRequest)).rejects.toMatchObject({ code: 'PROVIDER_MALFORMED' });
    await expect(llm().json(ask, summaryRequest)).rejects.toMatchObject({ code: 'PROVIDER_MALFORMED', message: expect.stringContaining('mental_model schema') });
  });

  it('fails with PROVIDER_MALFORMED when the body is not a chat completion', async () => {
    server = await startChatServer(() => ({ status: 200, body: '<html>proxy page</html>' }));
    await expect(llm().complete(ask)).rejects.toMatchObject({ code: 'PROVIDER_MALFORMED' });
  });

  it('retries 429 and 5xx with backoff, honouring Retry-After, then succeeds', async () => {
    server = await startChatServer((request) => request.index === 1
      ? { status: 429, body: '{"error":"slow down"}', headers: { 'retry-after': '0' } }
      : request.index === 2 ? { status: 503, body: 'busy' } : { content: 'ok' });
    expect(await llm().complete(ask)).toBe('ok');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries with PROVIDER_FAILURE naming the status', async () => {
    server = await startChatServer(() => ({ status: 500, body: '{"error":"boom"}' }));
    await expect(llm({ maxRetries: 2 }).complete(ask)).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('HTTP 500 after 3 attempts') });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 401 and says to check the key', async () => {
    server = await startChatServer(() => ({ status: 401, body: '{"error":"bad key"}' }));
    await expect(llm().complete(ask)).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('API key') });
    expect(server.requests).toHaveLength(1);
  });

  it('times out a slow answer with PROVIDER_TIMEOUT', async () => {
    server = await startChatServer(() => ({ content: 'late', delayMs: 2_000 }));
    await expect(llm({ timeoutMs: 50 }).complete(ask)).rejects.toMatchObject({ code: 'PROVIDER_TIMEOUT' });
  });

  it('stops at once with CANCELLED when the caller aborts, without retrying', async () => {
    server = await startChatServer(() => ({ hang: true }));
    const controller = new AbortController();
    const pending = llm().complete(ask, { signal: controller.signal });
    // Abort once the server holds the request (a fixed delay can fire before it arrives on a loaded machine).
    const abortWhenHeld = setInterval(() => {
      if (server?.requests.length === 1) {
        clearInterval(abortWhenHeld);
        controller.abort();
      }
    }, 5);
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(server.requests).toHaveLength(1);
    const aborted = AbortSignal.abort();
    await expect(llm().complete(ask, { signal: aborted })).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('retries a dropped connection, then reports the server unreachable', async () => {
    server = await startChatServer(() => ({ destroy: true }));
    await expect(llm({ maxRetries: 1 }).complete(ask)).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('after 2 attempts') });
    expect(server.requests).toHaveLength(2);
    const url = server.baseUrl;
    await server.close();
    server = null;
    const down = new OpenAiCompatibleLlm({ baseUrl: url, model: 'm', maxRetries: 0 });
    await expect(down.complete(ask)).rejects.toMatchObject({ code: 'PROVIDER_FAILURE', message: expect.stringContaining('Check that the server is running') });
  });

  it('refuses a bad configuration with INVALID_INPUT', () => {
    expect(() => new OpenAiCompatibleLlm({ baseUrl: 'localhost:11434', model: 'm' })).toThrow(/baseUrl: expected an http\(s\) URL/);
    expect(() => new OpenAiCompatibleLlm({ baseUrl: 'http://127.0.0.1:1/v1', model: ' ' })).toThrow(/model: expected/);
  });
});
