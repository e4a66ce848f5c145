// Loads an adapter's module that imports an optional peer package, turning a missing package into an install hint.
import { MnemoError } from '../core/errors.js';

/**
 * Runs `load` (a dynamic import of the adapter's module) and returns the module. When the peer package itself
 * cannot be found, throws DEPENDENCY_MISSING naming the package, the range Mnemo is tested with and the command
 * that installs it; any other failure is passed on as it is.
 *
 * @example
 * ```ts
 * const adapter = await loadPeer('@langchain/core', '^1.0.0', 'mnemo-engine/langchain', () => import('./langchain-adapter.js'));
 * ```
 */
export async function loadPeer<T>(name: string, range: string, entryPoint: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(`'${name}`)) {
      throw new MnemoError('DEPENDENCY_MISSING', `${entryPoint} needs the package ${name} (${range}), which is not installed. Install it with \`npm install ${name}\`.`, { cause: error, details: { package: name, range } });
    }
    throw error;
  }
}
