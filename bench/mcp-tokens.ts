// Tokens a model reads per MCP query_memory call: the demo story in a save, questions about it, counted with the repo's o200k_base counter.
// Usage: npm run bench:mcp-tokens [-- --k 3,5]
import { benchArgs } from './bench-args.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLogger } from '../src/core/logger.js';
import { demoStory } from '../src/demo/story.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import { LOCAL_OWNER } from '../src/server/access.js';
import { createMcpServer } from '../src/server/mcp/create-mcp-server.js';
import { gptTokenCounter } from '../src/token-counters/index.js';

const { values } = benchArgs(import.meta.url, { options: { k: { type: 'string', default: '3,5' } } });
const QUESTIONS = [
  'Who owns the rusted iron key?',
  'What happened at the lighthouse?',
  'Where did Mira go?',
  'How much is a room at the inn?',
  'What did Rowan say about Tamsin?',
  'Why did the ferry stop running?',
  'What did Kaël find in the well?',
  'Who is Oren?',
];

type Result = { content: { type: string; text?: string }[]; structuredContent?: unknown };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const memory = await openMemory({ path: ':memory:', embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
await memory.addMany(demoStory().map((turn) => ({ saveId: 'demo', ...turn })));
const server = createMcpServer(memory, LOCAL_OWNER, { logger: silentLogger });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: 'mcp-tokens', version: '1.0.0' });
await client.connect(clientSide);
const counter = await gptTokenCounter();

console.log('k\tcalls\ttext tokens (median, mean)\ttext + structuredContent tokens (median, mean)\tchunk text tokens (median)');
for (const k of values.k.split(',').map(Number)) {
  const text: number[] = [];
  const whole: number[] = [];
  const payload: number[] = [];
  for (const query of QUESTIONS) {
    const result = (await client.callTool({ name: 'query_memory', arguments: { saveId: 'demo', query, k } })) as Result;
    const shown = result.content.map((part) => part.text ?? '').join('\n');
    text.push(counter.count(shown));
    whole.push(counter.count(shown) + (result.structuredContent === undefined ? 0 : counter.count(JSON.stringify(result.structuredContent))));
    const hits = (await memory.query('demo', query, { k })).map((hit) => hit.text).join('\n');
    payload.push(counter.count(hits));
  }
  const mean = (list: number[]) => (list.reduce((sum, value) => sum + value, 0) / list.length).toFixed(1);
  console.log(`${k}\t${QUESTIONS.length}\t${median(text)}, ${mean(text)}\t${median(whole)}, ${mean(whole)}\t${median(payload)}`);
}
await client.close();
await memory.close();
