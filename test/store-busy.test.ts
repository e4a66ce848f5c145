// A write lock held by another connection: writes wait without holding the event loop, then STORE_BUSY (503); reads go on.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { createApi } from '../src/server/create-api.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import type { RunningHttpServer } from '../src/server/start-http-server.js';
import { TokenTable } from '../src/server/tokens.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';
import { ApiClient } from './server-client.js';

const TOKEN = 'busy-token-0123456789abc';
const dir = tempDir();
const path = join(dir, 'busy.db');
let memory: Mnemo;
let running: RunningHttpServer;
let api: ApiClient;
let foreign: Database.Database;

/** Holds the write lock from another connection (as another process would) while `work` runs. */
async function whileLocked<T>(work: () => Promise<T>): Promise<T> {
  foreign.exec('BEGIN IMMEDIATE');
  try {
    return await work();
  } finally {
    foreign.exec('ROLLBACK');
  }
}

/** The longest gap between timer ticks while `work` runs: how long the event loop was held. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T | Error; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 5);
  try {
    const result = await work().catch((error: Error) => error);
    return { result, stall: Math.max(stall, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

beforeAll(async () => {
  memory = await openMemory({ store: openSqliteStore({ path, busyTimeoutMs: 600 }), embedder: null, logger: silentLogger });
  await memory.add({ saveId: 'a', turnId: 1, text: 'The smith owes Kaël three silver.' });
  await memory.add({ saveId: 'a', turnId: 2, text: 'Kaël pays the smith back.' });
  await memory.add({ saveId: 'b', turnId: 1, text: 'In save b, the lighthouse keeper counts gulls.' });
  running = await startHttpServer({ fetch: createApi({ memory, auth: new TokenTable([{ token: TOKEN, saves: '*' }]), logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
  api = new ApiClient(running.url, TOKEN);
  foreign = new Database(path);
});

afterAll(async () => {
  foreign?.close();
  await running?.close();
  await memory?.close();
});

describe('a foreign write lock', () => {
  it('makes a write wait asynchronously, then fail with STORE_BUSY, writing nothing', async () => {
    const { result, stall } = await whileLocked(() => longestStall(() => memory.rewind('a', 1)));
    expect(result).toMatchObject({ code: 'STORE_BUSY', category: 'SYSTEM', details: { retryAfterSeconds: 1 } });
    // A 600 ms wait made of short attempts: the loop is never held for the whole wait (generous margin for a loaded machine).
    expect(stall).toBeLessThan(400);
    expect(await memory.count('a')).toBe(2);
  });

  it('answers 503 with Retry-After over HTTP, while reads of any save go on', async () => {
    await whileLocked(async () => {
      const [rewind, health, query] = await Promise.all([
        api.call('/v1/saves/a/rewind', { body: { turnId: 0 } }),
        api.call('/health', { token: null }),
        api.call('/v1/saves/b/query', { body: { query: 'gulls' } }),
      ]);
      expect(rewind.status).toBe(503);
      expect(rewind.json.error).toMatchObject({ code: 'STORE_BUSY' });
      expect(rewind.headers.get('retry-after')).toBe('1');
      expect(health.status).toBe(200);
      expect(query.status).toBe(200);
      expect((query.json.hits as unknown[]).length).toBe(1);
    });
    expect(await memory.count('a')).toBe(2);
  });

  it('makes a living write (queue a turn, retry failed jobs) wait the same way, then STORE_BUSY, writing nothing', async () => {
    const before = await memory.living.status('a');
    const writes: (() => Promise<unknown>)[] = [() => memory.living.recordTurn({ saveId: 'a', turnId: 2 }), () => memory.living.retryFailed('a')];
    for (const write of writes) {
      const { result, stall } = await whileLocked(() => longestStall(write));
      expect(result).toMatchObject({ code: 'STORE_BUSY', category: 'SYSTEM', details: { retryAfterSeconds: 1 } });
      // One synchronous attempt gave up after 25 ms with no wait at all; the wait is the store's 600 ms, on timers.
      expect((result as unknown as { details: { waitedMs: number } }).details.waitedMs).toBeGreaterThanOrEqual(600);
      expect(stall).toBeLessThan(400);
    }
    expect(await memory.living.status('a')).toEqual(before);
  });

  it('answers a living write with 503 over HTTP while /health and reads go on', async () => {
    await whileLocked(async () => {
      const [turn, health, query] = await Promise.all([
        api.call('/v1/saves/a/living/turns', { body: { turnId: 2 } }),
        api.call('/health', { token: null }),
        api.call('/v1/saves/b/query', { body: { query: 'gulls' } }),
      ]);
      expect(turn.status).toBe(503);
      expect(turn.json.error).toMatchObject({ code: 'STORE_BUSY' });
      expect(turn.headers.get('retry-after')).toBe('1');
      expect(health.status).toBe(200);
      expect(query.status).toBe(200);
    });
    expect(await memory.store.living.listJobs({ saveId: 'a' })).toEqual([]);
  });

  it('lets a write through once the lock is released within the wait', async () => {
    foreign.exec('BEGIN IMMEDIATE');
    setTimeout(() => foreign.exec('ROLLBACK'), 150);
    expect(await memory.add({ saveId: 'a', turnId: 3, text: 'The smith forgives the rest.' })).toMatch(/^[0-9a-f-]{36}$/u);
  });

  it('does not stop another store opening the file and reading it: a current schema needs no write transaction', async () => {
    await whileLocked(async () => {
      const reader = await openMemory({ store: openSqliteStore({ path, busyTimeoutMs: 200 }), embedder: null, logger: silentLogger });
      try {
        expect((await reader.query('b', 'gulls')).length).toBe(1);
      } finally {
        await reader.close();
      }
    });
  });
});
