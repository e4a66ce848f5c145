// The MCP server, driven by the SDK's own client: `mnemo mcp` as a child process over stdio, and `mnemo mcp --http` on 127.0.0.1.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import { tempDir } from './helpers.js';
import { MARTA, MARTA_TAGS, SAVE, seedScene } from './serving-fixture.js';

const dir = tempDir();
const ROOT = join(import.meta.dirname, '..');
const CLI = join(import.meta.dirname, 'fixtures', 'cli-child.ts');
const TOOLS = ['add_memory', 'build_context', 'lore_search', 'query_memory', 'recall', 'remember', 'rewind'];

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };

async function seededDatabase(name: string): Promise<string> {
  const path = join(dir, name);
  const memory = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
  await seedScene(memory);
  await memory.add({ saveId: 'other', turnId: 1, text: 'The lighthouse keeper counts gulls.' });
  await memory.close();
  return path;
}

/** The checks both transports pass: the tools with their schemas, and each tool doing its work within the token's saves. */
async function exerciseTools(client: Client, call: (name: string, args: Record<string, unknown>) => Promise<ToolResult>): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
  const context = tools.find((tool) => tool.name === 'build_context');
  expect(context?.inputSchema.required).toEqual(expect.arrayContaining(['saveId', 'character', 'message', 'tags']));
  expect(Object.keys(context?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['budget', 'currentTurnId', 'template', 'variables']));
  for (const tool of tools) expect(tool.description?.length, tool.name).toBeGreaterThan(20);

  const added = await call('add_memory', { saveId: SAVE, turnId: 13, text: 'Kaël returns the letter unopened to Marta.' });
  expect(added.isError).toBeUndefined();
  expect((added.structuredContent?.ids as string[]).length).toBe(1);
  const forged = await call('add_memory', { saveId: SAVE, turnId: 0, text: 'Forged lore: the lantern house is open to all.', chunkType: 'lore' });
  expect(forged.isError).toBe(true);
  expect(forged.content[0]?.text).toMatch(/^error FORBIDDEN: chunks\[0\]\.chunkType/u);
  const loreQuery = await call('query_memory', { saveId: SAVE, query: 'lantern house tidelines', includeLore: true });
  expect(loreQuery.content[0]?.text).toMatch(/^error FORBIDDEN: includeLore/u);
  const query = await call('query_memory', { saveId: SAVE, query: 'letter unopened', k: 3 });
  expect((query.structuredContent?.hits as { text: string }[])[0]?.text).toBe('Kaël returns the letter unopened to Marta.');

  expect((await call('remember', { scope: 'notes', key: 'debt', value: { owed: 3, to: 'Rowan' } })).isError).toBeUndefined();
  const recalled = await call('recall', { query: 'debt', scope: 'notes' });
  expect(recalled.structuredContent?.entries).toEqual([expect.objectContaining({ key: 'debt', value: { owed: 3, to: 'Rowan' } })]);

  const lore = await call('lore_search', { query: 'lantern house tidelines founding', tags: MARTA_TAGS, k: 20 });
  const titles = (lore.structuredContent?.hits as { title: string }[]).map((hit) => hit.title);
  expect(titles).toContain('Founding of Brackwater');
  expect(titles).not.toContain('The Brackwater lantern house');
  expect(titles).not.toContain('The tidelines');
  const withoutTags = await call('lore_search', { query: 'tidelines' }).catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }));
  expect(withoutTags.isError).toBe(true);

  const built = await call('build_context', { saveId: SAVE, character: MARTA, message: 'What about the lantern house and the salt?', tags: MARTA_TAGS, currentTurnId: 13, budget: 800 });
  expect(built.content[0]?.text).toContain('## Who Marta is now');
  expect(built.content[0]?.text).not.toMatch(/lantern house|tidelines/iu);
  expect((built.structuredContent?.tokens as { used: number }).used).toBeLessThanOrEqual(800);

  expect((await call('rewind', { saveId: SAVE, turnId: 12 })).structuredContent).toMatchObject({ chunks: 1 });
  const after = await call('query_memory', { saveId: SAVE, query: 'letter unopened', k: 3 });
  expect((after.structuredContent?.hits as { text: string }[]).map((hit) => hit.text)).not.toContain('Kaël returns the letter unopened to Marta.');

  const forbidden = await call('query_memory', { saveId: 'other', query: 'gulls' });
  expect(forbidden.isError).toBe(true);
  expect(forbidden.content[0]?.text).toMatch(/^error FORBIDDEN: /u);
  const invalid = await call('rewind', { saveId: SAVE, turnId: -4 }).catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }));
  expect(invalid.isError).toBe(true);
}

describe('MCP over stdio', () => {
  let client: Client;
  let transport: StdioClientTransport;

  beforeAll(async () => {
    const path = await seededDatabase('stdio.db');
    transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, '--db', path, '--embedder', 'hashing', 'mcp', '--saves', `${SAVE},notes`], cwd: ROOT, stderr: 'pipe' });
    client = new Client({ name: 'mnemo-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => client?.close());

  it('lists the tools with input schemas and runs each, within the saves it was started with', async () => {
    await exerciseTools(client, async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult);
  });
});

describe('MCP over streamable HTTP', () => {
  const TOKEN = 'mcp-http-token-0123456789';
  let url: string;
  let child: ReturnType<typeof spawn>;
  let exited: Promise<number | null>;

  beforeAll(async () => {
    const path = await seededDatabase('http.db');
    child = spawn(process.execPath, ['--import', 'tsx', CLI, '--db', path, '--embedder', 'hashing', 'mcp', '--http', '--host', '127.0.0.1', '--port', '0', '--token', `${TOKEN}:${SAVE},notes`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout?.on('data', (data: Buffer) => {
        stdout += data.toString();
        const match = /listening on (http:\/\/\S+)/u.exec(stdout);
        if (match !== null) resolve(match[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`mnemo mcp --http exited with ${code}`)));
    });
  });
  afterAll(async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses a client without the token', async () => {
    const client = new Client({ name: 'intruder', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow();
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(answer.status).toBe(401);
  });

  it('lists the tools with input schemas and runs each, within the token\'s saves', async () => {
    const client = new Client({ name: 'mnemo-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      await exerciseTools(client, async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult);
    } finally {
      await client.close();
    }
  });
});
