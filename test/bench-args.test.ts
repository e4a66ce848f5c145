// Tests of the benchmark scripts' option reader: parsed values, --help from the script's header, clear errors.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBenchArgs } from '../bench/bench-args.js';

const folder = mkdtempSync(join(tmpdir(), 'mnemo-bench-args-'));
const script = join(folder, 'probe.bench.ts');
writeFileSync(script, "// Probe benchmark: times a probe.\n// Usage: npm run bench:probe [-- --size 10 --quiet]\nimport { x } from 'y';\n// not part of the header\n");
const config = { options: { size: { type: 'string', default: '100' }, quiet: { type: 'boolean' } } } as const;

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('readBenchArgs', () => {
  it('parses the options given and keeps the defaults of the others', () => {
    const outcome = readBenchArgs(['--quiet'], script, config);
    expect(outcome.kind).toBe('parsed');
    if (outcome.kind !== 'parsed') return;
    expect(outcome.parsed.values.size).toBe('100');
    expect(outcome.parsed.values.quiet).toBe(true);
    const given = readBenchArgs(['--size', '7'], script, config);
    expect(given.kind === 'parsed' && given.parsed.values.size).toBe('7');
  });

  it('answers --help and -h with the header comment and every option with its default', () => {
    for (const flag of ['--help', '-h']) {
      const outcome = readBenchArgs([flag], script, config);
      expect(outcome.kind).toBe('help');
      if (outcome.kind !== 'help') return;
      expect(outcome.text).toBe('Probe benchmark: times a probe.\nUsage: npm run bench:probe [-- --size 10 --quiet]\n\noptions:\n  --size <value> (default "100")\n  --quiet\n');
    }
  });

  it('names the unknown option, the options expected and --help', () => {
    const outcome = readBenchArgs(['--sise', '7'], script, config);
    expect(outcome.kind).toBe('error');
    if (outcome.kind !== 'error') return;
    expect(outcome.text).toContain("'--sise'");
    expect(outcome.text).toContain('expected: --size <value>, --quiet (and --help)');
    expect(outcome.text).toContain('--help');
  });

  it('refuses a value option given no value', () => {
    const outcome = readBenchArgs(['--size'], script, config);
    expect(outcome.kind).toBe('error');
    expect(outcome.kind === 'error' && outcome.text).toContain('--size');
  });
});

describe('a benchmark script', () => {
  const coldOpen = join(import.meta.dirname, '..', 'bench', 'peers', 'cold-open.ts');
  const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', coldOpen, ...args], { encoding: 'utf8', cwd: join(import.meta.dirname, '..') });

  it('prints its help and exits 0 before doing any work', () => {
    const result = run(['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Cold open of a Mnemo save/);
    expect(result.stdout).toContain('  --size <value> (default "100000")');
  });

  it('exits 2 on an unknown option, saying what it expects', () => {
    const result = run(['--sizes', '10']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Unknown option '--sizes'");
    expect(result.stderr).toContain('expected: --size <value>');
    expect(result.stdout).toBe('');
  });
});
