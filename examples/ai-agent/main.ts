// An AI SDK agent with Mnemo's memory tools: `npx tsx examples/ai-agent/main.ts [--db agent.db] [--save chat-1] [--embedder auto]`.
// Each line you type is one turn. With MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL (and MNEMO_LLM_API_KEY if needed) it talks to
// that OpenAI-compatible server (Ollama: http://127.0.0.1:11434/v1); otherwise to an offline stand-in model.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs } from 'ai';
import type { LanguageModel } from 'ai';
import { openMemory } from 'mnemo-engine';
import type { EmbedderName } from 'mnemo-engine';
import { mnemoTools } from 'mnemo-engine/ai-sdk';
import { offlineModel } from './offline-model.js';

const INSTRUCTIONS = [
  'You are a helpful assistant with a long-term memory.',
  'When the user tells you something about themselves, call remember. Before answering a question about the user, call recall;',
  'before answering a question about what happened earlier in the conversation, call query_memory. Answer in one or two sentences.',
].join(' ');

const { values } = parseArgs({ options: { db: { type: 'string', default: 'agent.db' }, save: { type: 'string', default: 'chat-1' }, embedder: { type: 'string', default: 'auto' } } });
const baseURL = process.env['MNEMO_LLM_BASE_URL'] || undefined; // unset or empty: no server
const modelName = process.env['MNEMO_LLM_MODEL'] || undefined;
const model: LanguageModel = baseURL !== undefined && modelName !== undefined
  ? createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey: process.env['MNEMO_LLM_API_KEY'] || undefined }).chatModel(modelName)
  : offlineModel();

const memory = await openMemory({ path: values.db, embedder: values.embedder as EmbedderName });
try {
  const saveId = values.save;
  let turn = (await memory.listSaves()).find((save) => save.saveId === saveId)?.maxTurnId ?? 0;
  const tools = mnemoTools(memory, { saveId, currentTurnId: () => turn });
  console.log(`Agent on save ${saveId} (turn ${turn}), model ${baseURL === undefined || modelName === undefined ? 'offline stand-in' : `${modelName} at ${baseURL}`}.`);
  for await (const line of createInterface({ input: process.stdin, terminal: false })) {
    const message = line.trim();
    if (message === '') continue;
    if (message === 'quit') break;
    console.log(`you> ${message}`);
    turn += 1;
    const result = await generateText({ model, system: INSTRUCTIONS, tools, stopWhen: stepCountIs(4), prompt: message });
    for (const call of result.steps.flatMap((step) => step.toolCalls)) console.log(`  [tool] ${call?.toolName} ${JSON.stringify(call?.input)}`);
    console.log(`agent> ${result.text}`);
    // the turn is written once answered, so the tools searched the conversation before it
    await memory.addMany([{ saveId, turnId: turn, chunkType: 'dialogue', text: `User: ${message}` }, { saveId, turnId: turn, chunkType: 'dialogue', text: `Assistant: ${result.text}` }]);
  }
} finally {
  await memory.close();
}
