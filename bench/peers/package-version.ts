// The installed version of a package, read from its package.json (some packages do not export that file).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The version in `<modules>/<name>/package.json` (default the repository's node_modules), or of the repository
 * itself for `mnemo`.
 */
export function packageVersion(name: string, modules = join(repositoryRoot, 'node_modules')): string {
  const file = name === 'mnemo' ? join(repositoryRoot, 'package.json') : join(modules, name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
