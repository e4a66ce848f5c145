// Graceful shutdown: stop accepting, finish in-flight requests, close the store; an acknowledged write is never lost.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
const CLI = join(import.meta.dirname, 'fixtures', 'cli-child.ts');
const TOKEN = 'shutdown-test-token-0123';

describe('graceful shutdown', () => {
  it('stops accepting connections at once, lets an in-flight request finish, then resolves close()', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let entered = () => {};
    const inside = new Promise<void>((resolve) => { entered = resolve; });
    const running = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      fetch: async (request) => {
        if (new URL(request.url).pathname === '/slow') {
          entered();
          await gate;
        }
        return new Response('done');
      },
    });
    const slow = fetch(`${running.url}/slow`).then(async (response) => ({ status: response.status, text: await response.text() }));
    await inside;
    expect(running.inFlight()).toBe(1);
    let closed = false;
    const closing = running.close().then(() => { closed = true; });
    await expect(fetch(`${running.url}/fast`)).rejects.toThrow();
    expect(closed).toBe(false);
    release();
    expect(await slow).toEqual({ status: 200, text: 'done' });
    await closing; // resolves only once the keep-alive connection of /slow is closed too
    expect(closed).toBe(true);
    expect(running.inFlight()).toBe(0);
  });

  it('on SIGTERM, a server process answers what it accepted, closes the database and exits 0; every acknowledged write is in the file', async () => {
    const path = join(dir, 'sigterm.db');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--db', path, '--embedder', 'hashing', 'serve', '--host', '127.0.0.1', '--port', '0', '--token', TOKEN], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => { stderr += data.toString(); });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (data: Buffer) => {
        stdout += data.toString();
        const match = /listening on (http:\/\/\S+)/u.exec(stdout);
        if (match !== null) resolve(match[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${stderr}`)));
    });

    const acknowledged = new Map<string, string>();
    const statuses: number[] = [];
    let next = 0;
    let signalled = false;
    const writer = async () => {
      for (;;) {
        const turnId = next++;
        const text = `Write number ${turnId}: the ledger gains a line.`;
        try {
          const response = await fetch(`${url}/v1/saves/ledger/chunks`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ chunks: [{ turnId, text }] }),
          });
          const body = (await response.json()) as { ids?: string[] };
          statuses.push(response.status);
          if (response.status === 201) acknowledged.set(body.ids?.[0] as string, text);
        } catch {
          return; // refused or reset: the server has stopped accepting; nothing was acknowledged
        }
        if (!signalled && acknowledged.size >= 150) {
          signalled = true;
          child.kill('SIGTERM');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    expect(await exited).toBe(0);
    expect(signalled).toBe(true);
    expect(stderr).toMatch(/SIGTERM: no new connections; finishing \d+ request\(s\) in flight/u);
    expect(stderr).toContain('closed the database');
    expect(statuses.every((status) => status === 201)).toBe(true);

    const memory = await openMemory({ path, logger: silentLogger });
    const stored = new Map((await memory.store.listChunks('ledger')).map((chunk) => [chunk.id, chunk.text]));
    await memory.close();
    expect(acknowledged.size).toBeGreaterThanOrEqual(150);
    for (const [id, text] of acknowledged) expect(stored.get(id)).toBe(text);
  });
});
