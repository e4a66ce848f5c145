// /health answers within 100 ms while the most expensive request of each kind runs (inputs at their bounds).
// A behaviour check, not a benchmark (bench/worst-request.bench.ts prints the numbers). On a shared machine a
// process waits for a core, which stretches wall time without its own work growing, so each /health round trip is
// measured as the smaller of its wall time and the CPU time this process spent meanwhile: work holding the event
// loop costs CPU, waiting for a core does not. Each kind also gets up to three tries and passes on its best one.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/core/limits.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { createApi } from '../src/server/create-api.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import type { RunningHttpServer } from '../src/server/start-http-server.js';
import { TokenTable } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';
import { ApiClient } from './server-client.js';
import { OWN_SAVE, fillRequests, forkSaves, healthDuring, healthWhile, largeSaveChunks, prose, worstRequests } from './worst-requests.js';

const HEALTH_BOUND_MS = 100;
/** A save whose index persist held the event loop for about a second in one piece (100,000 chunks: 3.7 to 6.0 s). */
const LARGE_SAVE = 'large';
const LARGE_CHUNKS = 20_000;
const TRIES = 3;
const PLAYER = 'player-token-0123456789';
const ADMIN = 'admin-token-0123456789ab';
const dir = tempDir();
let memory: Mnemo;
let running: RunningHttpServer;
let player: ApiClient;
let admin: ApiClient;

beforeAll(async () => {
  memory = await openMemory({ path: join(dir, 'health.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
  const auth = new TokenTable([{ token: PLAYER, saves: [OWN_SAVE, ...forkSaves(TRIES)] }, { token: ADMIN, admin: true, saves: '*' }]);
  running = await startHttpServer({ fetch: createApi({ memory, auth, logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
  player = new ApiClient(running.url, PLAYER);
  admin = new ApiClient(running.url, ADMIN);
  // The save (a token limited to it posts chunks of 100,000 characters) with a long history, and a lore
  // book at the content bound.
  for (const request of fillRequests()) expect((await (request.as === 'admin' ? admin : player).call(request.path, { body: request.body })).status).toBeLessThan(300);
  for (let index = 0; index < 50; index++) await memory.recall.store(`note ${index}`, prose(LIMITS.memoryValueChars / 4, index), { scope: OWN_SAVE });
  await memory.warm(OWN_SAVE);
  for (let from = 0; from < LARGE_CHUNKS; from += 2000) await memory.addMany(largeSaveChunks(LARGE_SAVE, 2000, from));
  await memory.warm(LARGE_SAVE);
}, 300_000);

afterAll(async () => {
  await running?.close();
  await memory?.close();
});

describe('/health while one request runs', () => {
  it.each(worstRequests(0).map((request, index) => [request.name, index] as const))('answers within 100 ms during: %s', async (_name, index) => {
    let best = Infinity;
    for (let attempt = 0; attempt < TRIES && best >= HEALTH_BOUND_MS; attempt++) {
      const request = worstRequests(attempt)[index] as ReturnType<typeof worstRequests>[number];
      const { worstHealthMs, status } = await healthDuring(running.url, request.as === 'admin' ? ADMIN : PLAYER, request);
      expect(status, request.path).toBeLessThan(300);
      best = Math.min(best, worstHealthMs);
    }
    expect(best).toBeLessThan(HEALTH_BOUND_MS);
  }, 300_000);

  it("answers within 100 ms during: persist of a large save's index", async () => {
    let best = Infinity;
    for (let attempt = 0; attempt < TRIES && best >= HEALTH_BOUND_MS; attempt++) {
      // A write in place after the int8 copy was made: the persist compacts the index, makes its int8 copy again,
      // writes its sections and checksums them.
      await memory.addMany(largeSaveChunks(LARGE_SAVE, 1, LARGE_CHUNKS + attempt));
      const { worstHealthMs } = await healthWhile(running.url, () => memory.narrative.flush());
      best = Math.min(best, worstHealthMs);
    }
    expect(best).toBeLessThan(HEALTH_BOUND_MS);
  }, 300_000);
});
