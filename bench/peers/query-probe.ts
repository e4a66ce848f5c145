// Query cost of a kept Mnemo save, alone: the prepared queries in one mode, several rounds, CPU time per query beside
// wall time, and (with --dump) every hit's id, score and explanation, to compare a change's rankings to the bit.
// Run: npm run bench:query-probe -- --folder /tmp/mnemo-peers/cold-open/mnemo-100000 [--work /tmp/mnemo-peers]
//        [--mode lexical|hybrid|vector] [--queries 100] [--rounds 3] [--dump <file.json>] [--dump-round 0]
// (--dump-round: the round whose hits are dumped; a later round than 0 sees every query's terms asked before, so a
// large save's lexical arms take their head search, the first round mostly scores every match.)
// The save is one `npm run bench:cold-open -- --size N` built (and kept); the queries are its work folder's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from '../bench-args.js';
import { silentLogger } from '../../src/core/logger.js';
import { openMemory } from '../../src/open-memory.js';
import type { EmbedderIdentity } from '../../src/seams/embedding-store.js';
import { preparedPaths, readVectors } from './corpus.js';
import { PrecomputedEmbedder } from './mnemo-engine.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    folder: { type: 'string' },
    work: { type: 'string', default: '/tmp/mnemo-peers' },
    mode: { type: 'string', default: 'lexical' },
    queries: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    dump: { type: 'string' },
    'dump-round': { type: 'string', default: '0' },
  },
});
const MODE_WEIGHTS = { lexical: { semantic: 0 }, vector: { lexical: 0 }, hybrid: undefined } as const;
const mode = values.mode as keyof typeof MODE_WEIGHTS;
if (!(mode in MODE_WEIGHTS)) throw new Error(`--mode: expected lexical, hybrid or vector, got ${values.mode}`);
if (values.folder === undefined) throw new Error('--folder: expected the folder of a kept save (bench:cold-open builds one)');
const rounds = Number(values.rounds);
const dumpRound = Number(values['dump-round']);
if (!(Number.isInteger(dumpRound) && dumpRound >= 0 && dumpRound < rounds)) throw new Error(`--dump-round: expected a round from 0 to ${rounds - 1}, got ${values['dump-round']}`);
const paths = preparedPaths(values.work);
const texts = (JSON.parse(readFileSync(paths.queryTexts, 'utf8')) as string[]).slice(0, Number(values.queries));
const vectors = readVectors(paths.queryVectors, 0, texts.length);
const embedder = new PrecomputedEmbedder(JSON.parse(readFileSync(paths.identity, 'utf8')) as EmbedderIdentity);
const memory = await openMemory({ path: join(values.folder, 'mnemo.db'), embedder, embeddingCache: false, logger: silentLogger });

const query = async (index: number) => {
  embedder.give(texts[index] as string, vectors[index] as Float32Array);
  const hits = await memory.query('bench', texts[index] as string, { k: 10, weights: MODE_WEIGHTS[mode] });
  embedder.clear();
  return hits;
};
const opened = performance.now();
await query(0);
console.log(`open + first query ${(performance.now() - opened).toFixed(0)} ms`);
const wall: number[] = [];
// Each query's least CPU time over the rounds: what it costs when nothing else on the machine gets in the way.
const cpu = texts.map(() => Infinity);
const dump: unknown[] = [];
for (let round = 0; round < rounds; round++) {
  for (let index = 0; index < texts.length; index++) {
    const started = performance.now();
    const before = process.cpuUsage();
    const hits = await query(index);
    const { user, system } = process.cpuUsage(before);
    wall.push(performance.now() - started);
    cpu[index] = Math.min(cpu[index] as number, (user + system) / 1000);
    if (round === dumpRound) dump.push(hits.map((hit) => ({ id: hit.entryId ?? hit.id, score: hit.score, explanation: hit.explanation })));
  }
}
const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] as number;
const { rss } = process.memoryUsage();
console.log(
  `${mode}, ${texts.length} queries x ${rounds} rounds: wall p50 ${median(wall).toFixed(2)} ms; CPU per query (least over the rounds) median ${median(cpu).toFixed(2)} ms; RSS ${(rss / 2 ** 20).toFixed(0)} MB (peak ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB)`,
);
if (values.dump !== undefined) {
  writeFileSync(values.dump, JSON.stringify(dump));
  console.log(`hits of the ${texts.length} queries (ids, scores, explanations) written to ${values.dump}`);
}
await memory.close();
