// How fast each inspector view's API calls answer on a save of 10k turns: the calls the page makes, timed over HTTP on
// 127.0.0.1 against a real server over SQLite (hashing embedder), median and worst of several runs.
// Usage: npm run bench:inspector [-- --turns 10000 --runs 15]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './bench-args.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import { createApi } from '../src/server/create-api.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import { ORSA_CHARACTERS, ORSA_LORE } from '../src/testing/lore-fixture.js';
import { sentences } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, { options: { turns: { type: 'string', default: '10000' }, runs: { type: 'string', default: '15' } } });
const turns = Number(values.turns);
const runs = Number(values.runs);
if (!Number.isSafeInteger(turns) || turns < 100 || !Number.isSafeInteger(runs) || runs < 1) throw new Error('expected --turns >= 100 and --runs >= 1');

const SAVE = 'bench';
const directory = mkdtempSync(join(tmpdir(), 'mnemo-inspector-bench-'));
const memory = await openMemory({ path: join(directory, 'bench.db'), embedder: hashingEmbedder({ dimensions: 256 }), logger: silentLogger });
try {
  const seeding = performance.now();
  await memory.lore.importEntries(ORSA_LORE);
  const texts = [...sentences(turns, 7)];
  for (let start = 0; start < turns; start += 1000) {
    await memory.addMany(texts.slice(start, start + 1000).map((text, index) => ({ saveId: SAVE, turnId: start + index, text })));
  }
  for (let turn = 0; turn < turns; turn += 10) {
    const [factId] = await memory.store.living.insertFacts(SAVE, turn, [{ statement: `Fact of turn ${turn}: ${texts[turn]}`, entities: ['Marta'], who: 'Marta' }]);
    if (turn % 50 === 0) await memory.store.living.insertBelief(SAVE, { statement: `Belief ${turn}`, subject: turn % 100 === 0 ? 'Marta' : '', sources: [{ factId: factId as number, turnId: turn }], createdTurnId: turn, updatedTurnId: turn });
  }
  await memory.store.living.upsertModel(SAVE, 'Marta', 'Marta keeps the Sunken Bell.', turns - 1, []);
  console.log(`seeded ${turns} turns, ${turns / 10} facts, ${turns / 50} beliefs in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

  const running = await startHttpServer({ fetch: createApi({ memory, auth: 'insecure-local', logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`${running.url}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const base = `/v1/saves/${SAVE}`;
  const tags = [...ORSA_CHARACTERS.bartender];
  const timelinePage = async (offset: number) => {
    const page = (await call(`${base}/turns?offset=${offset}&limit=20`)) as { turns: { turnId: number }[] };
    await Promise.all(page.turns.map((turn) => call(`${base}/turns/${turn.turnId}`)));
  };
  const views: [string, () => Promise<unknown>][] = [
    ['saves', () => call('/v1/saves?offset=0&limit=50')],
    ['timeline (first page)', () => timelinePage(0)],
    ['timeline (last page)', () => timelinePage(turns - 20)],
    ['search (+ lore)', () => Promise.all([call(`${base}/query`, { query: texts[1234], k: 8, focusTerms: ['Marta'] }), call('/v1/lore/search', { query: 'salt toll', k: 8, tags })])],
    ['beliefs', () => Promise.all([call(base), call(`${base}/beliefs?limit=200`), call(`${base}/models?limit=200`)])],
    ['lore', () => call('/v1/lore/entries')],
    ['context', () => call(`${base}/context`, { character: 'Marta', message: texts[4321], tags })],
  ];
  console.log(`\n| view | median ms | worst ms | (${runs} runs, ${turns} turns) |\n|---|---:|---:|---|`);
  for (const [name, load] of views) {
    await load();
    const times: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const started = performance.now();
      await load();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(`| ${name} | ${(times[Math.floor(times.length / 2)] as number).toFixed(1)} | ${(times.at(-1) as number).toFixed(1)} | |`);
  }
  await running.close();
} finally {
  await memory.close();
  rmSync(directory, { recursive: true, force: true });
}
