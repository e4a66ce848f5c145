// Load test of `mnemo serve`: N concurrent clients mixing writes, queries, context builds and lore searches against a server
// process on 127.0.0.1, bounded in time and count; reports throughput, p50/p99 and errors (must be 0), then stops the server
// with SIGTERM and checks that every acknowledged write is in the database.
// Usage: npm run bench:serve [-- --clients 8 --seconds 10 --max-requests 20000 --chunks 2000 --mix write=40,query=35,context=15,lore=10]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './bench-args.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import { ORSA_CHARACTERS, ORSA_LORE } from '../src/testing/lore-fixture.js';
import { seededRandom, sentences } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '10' },
    'max-requests': { type: 'string', default: '20000' },
    chunks: { type: 'string', default: '2000' },
    mix: { type: 'string', default: 'write=40,query=35,context=15,lore=10' },
  },
});
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const maxRequests = Number(values['max-requests']);
const seedChunks = Number(values.chunks);
if (![clients, seconds, maxRequests, seedChunks].every((value) => Number.isSafeInteger(value) && value > 0) || seconds > 600 || clients > 256) {
  throw new Error('expected --clients 1..256, --seconds 1..600, --max-requests > 0 and --chunks > 0');
}

const TOKEN = 'bench-serve-token-0123456789';
const HOST = '127.0.0.1'; // loopback only: the script starts its own server and never talks to another host
const SAVE = 'bench';
const OPERATION_NAMES = ['write', 'query', 'context', 'lore'] as const;
type Operation = (typeof OPERATION_NAMES)[number];

/** The share of each operation, from --mix (weights, normalised). */
function parseMix(text: string): [Operation, number][] {
  const weights = text.split(',').map((part) => {
    const [name, weight] = part.split('=');
    if (!(OPERATION_NAMES as readonly string[]).includes(name ?? '') || !(Number(weight) >= 0)) throw new Error(`--mix: expected name=weight with names ${OPERATION_NAMES.join(', ')}, got ${JSON.stringify(part)}`);
    return [name as Operation, Number(weight)] as [Operation, number];
  });
  const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
  if (total <= 0) throw new Error('--mix: expected at least one weight above 0');
  return weights.filter(([, weight]) => weight > 0).map(([name, weight]) => [name, weight / total]);
}
const OPERATIONS = parseMix(values.mix);

const dir = mkdtempSync(join(tmpdir(), 'mnemo-serve-load-'));
const path = join(dir, 'load.db');

