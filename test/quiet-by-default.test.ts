// Quiet by default: the library logs nothing without a logger; the CLI names its embedder only with --verbose.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(import.meta.dirname, 'fixtures', 'cli-child.ts');
const dir = tempDir();

const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !['MNEMO_DB', 'MNEMO_EMBEDDER'].includes(name)));
const run = (script: string, args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, encoding: 'utf8', env: environment });

describe('quiet by default', () => {
  it('openMemory with the auto embedder, a write, a query and a failing embedder print nothing without a logger', () => {
    const script = join(dir, 'library.mts');
    writeFileSync(script, [
      `import { openMemory } from ${JSON.stringify(join(ROOT, 'src', 'index.js'))};`,
      `const memory = await openMemory({ path: ${JSON.stringify(join(dir, 'library.db'))} });`,
      "await memory.add({ saveId: 's', turnId: 1, text: 'The keeper lit the lamp.' });",
      "const hits = await memory.query('s', 'lamp');",
      'await memory.close();',
      "const broken = await openMemory({ path: ':memory:', embedder: { provider: 'test', modelId: 'down', dimensions: 4, maxBatchSize: 8, embed: async () => { throw new Error('down'); } } });",
      "await broken.add({ saveId: 's', turnId: 1, text: 'The lamp is out.' });",
      "const lexical = await broken.query('s', 'lamp');",
      'await broken.close();',
      'console.log(hits.length, lexical.length);',
    ].join('\n'));
    const result = run(script, []);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe('1 1');
    expect(result.stderr).toBe('');
  });

  it('the CLI says which embedder it picked only with --verbose', () => {
    const db = join(dir, 'cli.db');
    const quiet = run(CLI, ['--db', db, 'add', 'camp', '1', 'The ferryman waits']);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
    const verbose = run(CLI, ['--db', db, '--verbose', 'stats']);
    expect(verbose.status).toBe(0);
    expect(verbose.stderr).toMatch(/^\[mnemo\] embedder: static\/glove-sg-100d-top100k-sif-rank \(100 dimensions\) \(auto: /m);
  });
});
