// Times store.rewind of one PostgreSQL save in two checkouts of Mnemo, trials alternating in one process on fresh
// copies of a kept database, so that both see the same load: wall time, this process's CPU and the server's CPU
// (its backends' user + system time from /proc, so the server must run on this machine), medians.
// Usage: node --import tsx bench/postgres-rewind-compare.ts --url URL --database NAME [--save bench --turn 500
// --trials 7] BEFORE AFTER
// NAME: e.g. `npm run bench:living -- --store postgres --keep NAME`, run in the older checkout (an older Mnemo
// refuses a schema a newer one migrated); URL: that server (any database on it); BEFORE and AFTER: checkout folders.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { benchArgs } from './bench-args.js';
import pg from 'pg';
import type * as PostgresIndex from '../src/stores/postgres/index.js';

const { values, positionals } = benchArgs(import.meta.url, {
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    database: { type: 'string' },
    save: { type: 'string', default: 'bench' },
    turn: { type: 'string', default: '500' },
    trials: { type: 'string', default: '7' },
  },
});
const checkouts = positionals.map((folder) => resolve(folder));
if (values.url === undefined || values.database === undefined || checkouts.length !== 2) {
  throw new Error('usage: bench/postgres-rewind-compare.ts --url URL --database NAME [--save ID --turn N --trials N] BEFORE AFTER (two checkout folders)');
}
const url = values.url;
const template = values.database;
const saveId = values.save;
const turn = Number(values.turn);

/** User + system clock ticks (10 ms) of a process, 0 once it is gone. */
function ticks(pid: number): number {
  try {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] as string).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
const admin = new pg.Pool({ connectionString: url, max: 1 });
const modules = await Promise.all(checkouts.map((folder) => import(`${folder}/src/stores/postgres/index.js`) as Promise<typeof PostgresIndex>));
const results = checkouts.map(() => ({ wall: [] as number[], client: [] as number[], server: [] as number[] }));
console.log(`load average before: ${loadavg().map((value) => value.toFixed(1)).join(' / ')}`);
for (let trial = 0; trial < Number(values.trials); trial++) {
  for (const [index, module] of modules.entries()) {
    const copy = `${template}_compare_${index}_${trial}`;
    await admin.query(`DROP DATABASE IF EXISTS ${copy}`);
    await admin.query(`CREATE DATABASE ${copy} TEMPLATE ${template}`);
    const copyUrl = new URL(url);
    copyUrl.pathname = `/${copy}`;
    const store = await module.openPostgresStore({ client: module.poolQueryable(new pg.Pool({ connectionString: copyUrl.toString(), max: 2 }), { owned: true }), vectorIndexes: 'manual' });
    await store.countChunks(saveId);
    await store.living.countFacts(saveId);
    await new Promise((done) => setTimeout(done, 300)); // the store's own background work at opening, over
    const pids = (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [copy])).rows.map((row) => row.pid);
    const before = pids.map(ticks);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await store.rewind(saveId, turn);
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const result = results[index] as (typeof results)[number];
    result.wall.push(wall);
    result.client.push((used.user + used.system) / 1000);
    result.server.push(pids.reduce((sum, pid, at) => sum + ticks(pid) - (before[at] as number), 0) * 10);
    await store.close();
    await admin.query(`DROP DATABASE ${copy}`);
  }
}
console.log(`load average after: ${loadavg().map((value) => value.toFixed(1)).join(' / ')}`);
console.log('| checkout | wall median ms (min) | this process CPU median ms | server CPU median ms | both, median ms |');
console.log('|---|---|---|---|---|');
for (const [index, folder] of checkouts.entries()) {
  const { wall, client, server } = results[index] as (typeof results)[number];
  console.log(`| ${folder} | ${median(wall).toFixed(1)} (${Math.min(...wall).toFixed(1)}) | ${median(client).toFixed(1)} | ${median(server).toFixed(0)} | ${median(client.map((value, at) => value + (server[at] as number))).toFixed(0)} |`);
}
await admin.end();