/** The seeded save: narrative chunks over 200 turns, and the Orsa lore book. */
async function seed(): Promise<void> {
  const memory = await openMemory({ path, embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
  await memory.lore.importEntries(ORSA_LORE);
  const texts = sentences(seedChunks, 7);
  const batch = [];
  for (let index = 0; index < seedChunks; index++) {
    batch.push({ saveId: SAVE, turnId: Math.floor((index * 200) / seedChunks) + 1, text: `${index % 3 === 0 ? 'Marta ' : ''}${texts.next().value as string}` });
    if (batch.length === 500) await memory.addMany(batch.splice(0));
  }
  if (batch.length > 0) await memory.addMany(batch);
  await memory.close();
}

function startServer(): Promise<{ url: string; child: ReturnType<typeof spawn>; exited: Promise<number | null> }> {
  const cli = join(import.meta.dirname, 'serve-child.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--db', path, '--embedder', 'hashing', 'serve', '--host', HOST, '--port', '0', '--token', TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (data: Buffer) => {
      stdout += data.toString();
      const match = /listening on (http:\/\/\S+)/u.exec(stdout);
      if (match !== null) resolve({ url: match[1] as string, child, exited });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number));

async function run(): Promise<void> {
  await seed();
  const server = await startServer();
  const latencies = new Map<Operation, number[]>(OPERATIONS.map(([name]) => [name, []]));
  // warm-up, not measured: the save's search index, the lore index and the tokenizer load on their first use
  const warm = (route: string, body: unknown) => fetch(`${server.url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((response) => response.text());
  await warm(`/v1/saves/${SAVE}/query`, { query: 'warm up' });
  await warm(`/v1/saves/${SAVE}/context`, { character: 'Marta', message: 'warm up', tags: ORSA_CHARACTERS.bartender });
  const acknowledged = new Map<string, string>();
  const failures: string[] = [];
  let issued = 0;
  const deadline = performance.now() + seconds * 1000;
  const words = ['salt', 'storm', 'Marta', 'bell', 'ledger', 'debt', 'tide', 'eel pie', 'lantern', 'toll'];

  const client = async (clientId: number) => {
    const random = seededRandom(1000 + clientId);
    let turn = 0;
    while (performance.now() < deadline && issued < maxRequests) {
      issued++;
      const roll = random();
      let cumulative = 0;
      const operation = (OPERATIONS.find(([, share]) => (cumulative += share) > roll) ?? (OPERATIONS[0] as [Operation, number]))[0];
      const word = words[Math.floor(random() * words.length)] as string;
      let url = `${server.url}/v1/saves/${SAVE}/query`;
      let body: unknown = { query: `what happened with the ${word}?`, k: 10 };
      let text = '';
      if (operation === 'write') {
        turn++;
        text = `Client ${clientId} writes line ${turn}: the ${word} changes hands.`;
        url = `${server.url}/v1/saves/load-${clientId}/chunks`;
        body = { chunks: [{ turnId: turn, text }] };
      } else if (operation === 'context') {
        url = `${server.url}/v1/saves/${SAVE}/context`;
        body = { character: 'Marta', message: `Tell me about the ${word}.`, tags: ORSA_CHARACTERS.bartender, budget: 800 };
      } else if (operation === 'lore') {
        url = `${server.url}/v1/lore/search`;
        body = { query: `the ${word} of Brackwater`, tags: ORSA_CHARACTERS.bartender, k: 5 };
      }
      const started = performance.now();
      try {
        const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const answer = (await response.json()) as { ids?: string[]; error?: { code: string } };
        latencies.get(operation)?.push(performance.now() - started);
        if (!response.ok) failures.push(`${operation}: ${response.status} ${answer.error?.code}`);
        else if (operation === 'write') acknowledged.set(answer.ids?.[0] as string, text);
      } catch (error) {
        failures.push(`${operation}: ${(error as Error).message}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  const elapsed = (performance.now() - started) / 1000;

  server.child.kill('SIGTERM');
  const exitCode = await server.exited;
  const memory = await openMemory({ path, logger: silentLogger });
  let missing = 0;
  for (let clientId = 0; clientId < clients; clientId++) {
    const stored = new Map((await memory.store.listChunks(`load-${clientId}`)).map((chunk) => [chunk.id, chunk.text]));
    for (const [id, text] of acknowledged) if (id !== undefined && text.startsWith(`Client ${clientId} `) && stored.get(id) !== text) missing++;
  }
  await memory.close();
  rmSync(dir, { recursive: true, force: true });

  const all = [...latencies.values()].flat().sort((a, b) => a - b);
  const rows = [['all', all] as const, ...[...latencies].map(([name, list]) => [name, list.sort((a, b) => a - b)] as const)];
  console.log(`mnemo serve under load: ${clients} clients, ${elapsed.toFixed(1)} s, mix ${OPERATIONS.map(([name, share]) => `${name} ${(share * 100).toFixed(0)}%`).join(' ')}, ${seedChunks} seeded chunks, hashing embedder (64-d), loopback`);
  console.log('| requests | count | throughput (req/s) | p50 (ms) | p99 (ms) |');
  console.log('|---|---|---|---|---|');
  for (const [name, list] of rows) console.log(`| ${name} | ${list.length} | ${(list.length / elapsed).toFixed(0)} | ${percentile(list, 50).toFixed(1)} | ${percentile(list, 99).toFixed(1)} |`);
  console.log(`errors: ${failures.length}${failures.length > 0 ? ` (${[...new Set(failures)].slice(0, 5).join('; ')})` : ''}`);
  console.log(`acknowledged writes: ${acknowledged.size}, missing after SIGTERM and reopen: ${missing}; server exit code ${exitCode}`);
  if (failures.length > 0 || missing > 0 || exitCode !== 0) process.exitCode = 1;
}

await run();
