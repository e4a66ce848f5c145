// Loads a memory-system peer (mem0, Mastra) from bench/peers/node_modules, installed apart from the repository's lock.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageVersion } from './package-version.js';

const peersFolder = dirname(fileURLToPath(import.meta.url));

/** The command that installs the peers of bench/peers/package.json (its own lock, into bench/peers/node_modules). */
export const PEERS_INSTALL_HINT = 'npm run bench:peers:install';

/** Whether `name` is installed in bench/peers/node_modules. */
export function peerInstalled(name: string): boolean {
  return existsSync(join(peersFolder, 'node_modules', name, 'package.json'));
}

/** The installed version of a peer of bench/peers/package.json. */
export function peerVersion(name: string): string {
  return packageVersion(name, join(peersFolder, 'node_modules'));
}

/**
 * Imports `specifier` from bench/peers/node_modules, or throws saying how to install it. The module is typed by
 * the caller (the peers are not installed where the repository is type-checked, as in CI).
 *
 * @example
 * ```ts
 * const { Memory } = await importPeer<{ Memory: new (config: object) => unknown }>('mem0ai', 'mem0ai/oss');
 * ```
 */
export async function importPeer<T>(name: string, specifier: string): Promise<T> {
  if (!peerInstalled(name)) throw new Error(`${name} is not installed: run ${PEERS_INSTALL_HINT} (bench/peers/package.json and its lock, into bench/peers/node_modules)`);
  return (await import(specifier)) as T;
}
