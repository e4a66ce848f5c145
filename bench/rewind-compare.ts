// Times store.rewind of one SQLite save in two checkouts of Mnemo, trials alternating in one process, so that both
// see the same load: CPU time (this process's user + system) and wall time, medians with p25-p75.
// Usage: node --import tsx bench/rewind-compare.ts --file SAVE.db [--save bench --turn 500 --trials 21] BEFORE AFTER
// SAVE.db: e.g. `npm run bench:living -- --keep /tmp/living.db`, run in the older checkout (an older Mnemo refuses a
// file a newer schema wrote); BEFORE and AFTER: checkout folders (each with its src/).
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchArgs } from './bench-args.js';
import type { Store } from '../src/seams/store.js';

const { values, positionals } = benchArgs(import.meta.url, {
  allowPositionals: true,
  options: {
    file: { type: 'string' },
    save: { type: 'string', default: 'bench' },
    turn: { type: 'string', default: '500' },
    trials: { type: 'string', default: '21' },
  },
});
const checkouts = positionals.map((folder) => resolve(folder));
if (values.file === undefined || !existsSync(values.file) || checkouts.length !== 2) {
  throw new Error('usage: bench/rewind-compare.ts --file SAVE.db [--save ID --turn N --trials N] BEFORE AFTER (two checkout folders)');
}
const source = values.file;
const TURN = Number(values.turn);
const TRIALS = Number(values.trials);
type Open = (options: { path: string; durability: 'full' }) => Store;
const openers: Open[] = [];
for (const checkout of checkouts) openers.push(((await import(join(checkout, 'src/stores/sqlite/index.ts'))) as { openSqliteStore: Open }).openSqliteStore);

const copy = join(tmpdir(), `mnemo-rewind-compare-${process.pid}.db`);
const files = ['', '-wal', '-shm'];
const results = checkouts.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
const load = () => loadavg().map((value) => value.toFixed(1)).join(' / ');
console.log(`rewind of ${values.save} to turn ${TURN}, ${TRIALS} fresh copies of ${source} per checkout, alternating, synchronous = FULL; load average before ${load()}`);
for (let trial = 0; trial < TRIALS; trial++) {
  for (const side of trial % 2 === 0 ? [0, 1] : [1, 0]) {
    for (const suffix of files) {
      rmSync(copy + suffix, { force: true });
      if (existsSync(source + suffix)) copyFileSync(source + suffix, copy + suffix);
    }
    const store = (openers[side] as Open)({ path: copy, durability: 'full' });
    await store.countChunks(values.save);
    await store.living.countFacts(values.save);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await store.rewind(values.save, TURN);
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    results[side]?.wall.push(wall);
    results[side]?.cpu.push((cpu.user + cpu.system) / 1000);
    await store.close();
  }
}
for (const suffix of files) rmSync(copy + suffix, { force: true });
const at = (list: number[], fraction: number) => ([...list].sort((a, b) => a - b)[Math.floor(fraction * (list.length - 1))] as number).toFixed(1);
const spread = (list: number[]) => `${at(list, 0.5)} ms (${at(list, 0.25)}-${at(list, 0.75)})`;
console.log('| checkout | CPU median (p25-p75) | wall median (p25-p75) |\n|---|---|---|');
checkouts.forEach((checkout, index) => console.log(`| ${checkout} | ${spread(results[index]?.cpu ?? [])} | ${spread(results[index]?.wall ?? [])} |`));
console.log(`load average after ${load()}`);
