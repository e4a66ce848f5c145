// Turns what a caller names as a lore repository (a folder path, { folder }, { git }, or a source) into a LoreSource.
import { MnemoError } from '../../core/errors.js';
import { folderLoreSource } from './folder-lore-source.js';
import { gitLoreSource } from './git-lore-source.js';
import type { GitLoreSourceOptions } from './git-lore-source.js';
import type { LoreSource } from './lore-source.js';

/** A lore repository as `importRepository` takes it. */
export type LoreRepository = string | { folder: string } | { git: GitLoreSourceOptions } | LoreSource;

/**
 * The source a repository names: a string or `{ folder }` is a folder, `{ git: { url, ref } }` a git repository.
 *
 * @example
 * ```ts
 * loreSourceOf({ git: { url: 'https://git.example/lore.git', ref: 'v2' } });
 * ```
 */
export function loreSourceOf(repository: LoreRepository): LoreSource {
  if (typeof repository === 'string') return folderLoreSource(repository);
  if (typeof repository === 'object' && repository !== null) {
    if ('snapshot' in repository && typeof repository.snapshot === 'function') return repository;
    if ('folder' in repository && typeof repository.folder === 'string') return folderLoreSource(repository.folder);
    if ('git' in repository && typeof repository.git === 'object' && repository.git !== null) return gitLoreSource(repository.git);
  }
  throw new MnemoError('INVALID_INPUT', 'Lore repository: expected a folder path, { folder: "path" } or { git: { url, ref } }, got something else.', { details: { field: 'repository' } });
}
