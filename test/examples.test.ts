// The example applications under examples/, run as a user runs them (node --import tsx examples/<name>/main.ts, commands on stdin), with the default embedder.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChatServer } from './fake-chat-server.js';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..');
const EXAMPLES = join(ROOT, 'examples');
const dir = tempDir();
const APPLICATIONS = ['ai-agent', 'mud-npc', 'text-adventure'];

/** Runs an example with these lines on stdin; resolves to its stdout once it exits 0 (rejects with its stderr otherwise). */
function runExample(name: string, args: string[], lines: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MNEMO_LLM_')));
    const child = spawn(process.execPath, ['--import', 'tsx', join('examples', name, 'main.ts'), ...args], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => { stdout += data.toString(); });
    child.stderr.on('data', (data: Buffer) => { stderr += data.toString(); });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${name} exited with ${code}:\n${stderr}\n${stdout}`))));
    child.stdin.end(`${lines.join('\n')}\n`);
  });
}

/** The lines of a transcript after the one that echoes `command` (up to the next command). */
function answerTo(transcript: string, command: string, occurrence = 1): string[] {
  const lines = transcript.split('\n');
  let seen = 0;
  const start = lines.findIndex((line) => line === `> ${command}` && ++seen === occurrence);
  if (start === -1) throw new Error(`no "> ${command}" in:\n${transcript}`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('> '));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

describe('examples', () => {
  it('each application has a README, and imports the package only through entry points it exports', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, { import: string }> };
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
    // tsconfig maps each entry point to its source, so examples and typecheck read src/ as a user's import reads dist/
    const fromExports = Object.fromEntries(Object.entries(manifest.exports).map(([subpath, target]) => [`${manifest.name}${subpath.slice(1)}`, [target.import.replace(/^\.\/dist\//u, './src/').replace(/\.js$/u, '.ts')]]));
    expect(tsconfig.compilerOptions.paths).toEqual(fromExports);
    expect(readdirSync(EXAMPLES, { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'lore').map((entry) => entry.name).sort()).toEqual(APPLICATIONS);
    for (const name of APPLICATIONS) {
      expect(existsSync(join(EXAMPLES, name, 'README.md')), `${name}/README.md`).toBe(true);
      for (const file of readdirSync(join(EXAMPLES, name)).filter((entry) => entry.endsWith('.ts'))) {
        const source = readFileSync(join(EXAMPLES, name, file), 'utf8');
        for (const [, specifier] of source.matchAll(/from '([^']+)'/gu)) {
          expect(specifier?.startsWith('../../') || specifier?.startsWith('../src'), `${name}/${file} imports ${specifier}: use the package name`).toBe(false);
          if (specifier?.startsWith(manifest.name)) expect(Object.keys(fromExports), `${name}/${file}`).toContain(specifier);
        }
      }
    }
  });

  it('text adventure: "load" rewinds the slot to its save, "save as" forks a new slot that goes its own way', async () => {
    const db = join(dir, 'adventure.db');
    const transcript = await runExample('text-adventure', ['--db', db], [
      'take lantern', 'go tavern', 'take letter', 'save',
      'go cellar', 'take key', 'recall key cellar', 'load', 'recall key cellar',
      'save as smuggler', 'go cellar', 'take key', 'go tavern', 'go docks', 'go bridge', 'open box', 'slots',
      'switch slot-1', 'recall ledger toll box', 'switch smuggler', 'recall ledger toll box', 'quit',
    ]);
    expect(answerTo(transcript, 'save')).toEqual(['Saved slot-1 at turn 3.']);
    expect(answerTo(transcript, 'recall key cellar', 1)).toContain('You remember (turn 5): You take the key from the cellar.');
    expect(answerTo(transcript, 'load')).toEqual(['Loaded slot-1 at turn 3 (2 later turns forgotten). You are at the tavern.']);
    expect(answerTo(transcript, 'recall key cellar', 2).join('\n')).not.toContain('You take the key');
    expect(answerTo(transcript, 'save as smuggler')).toEqual(['Saved as smuggler at turn 3; slot-1 keeps its own story. Now playing smuggler.']);
    expect(answerTo(transcript, 'open box')).toEqual(['You open the toll box with the cellar key: inside lies a ledger of smuggled salt, signed by Rowan.']);
    expect(answerTo(transcript, 'slots')).toEqual(['  slot-1: turns 0-3, saved at turn 3', '* smuggler: turns 0-9, saved at turn 3']);
    expect(answerTo(transcript, 'switch slot-1')).toEqual(['Loaded slot-1 at turn 3. You are at the tavern.']);
    expect(answerTo(transcript, 'recall ledger toll box', 1).join('\n')).not.toContain('ledger');
    expect(answerTo(transcript, 'switch smuggler')).toEqual(['Loaded smuggler at turn 3 (6 later turns forgotten). You are at the tavern.']);
    expect(transcript.trimEnd().endsWith('Goodbye. smuggler is at turn 3.')).toBe(true);

    const again = await runExample('text-adventure', ['--db', db], ['look', 'quit']);
    expect(again.split('\n')[0]).toBe('Loaded slot-1 at turn 3. You are at the tavern.');
  });

  it('MUD NPC: the bartender and the archmage answer from the lore their tags allow, remember who asked, and build the prompt', async () => {
    const db = join(dir, 'mud.db');
    const transcript = await runExample('mud-npc', ['--db', db, '--show-prompt'], [
      'ask marta Who founded Brackwater?', 'ask oriel Who founded Brackwater?', 'ask marta What are the tidelines?', 'ask oriel What are the tidelines?', 'quit',
    ]);
    expect(transcript.split('\n')[0]).toBe('Lore: 34 entries (34 new, 0 changed, 34 embedded). Replies: offline stand-in.');
    const [martaPrompt, martaReply] = splitPrompt(answerTo(transcript, 'ask marta Who founded Brackwater?'));
    expect(martaPrompt).toContain("You are Marta Quill, bartender of the Sunken Bell: warm, gossipy, quick to pour another ale. Kaël is talking to you.");
    expect(martaPrompt).toContain('## What Marta knows about the world\n- ');
    expect(martaPrompt).toContain('- Founding of Brackwater: Brackwater was founded about six hundred years ago');
    expect(martaPrompt).not.toMatch(/- The Brackwater lantern house:|tidelines|## Who Marta is now|## What Marta remembers/u);
    expect(martaReply).toMatch(/^Marta \(knows: [^)]*Founding of Brackwater[^)]*\): Brackwater was founded about six hundred years ago/u);
    const [orielPrompt, orielReply] = splitPrompt(answerTo(transcript, 'ask oriel Who founded Brackwater?'));
    expect(orielPrompt).toContain('- The Brackwater lantern house: The Lamplighters founded their Brackwater chapter house');
    expect(orielReply).toMatch(/^Oriel \(knows: [^)]*The Brackwater lantern house[^)]*Founding of Brackwater/u);

    const [tidelinesPrompt, tidelinesReply] = splitPrompt(answerTo(transcript, 'ask marta What are the tidelines?'));
    expect(tidelinesPrompt).not.toMatch(/- The tidelines:|Reading the tidelines/u);
    expect(tidelinesPrompt).toMatch(/## What Marta remembers\n(- \[turn 1\] .*\n)*- \[turn 1\] Kaël asked Marta: "Who founded Brackwater\?"/u);
    expect(tidelinesReply).toMatch(/: Back again, Kaël\? That's Lamplighter talk, love\./u);
    expect(splitPrompt(answerTo(transcript, 'ask oriel What are the tidelines?'))[1]).toMatch(/^Oriel \(knows: [^)]*The tidelines[^)]*\): Back again, Kaël\? (Beneath the marshes of Orsa run tidelines|An apprentice Lamplighter learns to feel a tideline)/u);

    const again = await runExample('mud-npc', ['--db', db, '--player', 'Nell'], ['ask marta Who founded Brackwater?', 'quit']);
    expect(again.split('\n')[0]).toBe('Lore: 34 entries (0 new, 0 changed, 0 embedded). Replies: offline stand-in.');
    expect(answerTo(again, 'ask marta Who founded Brackwater?')[0]).not.toContain('Back again');
  });

  it('AI SDK agent, offline: the model calls remember, recall and query_memory, and answers from what they return', async () => {
    const db = join(dir, 'agent.db');
    const transcript = await runExample('ai-agent', ['--db', db], ['Remember that my sister is called Ines', 'I bought a red bicycle in Lisbon today.', 'What is my sister called?', 'Where did I buy the bicycle?', 'quit']);
    expect(transcript).toContain('you> Remember that my sister is called Ines\n  [tool] remember {"key":"sister_called_ines","value":"my sister is called Ines"}\nagent> Noted; I will remember that.');
    expect(transcript).toContain('  [tool] recall {"query":"What is my sister called?","k":3}\nagent> From memory: sister_called_ines [chat-1]: my sister is called Ines');
    expect(transcript).toMatch(/\[tool\] query_memory \{"query":"Where did I buy the bicycle\?","k":3\}\nagent> From memory: turn 2 · dialogue · [0-9a-f]{8}: User: I bought a red bicycle in Lisbon today\./u);
  });

  it('AI SDK agent, on an OpenAI-compatible server named by environment variables: tool calls and their compact results go over the wire', async () => {
    const server = await startChatServer((request) => {
      const last = request.body.messages.at(-1) as { role: string; content: unknown };
      if (last.role === 'tool') return { content: 'You ordered eel pie at the Sunken Bell.' };
      const toolCall = { id: 'call_1', type: 'function', function: { name: 'query_memory', arguments: JSON.stringify({ query: 'eel pie order', k: 2 }) } };
      return { status: 200, body: JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1_700_000_000, model: 'test-model', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [toolCall] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) };
    });
    try {
      const db = join(dir, 'agent-http.db');
      const env = { MNEMO_LLM_BASE_URL: server.baseUrl, MNEMO_LLM_MODEL: 'test-model', MNEMO_LLM_API_KEY: 'sk-test' };
      await runExample('ai-agent', ['--db', db], ['I order the eel pie, please.'], env);
      const transcript = await runExample('ai-agent', ['--db', db], ['What did I order?'], env);
      expect(transcript).toContain(`model test-model at ${server.baseUrl}`);
      expect(transcript).toContain('agent> You ordered eel pie at the Sunken Bell.');
      const withResult = server.requests.at(-1)!;
      expect(withResult.headers.authorization).toBe('Bearer sk-test');
      const sent = withResult.body.messages.find((message) => message.role === 'tool') as { content: string } | undefined;
      expect(sent?.content).toMatch(/^turn 1 · dialogue · [0-9a-f]{8}: User: I order the eel pie, please\.$/mu);
      const tools = (withResult.body as { tools?: { function: { name: string } }[] }).tools?.map((tool) => tool.function.name);
      expect(tools).toEqual(['remember', 'recall', 'query_memory']);
    } finally {
      await server.close();
    }
  });
});

/** Splits an NPC's answer (with --show-prompt) into its prompt and its reply line. */
function splitPrompt(lines: string[]): [string, string] {
  const end = lines.lastIndexOf('---');
  return [lines.slice(1, end).join('\n'), lines[end + 1] ?? ''];
}
