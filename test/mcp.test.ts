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
const TOOLS = ['add_memory', 'build_context', 'delete_chunks', 'delete_save', 'export_save', 'fork_save', 'import_save', 'list_beliefs', 'list_facts', 'list_mental_models', 'list_saves', 'lore_search', 'query_memory', 'recall', 'remember', 'rewind'];
const WRITERS = { add_memory: { destructiveHint: false, idempotentHint: false }, delete_chunks: { destructiveHint: true, idempotentHint: true }, delete_save: { destructiveHint: true, idempotentHint: true }, fork_save: { destructiveHint: false, idempotentHint: false }, import_save: { destructiveHint: false, idempotentHint: false }, remember: { destructiveHint: true, idempotentHint: true }, rewind: { destructiveHint: true, idempotentHint: true } } as Record<string, object>;

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
  for (const tool of tools) {
    expect(tool.description?.length, tool.name).toBeGreaterThan(20);
    expect(tool.title?.length, tool.name).toBeGreaterThan(5);
    expect(tool.annotations, tool.name).toMatchObject({ title: tool.title, openWorldHint: false, readOnlyHint: WRITERS[tool.name] === undefined, ...WRITERS[tool.name] });
    for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) expect((schema as { description?: string }).description, `${tool.name}.${field}`).toMatch(/\S/u);
  }
  expect(client.getInstructions()).toMatch(/rewind deletes everything of a save after a turn[\s\S]*always pass its tags/u);

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
  const lines = query.content[0]?.text.split('\n') ?? [];
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^turn 13 · narrative · [0-9a-f]{8}: Kaël returns the letter unopened to Marta\.$/u);
  expect((await call('query_memory', { saveId: SAVE, query: 'letter unopened', k: 1, scores: true })).content[0]?.text).toMatch(/^turn 13 · narrative · [0-9a-f]{8} · score \d+\.\d{3} \(words #1/u);

  // delete_chunks: a stray chunk goes by its id (a second delete finds nothing), and a call naming neither ids nor entryId is refused.
  const stray = await call('add_memory', { saveId: SAVE, turnId: 13, text: 'A stray note about a copper kettle.', entryId: 'stray-note' });
  const strayIds = stray.structuredContent?.ids as string[];
  expect((await call('delete_chunks', { saveId: SAVE, ids: strayIds })).content[0]?.text).toBe(`Deleted 1 chunk from ${SAVE}.`);
  expect((await call('delete_chunks', { saveId: SAVE, ids: strayIds })).structuredContent).toEqual({ chunks: 0 });
  expect((await call('query_memory', { saveId: SAVE, query: 'copper kettle', k: 3 })).content[0]?.text).not.toContain('copper kettle');
  await call('add_memory', { saveId: SAVE, turnId: 13, text: 'Another stray note about the copper kettle.', entryId: 'stray-note' });
  expect((await call('delete_chunks', { saveId: SAVE, entryId: 'stray-note' })).content[0]?.text).toBe(`Deleted 1 chunk from ${SAVE}.`);
  expect((await call('delete_chunks', { saveId: SAVE })).content[0]?.text).toMatch(/^error INVALID_INPUT: /u);
  expect((await call('delete_chunks', { saveId: 'other', ids: strayIds })).content[0]?.text).toMatch(/^error FORBIDDEN: /u);

  expect((await call('list_saves', {})).content[0]?.text).toMatch(new RegExp(`^${SAVE} · 14 chunks · turns 0-13 · 4 facts · 3 beliefs · 1 model$`, 'mu'));
  expect((await call('list_facts', { saveId: SAVE, entity: 'Rowan' })).content[0]?.text).toMatch(/^turn 11 · fact \d+: Rowan threatened Marta over a debt\.\nturn 3 · fact \d+: Rowan gave Marta a sack of untaxed salt\.$/u);
  expect((await call('list_beliefs', { saveId: SAVE, subject: MARTA })).content[0]?.text).toMatch(/^belief \d+ · Marta · NEW · 1 fact: Marta fears Rowan\.$/mu);
  expect((await call('list_mental_models', { saveId: SAVE, subject: MARTA })).content[0]?.text).toMatch(/^Marta · turn 11 · model \d+: Marta runs the Sunken Bell/u);

  expect((await call('remember', { scope: 'notes', key: 'debt', value: { owed: 3, to: 'Rowan' } })).content[0]?.text).toBe('Remembered debt [notes]: {"owed":3,"to":"Rowan"}');
  const recalled = await call('recall', { query: 'debt', scope: 'notes' });
  expect(recalled.structuredContent?.entries).toEqual([expect.objectContaining({ key: 'debt', value: { owed: 3, to: 'Rowan' } })]);

  const lore = await call('lore_search', { query: 'lantern house tidelines founding', tags: MARTA_TAGS, k: 20 });
  const titles = (lore.structuredContent?.hits as { title: string }[]).map((hit) => hit.title);
  expect(titles).toContain('Founding of Brackwater');
  expect(titles).not.toContain('The Brackwater lantern house');
  expect(titles).not.toContain('The tidelines');
  const trade = await call('lore_search', { query: 'salt toll market trade', tags: MARTA_TAGS, k: 20, where: { topic: 'trade' } });
  expect((trade.structuredContent?.hits as { title: string }[]).map((hit) => hit.title)).toEqual(['The Salt Toll']);
  expect((await call('lore_search', { query: 'salt', tags: MARTA_TAGS, where: { topic: ['trade'] } })).content[0]?.text).toMatch(/^error INVALID_INPUT: /u);
  const withoutTags = await call('lore_search', { query: 'tidelines' }).catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }));
  expect(withoutTags.isError).toBe(true);

  const built = await call('build_context', { saveId: SAVE, character: MARTA, message: 'What about the lantern house and the salt?', tags: MARTA_TAGS, currentTurnId: 13, budget: 800 });
  expect(built.content[0]?.text).toContain('## Who Marta is now');
  expect(built.content[0]?.text).not.toMatch(/lantern house|tidelines/iu);
  expect((built.structuredContent?.tokens as { used: number }).used).toBeLessThanOrEqual(800);

  const forked = await call('fork_save', { saveId: SAVE, newSaveId: 'notes', atTurn: 13 });
  expect(forked.content[0]?.text).toBe(`Forked ${SAVE} at turn 13 into notes: 14 chunks, 4 facts, 3 beliefs, 1 mental model.`);
  const rewound = await call('rewind', { saveId: SAVE, turnId: 12 });
  expect(rewound.structuredContent).toMatchObject({ chunks: 1 });
  expect(rewound.content[0]?.text).toMatch(new RegExp(`^Rewound ${SAVE} to turn 12: removed 1 chunk, 0 facts, `, 'u'));
  expect((await call('query_memory', { saveId: 'notes', query: 'letter unopened', k: 1 })).content[0]?.text).toContain('Kaël returns the letter unopened to Marta.');
  const exported = await call('export_save', { saveId: 'notes', vectors: false });
  expect(exported.content[0]?.text).toMatch(/^Save file of notes: \d+ lines, [\d,]+ characters \(format mnemo-save\); import_save takes it as it is\.$/u);
  const file = (exported.content[1] as unknown as { resource: { text: string; mimeType: string } }).resource;
  expect(file.mimeType).toBe('application/jsonl');
  // Without an admin token the save's lore chunk stays out of the file (14 chunks in notes, 13 exported).
  const truncated = file.text.split('\n').slice(0, -2).join('\n');
  expect((await call('import_save', { saveId: 'restored', file: truncated })).content[0]?.text).toMatch(/^error SAVE_FILE_INVALID: .*truncated/u);
  expect((await call('list_saves', {})).content[0]?.text).not.toContain('restored');
  expect((await call('import_save', { saveId: 'restored', file: file.text })).content[0]?.text).toBe('Imported notes into restored: 13 chunks (0 with vectors), 4 facts, 3 beliefs, 1 mental model, 0 queued jobs.');
  expect((await call('import_save', { saveId: 'restored', file: file.text })).content[0]?.text).toMatch(/^error CONFLICT: /u);
  expect((await call('query_memory', { saveId: 'restored', query: 'letter unopened', k: 1 })).content[0]?.text).toContain('Kaël returns the letter unopened to Marta.');
  // delete_save: every layer of restored goes; a second delete (or a save that never held anything) gives zeros.
  const deleted = await call('delete_save', { saveId: 'restored' });
  expect(deleted.content[0]?.text).toBe('Deleted restored: removed 13 chunks, 4 facts, 3 beliefs, 1 mental model, 0 queued jobs.');
  expect(deleted.structuredContent).toEqual({ chunks: 13, living: { facts: 4, beliefs: 3, models: 1, jobs: 0 } });
  expect((await call('delete_save', { saveId: 'restored' })).content[0]?.text).toBe('Deleted restored: removed 0 chunks, 0 facts, 0 beliefs, 0 mental models, 0 queued jobs.');
  expect((await call('list_saves', {})).content[0]?.text).not.toContain('restored');
  expect((await call('query_memory', { saveId: 'restored', query: 'letter unopened', k: 1 })).structuredContent?.hits).toEqual([]);
  expect((await call('list_facts', { saveId: 'restored' })).structuredContent?.facts).toEqual([]);
  // The save id is free again: the same file imports into it.
  expect((await call('import_save', { saveId: 'restored', file: file.text })).content[0]?.text).toBe('Imported notes into restored: 13 chunks (0 with vectors), 4 facts, 3 beliefs, 1 mental model, 0 queued jobs.');
  expect((await call('query_memory', { saveId: 'restored', query: 'letter unopened', k: 1 })).content[0]?.text).toContain('Kaël returns the letter unopened to Marta.');
  const otherDelete = await call('delete_save', { saveId: 'other' });
  expect(otherDelete.content[0]?.text).toMatch(/^error FORBIDDEN: /u);
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
    transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, '--db', path, '--embedder', 'hashing', 'mcp', '--saves', `${SAVE},notes,restored`], cwd: ROOT, stderr: 'pipe' });
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
    child = spawn(process.execPath, ['--import', 'tsx', CLI, '--db', path, '--embedder', 'hashing', 'mcp', '--http', '--host', '127.0.0.1', '--port', '0', '--token', `${TOKEN}:${SAVE},notes,restored`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
