// Benchmark of the most expensive request of each kind: its wall time and the slowest /health answer while it runs.
// The server is in this process (as `mnemo serve` runs it), filled to the bounds; each request runs `--runs` times,
// medians printed. It also runs the issue's worst case: 10 chunks of 100,000 characters queried with 100 long focus
// terms (refused since focus terms are bounded), and the same at the bound (32 terms of 200 characters). Last, the
// persist of a large save's index (`--persist-chunks` short chunks, default 100,000) after a write in place: its
// wall time, the process's CPU time meanwhile, and the slowest /health.
// Usage: npm run bench:worst-request [-- --runs 3 --only "context" --persist-chunks 100000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './bench-args.js';
import { LIMITS } from '../src/core/limits.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import { createApi } from '../src/server/create-api.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import { TokenTable } from '../src/server/tokens.js';
import { fillRequests, forkSaves, healthDuring, healthWhile, largeSaveChunks, longTerms, OWN_SAVE, prose, worstRequests } from '../test/worst-requests.js';
import type { WorstRequest } from '../test/worst-requests.js';

const { values } = benchArgs(import.meta.url, { options: { runs: { type: 'string', default: '3' }, only: { type: 'string' }, 'persist-chunks': { type: 'string', default: '100000' } } });
const runs = Number(values.runs);
const PLAYER = 'player-token-0123456789';
const ADMIN = 'admin-token-0123456789ab';
const dir = mkdtempSync(join(tmpdir(), 'mnemo-worst-'));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const memory = await openMemory({ path: join(dir, 'worst.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
const auth = new TokenTable([{ token: PLAYER, saves: [OWN_SAVE, 'issue', ...forkSaves(runs + 1)] }, { token: ADMIN, admin: true, saves: '*' }]);
const running = await startHttpServer({ fetch: createApi({ memory, auth, logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
const tokenOf = (request: WorstRequest) => (request.as === 'admin' ? ADMIN : PLAYER);

async function send(request: WorstRequest): Promise<number> {
  const response = await fetch(`${running.url}${request.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokenOf(request)}`, 'content-type': 'application/json' },
    body: JSON.stringify(request.body),
  });
  await response.arrayBuffer();
  return response.status;
}

try {
  for (const request of fillRequests()) if ((await send(request)) >= 300) throw new Error(`filling failed: ${request.name}`);
  for (let index = 0; index < 50; index++) await memory.recall.store(`note ${index}`, prose(LIMITS.memoryValueChars / 4, index), { scope: OWN_SAVE });
  // The issue's save: 10 chunks of 100,000 characters.
  await send({ name: 'issue save', as: 'player', path: '/v1/saves/issue/chunks', body: { chunks: Array.from({ length: 10 }, (_, index) => ({ turnId: index + 1, text: prose(LIMITS.textChars, index) })) } });
  await memory.warm(OWN_SAVE);
  await memory.warm('issue');
  const issueRequests: WorstRequest[] = [
    { name: 'issue: 100 long focus terms (refused)', as: 'player', path: '/v1/saves/issue/query', body: { query: 'harvest moon', focusTerms: Array.from({ length: 100 }, (_, index) => `${prose(196, index)} ${index}`) } },
    { name: 'issue: 32 focus terms of 200 characters', as: 'player', path: '/v1/saves/issue/query', body: { query: 'harvest moon', focusTerms: longTerms(LIMITS.focusTerms) } },
  ];
  console.log(`worst requests (${runs} runs each, medians; /health counted as min(wall, process CPU) per round trip)`);
  console.log('request'.padEnd(44), 'status', 'request ms'.padStart(11), 'worst /health ms'.padStart(17), 'max /health ms'.padStart(15));
  const kinds = [...issueRequests.map((request) => () => request), ...worstRequests(0).map((_, index) => (attempt: number) => worstRequests(attempt)[index] as WorstRequest)];
  for (const make of kinds) {
    const name = make(0).name;
    if (values.only !== undefined && !name.includes(values.only)) continue;
    const results = [];
    for (let attempt = 0; attempt < runs; attempt++) {
      const request = make(attempt);
      results.push(await healthDuring(running.url, tokenOf(request), request));
    }
    const worst = results.map((result) => result.worstHealthMs);
    console.log(name.padEnd(44), String(results[0]?.status).padStart(6), median(results.map((result) => result.requestMs)).toFixed(0).padStart(11), median(worst).toFixed(1).padStart(17), Math.max(...worst).toFixed(1).padStart(15));
  }
  const persistName = "persist of a large save's index";
  if (values.only === undefined || persistName.includes(values.only)) {
    const chunks = Number(values['persist-chunks']);
    for (let from = 0; from < chunks; from += 2000) await memory.addMany(largeSaveChunks('large', Math.min(2000, chunks - from), from));
    await memory.warm('large');
    const results = [];
    for (let attempt = 0; attempt < runs; attempt++) {
      // A write in place after the int8 copy was made: the persist compacts, makes the int8 copy, writes, checksums.
      await memory.addMany(largeSaveChunks('large', 1, chunks + attempt));
      const cpuAt = process.cpuUsage();
      const result = await healthWhile(running.url, () => memory.narrative.flush());
      const cpu = process.cpuUsage(cpuAt);
      results.push({ ...result, cpuMs: (cpu.user + cpu.system) / 1000 });
    }
    const worst = results.map((result) => result.worstHealthMs);
    console.log(`${persistName} (${chunks} chunks)`.padEnd(44), '     -', median(results.map((result) => result.workMs)).toFixed(0).padStart(11), median(worst).toFixed(1).padStart(17), Math.max(...worst).toFixed(1).padStart(15), `cpu ms ${median(results.map((result) => result.cpuMs)).toFixed(0)}`);
  }
} finally {
  await running.close();
  await memory.close();
  rmSync(dir, { recursive: true, force: true });
}
