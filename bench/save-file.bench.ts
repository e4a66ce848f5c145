// Peak memory of export and import at scale: a SQLite save of N chunks (with 64-dimension vectors and a living
// layer of N/1000 facts and beliefs) exported to a file and imported into a fresh store, each step in its own
// process so its peak RSS is its own. Usage: npm run bench:save-file -- [--chunks 1000000] [--dir /tmp/x]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { NewChunk } from '../src/seams/chunk-store.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';

const DIMENSIONS = 64;
const embedder = hashingEmbedder({ dimensions: DIMENSIONS });
const WORDS = ['lantern', 'salt', 'bridge', 'Marta', 'debt', 'storm', 'bell', 'cellar', 'toll', 'ferry', 'gull', 'copper', 'river', 'gate', 'ash'];

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] as string) : fallback;
}

async function fill(path: string, chunks: number): Promise<void> {
  const store = openSqliteStore({ path });
  const memory = await openMemory({ store, embedder, logger: silentLogger });
  const vector = new Float32Array(DIMENSIONS).map((_, index) => Math.sin(index));
  for (let start = 0; start < chunks; start += 5000) {
    const batch: NewChunk[] = [];
    for (let index = start; index < Math.min(chunks, start + 5000); index++) {
      const text = `Turn ${index}: ${WORDS[index % WORDS.length]} ${WORDS[(index * 7) % WORDS.length]} ${WORDS[(index * 13) % WORDS.length]} by the ${WORDS[(index * 3) % WORDS.length]}.`;
      batch.push({ id: randomUUID(), saveId: 'big', turnId: Math.floor(index / 4) + 1, chunkType: 'narrative', text, entryId: null, metadata: { speaker: WORDS[index % 4] as string }, createdAt: 1_700_000_000_000 + index, embedding: vector });
    }
    await store.insertChunks(batch);
  }
  const facts = Math.max(1, Math.floor(chunks / 1000));
  const ids = await store.living.insertFacts('big', 1, Array.from({ length: facts }, (_, index) => ({ statement: `Fact ${index} about the salt toll.`, who: 'Marta', entities: ['Marta'] })));
  await store.living.applyConsolidation('big', 1, ids.map((id, index) => ({ kind: 'CREATE' as const, statement: `Belief ${index}.`, subject: 'Marta', beliefId: null, sourceFactIds: [id] })), new Map(ids.map((id) => [id, 1])));
  await memory.close();
}

async function exportTo(path: string, file: string): Promise<void> {
  const memory = await openMemory({ store: openSqliteStore({ path }), embedder, logger: silentLogger });
  const sink = createWriteStream(file);
  for await (const piece of memory.exportSave('big')) if (!sink.write(piece)) await once(sink, 'drain');
  sink.end();
  await once(sink, 'finish');
  await memory.close();
}

async function importFrom(path: string, file: string): Promise<void> {
  const memory = await openMemory({ store: openSqliteStore({ path }), embedder, logger: silentLogger });
  const report = await memory.importSave({ path: file }, { as: 'big-copy' });
  if (report.chunks === 0) throw new Error('nothing imported');
  await memory.close();
}

const step = argument('step', '');
if (step !== '') {
  const started = performance.now();
  const [path, file] = [argument('db', ''), argument('file', '')];
  if (step === 'fill') await fill(path, Number(argument('chunks', '0')));
  else if (step === 'export') await exportTo(path, file);
  else await importFrom(path, file);
  process.stdout.write(JSON.stringify({ seconds: (performance.now() - started) / 1000, peakRssMiB: process.resourceUsage().maxRSS / 1024 }));
} else {
  const chunks = Number(argument('chunks', '1000000'));
  const dir = argument('dir', '') || mkdtempSync(join(tmpdir(), 'mnemo-save-file-'));
  const self = fileURLToPath(import.meta.url);
  const run = (name: string, ...args: string[]) => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', self, '--step', name, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (child.status !== 0) throw new Error(`${name} failed: ${child.stderr}`);
    return JSON.parse(child.stdout) as { seconds: number; peakRssMiB: number };
  };
  const source = join(dir, 'source.db');
  const file = join(dir, 'save.jsonl');
  console.log(`save file at ${chunks.toLocaleString('en')} chunks (64-d vectors, ${Math.max(1, Math.floor(chunks / 1000))} facts and beliefs), Node ${process.version}`);
  const filled = run('fill', '--db', source, '--chunks', String(chunks));
  console.log(`fill:   ${filled.seconds.toFixed(1)} s, peak RSS ${filled.peakRssMiB.toFixed(0)} MiB`);
  const exported = run('export', '--db', source, '--file', file);
  console.log(`export: ${exported.seconds.toFixed(1)} s, peak RSS ${exported.peakRssMiB.toFixed(0)} MiB, file ${(statSync(file).size / 1024 / 1024).toFixed(0)} MiB`);
  const imported = run('import', '--db', join(dir, 'target.db'), '--file', file);
  console.log(`import: ${imported.seconds.toFixed(1)} s, peak RSS ${imported.peakRssMiB.toFixed(0)} MiB (a fresh SQLite file)`);
  if (argument('dir', '') === '') rmSync(dir, { recursive: true, force: true });
}
