// The AI SDK adapter, driven by the AI SDK's own mock language model: tool calls round-trip through generateText and streamText against a real SQLite store.
import { join } from 'node:path';
import { generateText, stepCountIs, streamText } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mnemoSystemPrompt, mnemoTools } from '../src/adapters/ai-sdk/index.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { tempDir } from './helpers.js';
import { MARTA, MARTA_TAGS, ORIEL_TAGS, SAVE, seedScene } from './serving-fixture.js';

const dir = tempDir();
type CallOptions = MockLanguageModelV3['doGenerateCalls'][number];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type StreamPart = Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };

/** A model step that calls one tool. */
function callTool(toolName: string, input: Record<string, unknown>, toolCallId = `call-${toolName}`): GenerateResult {
  return { content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
}

/** A model step that answers with text. */
function answer(text: string): GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
}

/** What the model was sent back for a tool call: the text of the tool-result part (or its error). */
function toolResultSent(call: CallOptions, toolCallId: string): string {
  for (const message of call.prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result' || part.toolCallId !== toolCallId) continue;
      const output = part.output;
      if (output.type === 'text' || output.type === 'error-text') return output.value;
      return JSON.stringify(output);
    }
  }
  throw new Error(`no tool result for ${toolCallId} in the prompt`);
}

describe('AI SDK adapter (mnemo-engine/ai-sdk)', () => {
  let memory: Mnemo;

  beforeAll(async () => {
    memory = await openMemory({ path: join(dir, 'agent.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
    await seedScene(memory);
  });
  afterAll(async () => memory?.close());

  it('gives the model query_memory hits as one compact line each, and the full hits to the caller', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [callTool('query_memory', { query: 'smuggled salt cellar', k: 2 }), answer('Under the cellar stairs.')] });
    const result = await generateText({ model, tools: mnemoTools(memory, { saveId: SAVE }), stopWhen: stepCountIs(3), prompt: 'Where is the salt?' });

    expect(result.text).toBe('Under the cellar stairs.');
    const sent = toolResultSent(model.doGenerateCalls[1]!, 'call-query_memory');
    const lines = sent.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^turn 8 · narrative · [0-9a-f]{8}: Marta hides the smuggled salt under the cellar stairs\.$/u);
    expect(sent).not.toMatch(/score|explanation|createdAt|\{/u);
    const [toolResult] = result.steps[0]!.toolResults;
    expect((toolResult?.output as { hits: { turnId: number; explanation: unknown }[] }).hits[0]).toMatchObject({ turnId: 8, explanation: expect.any(Object) });
  });

  it('shows scores only when asked', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [callTool('query_memory', { query: 'smuggled salt cellar', k: 1 }), answer('ok')] });
    await generateText({ model, tools: mnemoTools(memory, { saveId: SAVE, scores: true }), stopWhen: stepCountIs(3), prompt: 'Where is the salt?' });
    expect(toolResultSent(model.doGenerateCalls[1]!, 'call-query_memory')).toMatch(/^turn 8 · narrative · [0-9a-f]{8} · score \d+\.\d{3} \(words #1(, meaning #\d+)?\): /u);
  });

  it('keeps the turn window of the application: nothing after currentTurnId reaches the model', async () => {
    let turn = 5;
    const tools = mnemoTools(memory, { saveId: SAVE, currentTurnId: () => turn });
    const model = new MockLanguageModelV3({ doGenerate: [callTool('query_memory', { query: 'smuggled salt cellar stairs', k: 5 }), answer('ok'), callTool('query_memory', { query: 'smuggled salt cellar stairs', k: 5 }), answer('ok')] });
    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'salt?' });
    const early = toolResultSent(model.doGenerateCalls[1]!, 'call-query_memory');
    expect(early).not.toContain('cellar stairs');
    expect([...early.matchAll(/^turn (\d+)/gmu)].every((match) => Number(match[1]) <= 5)).toBe(true);
    turn = 12;
    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'salt?' });
    expect(toolResultSent(model.doGenerateCalls[3]!, 'call-query_memory')).toContain('cellar stairs');
  });

  it('remembers and recalls across two calls, in the scope the application chose', async () => {
    const tools = mnemoTools(memory, { saveId: SAVE, scope: 'agent-notes' });
    const model = new MockLanguageModelV3({
      doGenerate: [
        callTool('remember', { key: 'player_name', value: 'The player calls himself Kaël of the marsh.' }),
        answer('Noted.'),
        callTool('recall', { query: 'what is the player called?' }),
        answer('Kaël.'),
      ],
    });
    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'I am Kaël of the marsh.' });
    expect(toolResultSent(model.doGenerateCalls[1]!, 'call-remember')).toBe('Remembered player_name [agent-notes]: The player calls himself Kaël of the marsh.');
    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'What is my name?' });
    expect(toolResultSent(model.doGenerateCalls[3]!, 'call-recall').split('\n')[0]).toBe('player_name [agent-notes]: The player calls himself Kaël of the marsh.');
    expect((await memory.recall.get('player_name', 'agent-notes'))?.value).toBe('The player calls himself Kaël of the marsh.');
  });

  it('searches only the lore the character may know', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [callTool('lore_search', { query: 'lantern house tidelines founding', k: 20 }), answer('ok'), callTool('lore_search', { query: 'lantern house tidelines founding', k: 20 }), answer('ok')] });
    await generateText({ model, tools: mnemoTools(memory, { saveId: SAVE, character: MARTA, tags: MARTA_TAGS }), stopWhen: stepCountIs(3), prompt: 'lore?' });
    const marta = toolResultSent(model.doGenerateCalls[1]!, 'call-lore_search');
    expect(marta).toMatch(/^Founding of Brackwater · /mu);
    expect(marta).not.toMatch(/^(The Brackwater lantern house|The tidelines) · /mu);
    await generateText({ model, tools: mnemoTools(memory, { saveId: SAVE, character: 'Oriel', tags: ORIEL_TAGS }), stopWhen: stepCountIs(3), prompt: 'lore?' });
    expect(toolResultSent(model.doGenerateCalls[3]!, 'call-lore_search')).toMatch(/^The Brackwater lantern house · faction \[brackwater, lamplighters\] · [0-9a-f]{8}: /mu);
  });

  it('offers lore_search and build_context only when the application gave tags (and a character)', () => {
    expect(Object.keys(mnemoTools(memory, { saveId: SAVE })).sort()).toEqual(['query_memory', 'recall', 'remember']);
    expect(Object.keys(mnemoTools(memory, { saveId: SAVE, tags: [] })).sort()).toEqual(['lore_search', 'query_memory', 'recall', 'remember']);
    expect(Object.keys(mnemoTools(memory, { saveId: SAVE, tags: MARTA_TAGS, character: MARTA })).sort()).toEqual(['build_context', 'lore_search', 'query_memory', 'recall', 'remember']);
    expect(() => mnemoTools(memory, {} as never)).toThrow(/saveId/u);
  });

  it('builds the context as a tool, and as a system prompt, without empty sections', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [callTool('build_context', { message: 'What about the salt?' }), answer('ok')] });
    await generateText({ model, tools: mnemoTools(memory, { saveId: SAVE, character: MARTA, tags: MARTA_TAGS, currentTurnId: 12, budget: 600 }), stopWhen: stepCountIs(3), prompt: 'salt?' });
    const built = toolResultSent(model.doGenerateCalls[1]!, 'call-build_context');
    expect(built).toContain('## Who Marta is now');
    expect(built).toContain('Marta deals in smuggled salt.');

    const system = await mnemoSystemPrompt(memory, { instructions: 'You are Marta. Answer in character.', saveId: SAVE, character: MARTA, message: 'What about the salt?', tags: MARTA_TAGS, currentTurnId: 12 });
    expect(system.startsWith('You are Marta. Answer in character.\n\n## Who Marta is now\n')).toBe(true);
    const reply = new MockLanguageModelV3({ doGenerate: answer('Salt? Never heard of it.') });
    await generateText({ model: reply, system, prompt: 'What about the salt?' });
    expect(reply.doGenerateCalls[0]!.prompt[0]).toEqual({ role: 'system', content: system });
  });

  it('sends a refused input back to the model as a tool error, and writes nothing', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [callTool('remember', { key: 'mood', value: 'wary', decay: 'soon' }), answer('ok')] });
    await generateText({ model, tools: mnemoTools(memory, { saveId: SAVE, scope: 'errors' }), stopWhen: stepCountIs(3), prompt: 'x' });
    expect(toolResultSent(model.doGenerateCalls[1]!, 'call-remember')).toMatch(/decay: expected/u);
    expect(await memory.recall.get('mood', 'errors')).toBeNull();
  });

  it('works with streamText too', async () => {
    const stream = (parts: StreamPart[]) => ({ stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }) });
    const finish = (reason: 'tool-calls' | 'stop'): StreamPart => ({ type: 'finish', finishReason: { unified: reason, raw: reason }, usage });
    const model = new MockLanguageModelV3({
      doStream: [
        stream([{ type: 'tool-call', toolCallId: 'call-1', toolName: 'query_memory', input: JSON.stringify({ query: 'letter Toll Bridge', k: 1 }) }, finish('tool-calls')]),
        stream([{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'To the Toll Bridge.' }, { type: 'text-end', id: 't' }, finish('stop')]),
      ],
    });
    const result = streamText({ model, tools: mnemoTools(memory, { saveId: SAVE }), stopWhen: stepCountIs(3), prompt: 'Where does the letter go?' });
    expect(await result.text).toBe('To the Toll Bridge.');
    expect(toolResultSent(model.doStreamCalls[1]!, 'call-1')).toMatch(/^turn 12 · narrative · [0-9a-f]{8}: Marta asks Kaël to carry a letter to the Toll Bridge\.$/u);
  });
});
