// Runs one worker task in a child process with a time limit; returns its JSON answer or why it failed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkerTask } from './worker.js';

const worker = join(dirname(fileURLToPath(import.meta.url)), 'worker.ts');

/** A worker's answer, or the reason there is none (a crash, a time-out). */
export type WorkerOutcome<T> = { ok: true; value: T; seconds: number } | { ok: false; reason: string; seconds: number };

/**
 * Starts `node --import tsx worker.ts <task>` and waits at most `timeoutMs`. LanceDB's full-text index build
 * hangs from about 80k rows on this 2-core machine unless LANCE_CPU_THREADS is set (lancedb#3568), so it is set
 * to the core count unless the caller set it.
 */
export function runWorker<T>(task: WorkerTask, timeoutMs: number, threads: number): Promise<WorkerOutcome<T>> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  return new Promise((resolve) => {
    // A JS heap of at most 4 GiB: an engine that keeps everything on the JS heap (Orama) fails here rather than
    // taking the whole shared machine's memory; native and typed-array memory is not bounded by it.
    const child = spawn(process.execPath, ['--max-old-space-size=4096', '--import', 'tsx', worker, JSON.stringify(task)], {
      env: { ...process.env, LANCE_CPU_THREADS: process.env['LANCE_CPU_THREADS'] ?? String(threads), RUST_LOG: process.env['RUST_LOG'] ?? 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr = (stderr + data.toString()).slice(-4000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const progress = stderr.split('\n').filter((line) => line.startsWith('progress: ')).pop();
      if (timedOut) return resolve({ ok: false, reason: `stopped after ${(timeoutMs / 60_000).toFixed(0)} min${progress === undefined ? '' : ` (${progress.slice(10)})`}`, seconds: seconds() });
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) return resolve({ ok: true, value: JSON.parse(last) as T, seconds: seconds() });
      const lines = stderr.split('\n');
      const message = lines.find((line) => /Error|error:|heap|overflow/.test(line)) ?? lines.filter((line) => line.trim() !== '').pop() ?? '';
      resolve({ ok: false, reason: `${signal ?? `exit ${code}`}: ${message.trim().slice(0, 200)}${progress === undefined ? '' : ` (${progress.slice(10)})`}`, seconds: seconds() });
    });
  });
}
