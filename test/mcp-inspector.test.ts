// The MCP server through the official MCP inspector's CLI in strict mode (offline, over stdio): no schema portability warning or error.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..');
const INSPECTOR = join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const dir = tempDir();

it('passes `mcp-inspector --cli --method tools/list --strict` with no warning', async () => {
  const server = [process.execPath, '--import', 'tsx', join('test', 'fixtures', 'cli-child.ts'), '--db', join(dir, 'inspected.db'), '--embedder', 'hashing', 'mcp'];
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR, '--cli', '--cwd', ROOT, '--method', 'tools/list', '--strict', '--connect-timeout', '120000', '--', ...server], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (data: Buffer) => { out += data.toString(); });
    child.stderr.on('data', (data: Buffer) => { err += data.toString(); });
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve({ code: exitCode, stdout: out, stderr: err }));
  });
  const problems = stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('[mnemo]'));
  expect(problems).toEqual([]);
  expect(code).toBe(0);
  expect((JSON.parse(stdout) as { tools: unknown[] }).tools).toHaveLength(16);
}, 180_000); // the server starts through tsx: past the inspector's default 15 s connect timeout with load 20 on 2 cores
