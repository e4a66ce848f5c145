// Shared test helpers: temporary folders that are removed after the run, the mnemo command run in process, what
// a SQLite file holds past its store (rows a rewind hid), and small word vector tables built from listed words.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { WordVectorTable } from '../src/embedders/static/word-vector-table.js';

/** A fresh temporary folder, removed when the test file ends. */
export function tempDir(prefix = 'mnemo-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What one run of the mnemo command printed (lines joined by newlines) and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs the mnemo command in this process through main(), capturing its standard output and standard error. The
 * CLI is imported on the first call, so test files that only need tempDir do not load it.
 *
 * @example
 * ```ts
 * const { code, out } = await runCli('--db', db, 'stats', '--json');
 * ```
 */
export async function runCli(...args: string[]): Promise<CliRun> {
  const { main } = await import('../src/cli/main.js');
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['node', 'mnemo', ...args], { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/**
 * What a SQLite file holds, read past the store: the rows of `table` of save `a` after `turnId` (hidden ones too)
 * and its pending rewinds (`rewinds`).
 *
 * @example
 * ```ts
 * expect(rewoundInFile(path, 'chunks', 'chunk_rewinds', 3)).toEqual({ rows: 0, rewinds: 0 });
 * ```
 */
export function rewoundInFile(path: string, table: 'chunks' | 'living_facts', rewinds: 'chunk_rewinds' | 'fact_rewinds', turnId: number): { rows: number; rewinds: number } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      rows: (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE save_id = 'a' AND turn_id > ?`).get(turnId) as { n: number }).n,
      rewinds: (db.prepare(`SELECT COUNT(*) AS n FROM ${rewinds}`).get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

/**
 * A static word vector table of the listed words (each with its int8 values, one scale of 0.01 for every word), ranked
 * in the order given: what a test's static embedder or soft matching reads in place of the shipped table.
 */
export function wordVectorTableOf(words: readonly (readonly [string, readonly number[]])[]): WordVectorTable {
  return new WordVectorTable({
    source: 'test',
    dimensions: words[0]?.[1].length ?? 0,
    vocabularySize: words.length,
    words: words.map(([word]) => word),
    ranks: Uint32Array.from(words, (_, rank) => rank),
    scales: new Float32Array(words.length).fill(0.01),
    values: Int8Array.from(words.flatMap(([, values]) => values)),
  });
}
