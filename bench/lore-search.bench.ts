// Benchmark of lore search with and without a metadata filter (where) on a generated book, the two interleaved.
// Usage: npm run bench:lore-search [-- --entries 10000 --dims 100 --queries 200 --rounds 5 --where '{"quest":"quest_3"}']
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './bench-args.js';
import { silentLogger } from '../src/core/logger.js';
import type { MetadataWhere } from '../src/core/types.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import type { LoreEntryInput } from '../src/lore/lore-schema.js';
import { openMemory } from '../src/open-memory.js';
import { seededRandom, sentences } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    entries: { type: 'string', default: '10000' },
    dims: { type: 'string', default: '100' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '5' },
    where: { type: 'string', default: '{"quest":"quest_3"}' },
  },
});
const entryCount = Number(values.entries);
const dimensions = Number(values.dims);
const queryCount = Number(values.queries);
const rounds = Number(values.rounds);
const where = JSON.parse(values.where) as MetadataWhere;
const QUESTS = 20;
const ZONES = 12;

/** The book: 10% continental, the rest regional over 12 zones; metadata { quest: one of 20, order, and a secret flag on 1 in 10 }. */
function generateEntries(): LoreEntryInput[] {
  const random = seededRandom(11);
  const texts = sentences(entryCount * 3, 5);
  return Array.from({ length: entryCount }, (_, index): LoreEntryInput => {
    const continental = random() < 0.1;
    const metadata = { quest: `quest_${Math.floor(random() * QUESTS)}`, order: index, ...(random() < 0.1 ? { secret: true } : {}) };
    const content = [texts.next().value, texts.next().value, texts.next().value].join(' ');
    return { source: `part-${index % 50}.yaml`, title: `Entry ${index}`, content, scopeLevel: continental ? 'continental' : 'regional', scopeTags: continental ? [] : [`zone_${Math.floor(random() * ZONES)}`], metadata };
  });
}

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] ?? 0;

const dir = mkdtempSync(join(tmpdir(), 'mnemo-lore-search-bench-'));
const memory = await openMemory({ path: join(dir, 'lore.db'), embedder: hashingEmbedder({ dimensions }), logger: silentLogger });
await memory.lore.importEntries(generateEntries());
const random = seededRandom(3);
const corpus = [...sentences(500, 5)];
const queries = Array.from({ length: queryCount }, () => ({
  text: (corpus[Math.floor(random() * corpus.length)] as string).replace('.', '').split(' ').slice(0, 4).join(' '),
  tags: [`zone_${Math.floor(random() * ZONES)}`],
}));
// Warm: the first search builds the book's index.
await memory.lore.search('warm up', { tags: [], k: 5 });

/** One pass over the queries: per-query wall and CPU milliseconds, and the mean number of hits. */
async function pass(filter: MetadataWhere | undefined): Promise<{ wall: number[]; cpu: number[]; hits: number }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  let hits = 0;
  for (const query of queries) {
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    hits += (await memory.lore.search(query.text, { tags: query.tags, k: 5, where: filter })).length;
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall, cpu, hits: hits / queries.length };
}

const runs = { plain: [] as { wall: number; cpu: number; hits: number }[], filtered: [] as { wall: number; cpu: number; hits: number }[] };
for (let round = 0; round < rounds; round++) {
  // Interleaved, the order alternating per round, so drifting load weighs on both alike.
  for (const name of round % 2 === 0 ? ['plain', 'filtered'] as const : ['filtered', 'plain'] as const) {
    const result = await pass(name === 'plain' ? undefined : where);
    runs[name].push({ wall: median(result.wall), cpu: median(result.cpu), hits: result.hits });
  }
}
await memory.close();
rmSync(dir, { recursive: true, force: true });

console.log(`mnemo lore search benchmark: node ${process.version}, ${entryCount} entries, hashing embedder ${dimensions}-d, ${queryCount} scoped queries (one zone's tags, k = 5) per pass, ${rounds} rounds, plain and filtered passes interleaved`);
console.log(`filter: ${JSON.stringify(where)}`);
console.log('| search | p50 ms (median of the rounds\' p50) | CPU ms per query (median) | hits per query |');
console.log('|---|---|---|---|');
for (const name of ['plain', 'filtered'] as const) {
  console.log(`| ${name} | ${median(runs[name].map((run) => run.wall)).toFixed(2)} | ${median(runs[name].map((run) => run.cpu)).toFixed(2)} | ${median(runs[name].map((run) => run.hits)).toFixed(1)} |`);
}
console.log(`filtered / plain p50: x${(median(runs.filtered.map((run) => run.wall)) / median(runs.plain.map((run) => run.wall))).toFixed(2)}`);
