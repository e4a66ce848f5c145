// The git reader of the lore source seam: a repository at a ref, fetched into a bare cache and read without a checkout.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MnemoError } from '../../core/errors.js';
import { GIT_TOKEN_VARIABLE, GIT_USERNAME_VARIABLE, gitRemote, requireGitRef } from './git-remote.js';
import type { GitRemote } from './git-remote.js';
import type { LoreFileRead, LoreSnapshot, LoreSource } from './lore-source.js';
import { symbolicLinkMessage } from './lore-source.js';
import { gitComplaint, runGit } from './run-git.js';
import type { GitCommandOptions } from './run-git.js';

/** Where a git import reads from. */
export interface GitLoreSourceOptions {
  /** The repository: a path, `file://`, `https://`, `ssh://`, `git://` or `user@host:path`. */
  url: string;
  /** A branch, tag or commit (default: the remote's HEAD, its default branch). */
  ref?: string;
  /** Folder of the bare caches (default MNEMO_LORE_GIT_CACHE, else $XDG_CACHE_HOME or ~/.cache, then mnemo/lore-git). */
  cacheDir?: string;
  /** Bound on each git command, in ms (default MNEMO_LORE_GIT_TIMEOUT_MS, else 60,000). */
  timeoutMs?: number;
  /** The git binary (default `git`). */
  gitBinary?: string;
  /** Where credentials and defaults are read (default process.env, read when the snapshot is taken). */
  environment?: NodeJS.ProcessEnv;
}

/** The default bound on one git command. */
export const GIT_TIMEOUT_MS = 60_000;

/** The ref the remote's HEAD is fetched into (a ref of the cache, never of the remote). */
const REMOTE_HEAD = 'refs/mnemo/remote-head';

/** Only these transports are allowed (git's `ext::` and others, which run commands, are not). */
const PROTOCOLS = ['file', 'http', 'https', 'ssh', 'git'];

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
}

