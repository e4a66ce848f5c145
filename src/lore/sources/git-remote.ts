// A git remote as Mnemo reads it: the location to record (no credentials), and the credentials handed to git privately.
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { MnemoError } from '../../core/errors.js';

/** A remote ready for git: what to fetch, what to record, and the config entries that carry its credentials. */
export interface GitRemote {
  /** What git fetches: the URL without userinfo, or an absolute path. */
  fetchUrl: string;
  /** What is recorded and shown: the same, never with credentials. */
  location: string;
  /** `git -c` entries passed through GIT_CONFIG_* in the child's environment (so never in `ps` or a log). */
  config: [string, string][];
  /** Texts to strip from every message. */
  secrets: string[];
  /** A stable name for the remote's bare cache. */
  cacheName: string;
}

/** The environment variables an import reads credentials from (when called, never at import time). */
export const GIT_TOKEN_VARIABLE = 'MNEMO_LORE_GIT_TOKEN';
export const GIT_USERNAME_VARIABLE = 'MNEMO_LORE_GIT_USERNAME';

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

function invalid(message: string): MnemoError {
  return new MnemoError('INVALID_INPUT', `git url: ${message}`, { details: { field: 'git.url' } });
}

/** Parses a URL, naming it without its userinfo when it does not parse. */
function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw invalid(`expected a URL such as https://host/lore.git, got one that does not parse (${url.replace(/\/\/[^/@]*@/, '//***@')}).`);
  }
}

/**
 * Reads a remote as given (a path, `file://`, `http(s)://`, `ssh://`, `git://`, or scp-like `user@host:path`).
 * For HTTP(S), credentials come from the URL's userinfo or else from MNEMO_LORE_GIT_TOKEN (with
 * MNEMO_LORE_GIT_USERNAME, default `x-access-token`); they are sent as an Authorization header through the child's environment, and
 * removed from the recorded location. SSH keys are git's own (the agent, ~/.ssh); a password in an ssh URL is
 * removed from the location too.
 *
 * @example
 * ```ts
 * gitRemote('https://bot:s3cret@git.example/lore.git', {}).location; // 'https://git.example/lore.git'
 * ```
 */
export function gitRemote(url: string, environment: NodeJS.ProcessEnv): GitRemote {
  if (typeof url !== 'string' || url.trim() === '') throw invalid('expected a repository (a path, file://, https://, ssh:// or user@host:path), got nothing.');
  if (url.length > 2048) throw invalid(`expected at most 2048 characters, got ${url.length}.`);
  if (url.startsWith('-')) throw invalid('must not start with "-" (git would read it as an option).');
  if ([...url].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f)) throw invalid('must not contain control characters or line breaks.');
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  const secrets: string[] = [];
  const config: [string, string][] = [];
  let fetchUrl: string;
  if (scheme === 'http' || scheme === 'https') {
    const parsed = parseUrl(url);
    const fromUrl = parsed.username !== '' || parsed.password !== '';
    const user = fromUrl ? decodeURIComponent(parsed.username) : (environment[GIT_USERNAME_VARIABLE] || 'x-access-token');
    const secret = fromUrl ? decodeURIComponent(parsed.password) : (environment[GIT_TOKEN_VARIABLE] || null);
    parsed.username = '';
    parsed.password = '';
    fetchUrl = parsed.toString();
    if (secret !== null) {
      const basic = Buffer.from(`${user}:${secret}`).toString('base64');
      config.push([`http.${fetchUrl}.extraHeader`, `Authorization: Basic ${basic}`]);
      secrets.push(basic, ...[user, secret].flatMap((text) => [text, encodeURIComponent(text)]));
    }
  } else if (scheme === 'ssh' || scheme === 'git' || scheme === 'file') {
    const parsed = parseUrl(url);
    if (parsed.password !== '') secrets.push(decodeURIComponent(parsed.password), parsed.password);
    parsed.password = '';
    fetchUrl = parsed.toString();
  } else if (scheme !== undefined) {
    throw invalid(`expected a path or a file, http, https, ssh or git URL, got the scheme "${scheme}".`);
  } else if (/^[^/]+:/.test(url) && !/^[a-z]:[\\/]/i.test(url)) {
    fetchUrl = url; // scp-like user@host:path (no slash before the first colon): ssh.
  } else {
    fetchUrl = isAbsolute(url) ? url : resolve(url);
  }
  const cacheName = createHash('sha256').update(fetchUrl).digest('hex').slice(0, 24);
  return { fetchUrl, location: fetchUrl, config, secrets, cacheName };
}

/**
 * Checks a ref (a branch, tag or commit): letters, digits and `._/-`, not starting with `-`, no `..`.
 *
 * @example
 * ```ts
 * requireGitRef('release/2024'); // 'release/2024'
 * ```
 */
export function requireGitRef(ref: string): string {
  if (typeof ref !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$/.test(ref) || ref.includes('..') || ref.includes('//') || ref.endsWith('/') || ref.endsWith('.lock')) {
    throw new MnemoError('INVALID_INPUT', `git ref: expected a branch, tag or commit (letters, digits and ._/-, starting with a letter or digit, at most 255), got ${JSON.stringify(ref)}.`, { details: { field: 'git.ref' } });
  }
  return ref;
}
