// The lore source seam: where an import reads a repository's files from (a folder, or a git repository at a ref).
import type { LoreOriginIdentity } from '../../seams/lore-store.js';

/** One file read from a source: its text, or that it is absent, or why it cannot be read (the caller names the path; never its content). */
export type LoreFileRead = { text: string } | { missing: true } | { message: string };

/**
 * A repository's files as they were when the snapshot was taken (a git commit, or a folder as it stands). Paths
 * are relative to the repository root, `/`-separated and normalised (the manifest rules have checked them).
 */
export interface LoreSnapshot {
  /** Where the files come from: reader, location (never with credentials), ref and resolved commit. */
  readonly origin: LoreOriginIdentity;
  /** Reads one file; a file's own problem (absent, a folder, a symbolic link) is returned, never thrown. */
  read(path: string): Promise<LoreFileRead>;
}

/**
 * A place lore is imported from. `snapshot()` reaches it (for git: fetches the ref into a bare cache and
 * resolves its commit) and throws a MnemoError when it cannot (unreachable, unknown ref, timed out).
 *
 * @example
 * ```ts
 * const snapshot = await folderLoreSource('examples/lore').snapshot();
 * const manifest = await snapshot.read('index.yaml');
 * ```
 */
export interface LoreSource {
  snapshot(): Promise<LoreSnapshot>;
}

/** Why a symbolic link in a repository is refused (both readers refuse them, wherever they point); the caller names the path. */
export function symbolicLinkMessage(kind: 'file' | 'folder', under?: string): string {
  const what = under === undefined ? 'is a symbolic link' : `is under ${under}, a symbolic link`;
  return `${what}; lore is read only from files inside the repository, so symbolic links are refused: put the ${kind} itself there`;
}
