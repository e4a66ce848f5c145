// Cold open of a Mnemo save, alone: builds a synthetic save once (kept), then opens it and answers one hybrid query.
// Run: npm run bench:cold-open -- [--size 100000] [--work /tmp/mnemo-peers] [--folder <save folder>]
//        [--dump <file.json>] (also writes the top-10 ids of the prepared queries in every mode, to compare rankings)
// Profile with: node --cpu-prof --cpu-prof-dir <dir> --import tsx bench/peers/cold-open.ts
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from '../bench-args.js';
import type { EmbedderIdentity } from '../../src/seams/embedding-store.js';
import { prepareVectors, preparedPaths, readVectors } from './corpus.js';
import { QUERY_MODES } from './engine.js';
import { mnemoEngine } from './mnemo-engine.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    size: { type: 'string', default: '100000' },
    work: { type: 'string', default: '/tmp/mnemo-peers' },
    folder: { type: 'string' },
    queries: { type: 'string', default: '50' },
    dump: { type: 'string' },
  },
});
const size = Number(values.size);
const work = values.work;
const folder = values.folder ?? join(work, 'cold-open', `mnemo-${size}`);
const paths = preparedPaths(work);
await prepareVectors(work, size, Number(values.queries), null);
if (!existsSync(join(folder, 'mnemo.db'))) {
  process.stderr.write(`building a ${size}-chunk save in ${folder} (once)\n`);
  const task = { kind: 'ingest', engine: 'mnemo', work, folder, size, batch: 10_000 };
  execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'worker.ts'), JSON.stringify(task)], { stdio: ['ignore', 'ignore', 'inherit'] });
}
const texts = (JSON.parse(readFileSync(paths.queryTexts, 'utf8')) as string[]).slice(0, Number(values.queries));
const vectors = readVectors(paths.queryVectors, 0, texts.length);
const engine = mnemoEngine(JSON.parse(readFileSync(paths.identity, 'utf8')) as EmbedderIdentity);
const opened = performance.now();
const cpu = process.cpuUsage();
const collection = await engine.open(folder);
await collection.query('hybrid', texts[0] as string, vectors[0] as Float32Array, 10, 0);
const coldOpenMs = performance.now() - opened;
const { user, system } = process.cpuUsage(cpu);
const rssMb = process.resourceUsage().maxRSS / 1024;
console.log(`cold open + first hybrid query: ${coldOpenMs.toFixed(0)} ms (CPU ${((user + system) / 1000).toFixed(0)} ms), peak RSS ${rssMb.toFixed(0)} MB (${size} chunks)`);
if (values.dump !== undefined) {
  const rankings: Record<string, string[][]> = {};
  // The unfiltered modes only, so a dump compares with one written before the filtered mode existed.
  const modes = QUERY_MODES.filter((mode) => mode !== 'filtered');
  for (const mode of modes) {
    rankings[mode] = [];
    for (const [index, text] of texts.entries()) rankings[mode].push(await collection.query(mode, text, vectors[index] as Float32Array, 10, 0));
  }
  writeFileSync(values.dump, JSON.stringify(rankings));
  console.log(`top-10 ids of ${texts.length} queries x ${modes.length} modes written to ${values.dump}`);
}
await collection.close();
