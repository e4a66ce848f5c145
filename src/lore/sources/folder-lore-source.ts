// The folder reader of the lore source seam: a repository as it stands on disk, symbolic links refused.
import { constants } from 'node:fs';
import { lstat, open, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MnemoError } from '../../core/errors.js';
import type { LoreFileRead, LoreSnapshot, LoreSource } from './lore-source.js';
import { symbolicLinkMessage } from './lore-source.js';

const errorCode = (error: unknown) => (error as { code?: string }).code;

/** Checks every folder between the root and the file (none may be a symbolic link); null when all are plain folders. */
async function folderProblem(root: string, path: string): Promise<LoreFileRead | null> {
  const parts = path.split('/');
  for (let depth = 1; depth < parts.length; depth++) {
    const folder = parts.slice(0, depth).join('/');
    const info = await lstat(join(root, folder)).catch((error: unknown) => error as Error);
    if (info instanceof Error) return errorCode(info) === 'ENOENT' || errorCode(info) === 'ENOTDIR' ? { missing: true } : { message: `could not be read: ${info.message}` };
    if (info.isSymbolicLink()) return { message: symbolicLinkMessage('folder', folder) };
    if (!info.isDirectory()) return { missing: true };
  }
  return null;
}

/**
 * Reads one file of the repository: refused when it, or a folder on its way, is a symbolic link (wherever it
 * points), or when it is not a regular file. The file is opened with O_NOFOLLOW, so a link swapped in after the
 * check is refused too.
 */
async function readRepositoryFile(root: string, path: string): Promise<LoreFileRead> {
  const folder = await folderProblem(root, path);
  if (folder !== null) return folder;
  const full = join(root, path);
  const info = await lstat(full).catch((error: unknown) => error as Error);
  if (info instanceof Error) return errorCode(info) === 'ENOENT' ? { missing: true } : { message: `could not be read: ${info.message}` };
  if (info.isSymbolicLink()) return { message: symbolicLinkMessage('file') };
  if (info.isDirectory()) return { message: 'is a folder, not a file' };
  if (!info.isFile()) return { message: 'is not a regular file' };
  let handle;
  try {
    handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return errorCode(error) === 'ELOOP' ? { message: symbolicLinkMessage('file') } : { message: `could not be read: ${(error as Error).message}` };
  }
  try {
    if (!(await handle.stat()).isFile()) return { message: 'is not a regular file' };
    return { text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

/**
 * The folder reader: a repository folder as it stands (no ref, no commit). The root itself may be reached
 * through a symbolic link (it is resolved once); inside it, every symbolic link is refused, file or folder,
 * wherever it points, so an import never reads outside the repository.
 *
 * @example
 * ```ts
 * await memory.lore.importRepository(folderLoreSource('examples/lore'));
 * ```
 */
export function folderLoreSource(directory: string): LoreSource {
  return {
    async snapshot(): Promise<LoreSnapshot> {
      const isFolder = await stat(directory).then((info) => info.isDirectory(), () => false);
      if (!isFolder) {
        throw new MnemoError('NOT_FOUND', `Lore repository: expected a folder holding index.yaml, got ${JSON.stringify(directory)}, which is not a folder. Pass the repository's root folder, e.g. examples/lore.`, { details: { path: directory } });
      }
      const root = await realpath(directory);
      return { origin: { reader: 'folder', location: root, ref: null, commit: null }, read: (path) => readRepositoryFile(root, path) };
    },
  };
}
