// Benchmark of the lore import: a generated repository of N entries, imported first, re-imported unchanged, then with edits.
// Each import runs in a fresh process, as `mnemo lore import` would, timed from opening the database to the report.
// Usage: npm run bench:lore [-- --entries 5000 --files 50 --dims 100 --edits 50 --queries 200]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './bench-args.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { PARSE_CACHE_KEY } from '../src/lore/parse-cache.js';
import { readLoreRepository } from '../src/lore/read-lore-repository.js';
import { openMemory } from '../src/open-memory.js';
import { countingEmbedder } from '../src/testing/counting-embedder.js';
import { seededRandom, sentences } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    entries: { type: 'string', default: '5000' },
    files: { type: 'string', default: '50' },
    dims: { type: 'string', default: '100' },
    edits: { type: 'string', default: '50' },
    queries: { type: 'string', default: '200' },
    child: { type: 'string' },
    repository: { type: 'string' },
  },
});
const entryCount = Number(values.entries);
const fileCount = Number(values.files);
const dimensions = Number(values.dims);
const editCount = Number(values.edits);
const queryCount = Number(values.queries);

const ZONES = 12;
const DISTRICTS_PER_ZONE = 5;
const FACTIONS = 8;

/** Writes a repository of `entryCount` entries over `fileCount` files: 10% continental, 30% regional, 40% local, 20% faction. */
function generateRepository(root: string): void {
  const random = seededRandom(11);
  const texts = sentences(entryCount * 3, 5);
  const files: string[][] = Array.from({ length: fileCount }, () => []);
  for (let index = 0; index < entryCount; index++) {
    const zone = Math.floor(random() * ZONES);
    const roll = random();
    const [level, tags] = roll < 0.1 ? ['continental', []]
      : roll < 0.4 ? ['regional', [`zone_${zone}`]]
        : roll < 0.8 ? ['local', [`district_${zone}_${Math.floor(random() * DISTRICTS_PER_ZONE)}`]]
          : ['faction', random() < 0.3 ? [`faction_${Math.floor(random() * FACTIONS)}`, `zone_${zone}`] : [`faction_${Math.floor(random() * FACTIONS)}`]];
    const content = [texts.next().value, texts.next().value, texts.next().value].join(' ');
    files[index % fileCount]?.push(`  - title: Entry ${index}\n    scope_level: ${level}\n    scope_tags: [${tags.join(', ')}]\n    content: |\n      ${content}\n`);
  }
  mkdirSync(join(root, 'lore'), { recursive: true });
  files.forEach((entries, index) => writeFileSync(join(root, 'lore', `part-${index}.yaml`), `source: lore/part-${index}.yaml\nentries:\n${entries.join('')}`));
  writeFileSync(join(root, 'index.yaml'), `files:\n${files.map((_, index) => `  - lore/part-${index}.yaml\n`).join('')}`);
}

/** Edits the content of `count` entries spread over the files. */
function editRepository(root: string, count: number): void {
  for (let index = 0; index < count; index++) {
    const file = join(root, 'lore', `part-${index % fileCount}.yaml`);
    const title = `  - title: Entry ${index}\n`;
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(title);
    const contentAt = text.indexOf('    content: |\n      ', at) + '    content: |\n      '.length;
    writeFileSync(file, `${text.slice(0, contentAt)}Edited for the benchmark. ${text.slice(contentAt)}`);
  }
}

/** One import in this (child) process: open, import, search a little, close; prints JSON timings. */
async function childImport(path: string, repository: string): Promise<void> {
  const embedder = countingEmbedder(hashingEmbedder({ dimensions }));
  const started = performance.now();
  const memory = await openMemory({ path, embedder, logger: silentLogger });
  const report = await memory.lore.importRepository(repository);
  const importMs = performance.now() - started;
  const { calls, texts } = embedder;
  const random = seededRandom(3);
  const corpus = [...sentences(500, 5)];
  const times: number[] = [];
  for (let index = 0; index < queryCount; index++) {
    const words = (corpus[Math.floor(random() * corpus.length)] as string).replace('.', '').split(' ');
    const zone = Math.floor(random() * ZONES);
    const tags = [`zone_${zone}`, `district_${zone}_${Math.floor(random() * DISTRICTS_PER_ZONE)}`, `faction_${Math.floor(random() * FACTIONS)}`];
    const t0 = performance.now();
    await memory.lore.search(words.slice(0, 4).join(' '), { tags, k: 5 });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  await memory.close();
  const median = times[Math.floor(times.length / 2)] ?? 0;
  console.log(JSON.stringify({ importMs, calls, texts, written: report.written, created: report.created.length, updated: report.updated.length, unchanged: report.unchanged, searchP50: median, rss: process.memoryUsage().rss }));
}

function runChild(path: string, repository: string) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', path, '--repository', repository, '--dims', String(dimensions), '--queries', String(queryCount), '--files', String(fileCount)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as { importMs: number; calls: number; texts: number; written: boolean; created: number; updated: number; unchanged: number; searchP50: number; rss: number };
}

if (values.child !== undefined) {
  await childImport(values.child, values.repository as string);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-lore-bench-'));
  const repository = join(dir, 'repository');
  const path = join(dir, 'lore.db');
  generateRepository(repository);
  const readStarted = performance.now();
  const reading = await readLoreRepository(repository);
  const readMs = performance.now() - readStarted;
  if (reading.problems.length > 0 || reading.entries.length !== entryCount) throw new Error(`generated repository is invalid: ${reading.problems.length} problems`);
  console.log(`mnemo lore import benchmark: node ${process.version}, ${entryCount} entries in ${fileCount} files, hashing embedder ${dimensions}-d; each run in a fresh process, timed from opening the database to the report`);
  console.log(`reading + validating the repository alone, no parse cache (YAML with positions, zod), in this process: ${readMs.toFixed(0)} ms`);
  console.log('| run | import ms | embedding calls | texts embedded | created | updated | unchanged | written | search p50 ms (k = 5, scoped) | RSS MB |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const row = (name: string, r: ReturnType<typeof runChild>) => console.log(`| ${name} | ${r.importMs.toFixed(0)} | ${r.calls} | ${r.texts} | ${r.created} | ${r.updated} | ${r.unchanged} | ${r.written ? 'yes' : 'no'} | ${r.searchP50.toFixed(2)} | ${(r.rss / 1024 / 1024).toFixed(0)} |`);
  row('first import', runChild(path, repository));
  row('unchanged re-run', runChild(path, repository));
  const clearing = await openMemory({ path, logger: silentLogger });
  await clearing.store.setMeta(PARSE_CACHE_KEY, '{}');
  await clearing.close();
  row('unchanged re-run, parse cache cleared', runChild(path, repository));
  editRepository(repository, editCount);
  row(`${editCount} entries edited`, runChild(path, repository));
  console.log(`database file: ${(statSync(path).size / 1024 / 1024).toFixed(1)} MB`);
  rmSync(dir, { recursive: true, force: true });
}
