// The PostgreSQL server (and Citus cluster) a benchmark measures: the one configured, or a throwaway one started for the run.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const scripts = join(dirname(fileURLToPath(import.meta.url)), '..', 'scripts');
const serverScript = join(scripts, 'postgres-test-server.sh');
const citusScript = join(scripts, 'citus-test-server.sh');

/** The server the benchmark was given: `MNEMO_BENCH_PG_URL`, else `MNEMO_TEST_PG_URL`, else undefined. */
export function configuredPostgresUrl(): string | undefined {
  return process.env['MNEMO_BENCH_PG_URL'] ?? process.env['MNEMO_TEST_PG_URL'];
}

/**
 * Starts a throwaway server with scripts/postgres-test-server.sh (1 GB of shared buffers and of maintenance memory
 * unless MNEMO_PG_SERVER_OPTIONS says otherwise) and returns its URL.
 *
 * @example
 * ```ts
 * const url = startPostgresServer();
 * try { await run(url); } finally { stopPostgresServer(url); }
 * ```
 */
export function startPostgresServer(): string {
  const options = process.env['MNEMO_PG_SERVER_OPTIONS'] ?? '-c shared_buffers=1GB -c maintenance_work_mem=1GB';
  return execFileSync(serverScript, ['start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, MNEMO_PG_SERVER_OPTIONS: options } }).trim();
}

/** Stops a server `startPostgresServer` started and removes its folder. */
export function stopPostgresServer(url: string): void {
  execFileSync(serverScript, ['stop', url], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The Citus coordinator the benchmark was given: `MNEMO_BENCH_CITUS_URL`, else `MNEMO_TEST_CITUS_URL`, else undefined. */
export function configuredCitusUrl(): string | undefined {
  return process.env['MNEMO_BENCH_CITUS_URL'] ?? process.env['MNEMO_TEST_CITUS_URL'];
}

/**
 * Starts a throwaway Citus cluster (a coordinator and two workers) with scripts/citus-test-server.sh and returns the
 * coordinator's URL; `shardCount` shards per distributed table.
 *
 * @example
 * ```ts
 * const url = startCitusCluster(8);
 * try { await run(url); } finally { stopCitusCluster(url); }
 * ```
 */
export function startCitusCluster(shardCount: number): string {
  return execFileSync(citusScript, ['start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, MNEMO_CITUS_SHARD_COUNT: String(shardCount) } }).trim();
}

/** Stops a cluster `startCitusCluster` started and removes its folder. */
export function stopCitusCluster(url: string): void {
  execFileSync(citusScript, ['stop', url], { stdio: ['ignore', 'ignore', 'inherit'] });
}