function defaultCacheDir(environment: NodeJS.ProcessEnv): string {
  if (environment.MNEMO_LORE_GIT_CACHE) return environment.MNEMO_LORE_GIT_CACHE;
  return join(environment.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mnemo', 'lore-git');
}

function timeoutOf(options: GitLoreSourceOptions, environment: NodeJS.ProcessEnv): number {
  const given = options.timeoutMs ?? (environment.MNEMO_LORE_GIT_TIMEOUT_MS ? Number(environment.MNEMO_LORE_GIT_TIMEOUT_MS) : GIT_TIMEOUT_MS);
  if (!Number.isInteger(given) || given < 1 || given > 3_600_000) {
    throw new MnemoError('INVALID_INPUT', `git timeout: expected a whole number of milliseconds from 1 to 3600000, got ${JSON.stringify(options.timeoutMs ?? environment.MNEMO_LORE_GIT_TIMEOUT_MS)}.`, { details: { field: 'git.timeoutMs' } });
  }
  return given;
}

/** The child's environment: no prompts, only the allowed transports, and the remote's credentials as config entries. */
function childEnvironment(environment: NodeJS.ProcessEnv, remote: GitRemote): NodeJS.ProcessEnv {
  const config: [string, string][] = [['protocol.allow', 'never'], ...PROTOCOLS.map((name): [string, string] => [`protocol.${name}.allow`, 'always']), ...remote.config];
  const child: NodeJS.ProcessEnv = { ...environment, GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never', GIT_CONFIG_COUNT: String(config.length) };
  config.forEach(([key, value], index) => {
    child[`GIT_CONFIG_KEY_${index}`] = key;
    child[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  if (child.GIT_SSH_COMMAND === undefined && child.GIT_SSH === undefined) child.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes';
  return child;
}

/** What to do when the remote refused the credentials (or got none). */
function credentialHint(stderr: string): string {
  return /could not read (Username|Password)|Authentication failed|401|403/i.test(stderr)
    ? ` The remote asked for credentials: set ${GIT_TOKEN_VARIABLE} (and ${GIT_USERNAME_VARIABLE} when the user is not x-access-token), or check them; for ssh, load the key into the agent.`
    : '';
}

/** Parses `git ls-tree -r -t -z` output: path -> mode, type and object id. */
function parseTree(output: Buffer): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  for (const record of output.toString('utf8').split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', type = '', oid = ''] = record.slice(0, tab).split(' ');
    entries.set(record.slice(tab + 1), { mode, type, oid });
  }
  return entries;
}

/** Reads one file of a commit's tree, refusing symbolic links (file or folder) as the folder reader does. */
async function readTreeFile(tree: Map<string, TreeEntry>, path: string, git: (args: string[], action: string) => Promise<Buffer>): Promise<LoreFileRead> {
  const parts = path.split('/');
  for (let depth = 1; depth < parts.length; depth++) {
    const folder = parts.slice(0, depth).join('/');
    const entry = tree.get(folder);
    if (entry === undefined) return { missing: true };
    if (entry.mode === '120000') return { message: symbolicLinkMessage('folder', folder) };
    if (entry.type !== 'tree') return { missing: true };
  }
  const entry = tree.get(path);
  if (entry === undefined) return { missing: true };
  if (entry.mode === '120000') return { message: symbolicLinkMessage('file') };
  if (entry.type === 'tree') return { message: 'is a folder, not a file' };
  if (entry.type !== 'blob') return { message: 'is a submodule (a commit of another repository), not a file' };
  return { text: (await git(['cat-file', 'blob', entry.oid], `reading ${path}`)).toString('utf8') };
}

/**
 * The git reader: fetches the remote's branches and tags (and its HEAD when no ref is given) into a bare cache
 * (one per remote, under `cacheDir`; force-pushes replace what was fetched), resolves the ref to a commit, and
 * reads files from that commit's tree with `git cat-file`: there is no working checkout. Each git command is
 * bounded by `timeoutMs`; credentials go to git through its environment and are removed from every message and
 * from the recorded location. Symbolic links in the tree are refused, as the folder reader refuses them.
 *
 * @example
 * ```ts
 * await memory.lore.importRepository(gitLoreSource({ url: 'https://git.example/world/lore.git', ref: 'main' }));
 * ```
 */
export function gitLoreSource(options: GitLoreSourceOptions): LoreSource {
  return {
    async snapshot(): Promise<LoreSnapshot> {
      const environment = options.environment ?? process.env;
      const remote = gitRemote(options.url, environment);
      const ref = options.ref === undefined || options.ref === '' ? null : requireGitRef(options.ref);
      const command: Omit<GitCommandOptions, 'action'> = { binary: options.gitBinary ?? 'git', environment: childEnvironment(environment, remote), timeoutMs: timeoutOf(options, environment), secrets: remote.secrets };
      const cache = join(options.cacheDir ?? defaultCacheDir(environment), `${remote.cacheName}.git`);
      const git = async (args: string[], action: string): Promise<Buffer> => {
        const result = await runGit(['-C', cache, ...args], { ...command, action: `${action} (${remote.location})` });
        if (result.code !== 0) throw new MnemoError('PROVIDER_FAILURE', `git failed ${action} from ${remote.location}: ${gitComplaint(result.stderr)}.${credentialHint(result.stderr)} Nothing was written.`, { details: { location: remote.location } });
        return result.stdout;
      };
      if (!existsSync(join(cache, 'HEAD'))) {
        await mkdir(cache, { recursive: true });
        await git(['init', '--bare', '--quiet'], 'creating the cache');
      }
      const refspecs = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*', ...(ref === null ? [`+HEAD:${REMOTE_HEAD}`] : [])];
      await git(['fetch', '--quiet', '--prune', '--no-tags', '--no-write-fetch-head', '--', remote.fetchUrl, ...refspecs], 'fetching');
      const commit = await resolveCommit(ref ?? REMOTE_HEAD, command, cache, remote, git);
      const tree = parseTree(await git(['ls-tree', '-r', '-t', '-z', '--full-tree', commit], `listing commit ${commit}`));
      return { origin: { reader: 'git', location: remote.location, ref: ref ?? 'HEAD', commit }, read: (path) => readTreeFile(tree, path, git) };
    },
  };
}

/** Resolves a ref among the fetched ones; a commit id that is on no branch or tag is asked of the remote by id. */
async function resolveCommit(ref: string, command: Omit<GitCommandOptions, 'action'>, cache: string, remote: GitRemote, git: (args: string[], action: string) => Promise<Buffer>): Promise<string> {
  const resolve = async () => {
    const result = await runGit(['-C', cache, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { ...command, action: `resolving ${ref}` });
    return result.code === 0 ? result.stdout.toString('utf8').trim() : null;
  };
  let commit = await resolve();
  if (commit === null && /^[0-9a-f]{40}$/.test(ref)) {
    await runGit(['-C', cache, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote.fetchUrl, ref], { ...command, action: `fetching commit ${ref} (${remote.location})` });
    commit = await resolve();
  }
  if (commit !== null) return commit;
  const branches = (await git(['for-each-ref', '--format=%(refname:short)', 'refs/heads', 'refs/tags'], 'listing refs')).toString('utf8').split('\n').filter((line) => line !== '');
  const known = branches.length === 0 ? 'it has no branches or tags' : `it has ${branches.slice(0, 20).join(', ')}${branches.length > 20 ? ', ...' : ''}`;
  throw new MnemoError('NOT_FOUND', `git ref ${JSON.stringify(ref === REMOTE_HEAD ? 'HEAD' : ref)}: no branch, tag or commit of that name in ${remote.location} (${known}). Nothing was written; pass an existing ref.`, { details: { ref, location: remote.location } });
}
