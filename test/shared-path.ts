// Finds the project's shared/ folder (beside the repository in CI and in sessions).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The LoCoMo scorer script, from ../shared beside the repository (or MNEMO_SHARED), or null when absent. */
export function locomoScorer(): string | null {
  const candidates = [process.env['MNEMO_SHARED'], join(root, '..', 'shared'), '/work/shared'].filter((path): path is string => path !== undefined);
  for (const base of candidates) {
    const script = join(base, 'bench', 'locomo', 'baseline.mjs');
    if (existsSync(script)) return script;
  }
  return null;
}
