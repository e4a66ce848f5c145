// Runs the machine's git binary with a time bound, a bounded output, no prompts, and secrets removed from its errors.
import { spawn } from 'node:child_process';
import { MnemoError } from '../../core/errors.js';

/** How one git command is run. */
export interface GitCommandOptions {
  /** The git binary (default `git`, found on PATH). */
  binary: string;
  /** Environment of the child (credentials go here, as GIT_CONFIG_* entries, never on the command line). */
  environment: NodeJS.ProcessEnv;
  /** The command is killed (its whole process group) after this many milliseconds. */
  timeoutMs: number;
  /** Texts never to show in an error (tokens, passwords, headers). */
  secrets: readonly string[];
  /** Where the command is about, for messages ("fetching https://host/lore.git"). */
  action: string;
}

/** The most bytes one git command may print (a listing or one file): a lore file beyond it is refused. */
export const GIT_OUTPUT_LIMIT = 256 * 1024 * 1024;

/** Replaces every secret in `text`, and the userinfo of any URL in it, with `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let clean = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s'"]+@/gi, '$1***@');
  for (const secret of secrets) if (secret.length >= 3) clean = clean.split(secret).join('***');
  return clean;
}

/** What a git command printed, and how it ended. */
export interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs `git args...` and resolves with its output whatever its exit code; rejects with PROVIDER_TIMEOUT when it
 * runs past the bound (the process group is killed, so a helper such as git-remote-https does not linger),
 * DEPENDENCY_MISSING when git is not installed, and PROVIDER_MALFORMED when it prints more than GIT_OUTPUT_LIMIT.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runGit(['rev-parse', 'HEAD'], { binary: 'git', environment: process.env, timeoutMs: 10_000, secrets: [], action: 'reading HEAD' });
 * ```
 */
export function runGit(args: readonly string[], options: GitCommandOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.binary, args, { env: options.environment, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: MnemoError | null = null;
    const stop = (error: MnemoError) => {
      failure ??= error;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => stop(new MnemoError('PROVIDER_TIMEOUT', `git timed out after ${options.timeoutMs} ms ${options.action}; nothing was written. Check that the repository is reachable, or raise the bound (git.timeoutMs, --git-timeout or MNEMO_LORE_GIT_TIMEOUT_MS).`, { details: { timeoutMs: options.timeoutMs } })), options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > GIT_OUTPUT_LIMIT) stop(new MnemoError('PROVIDER_MALFORMED', `git printed more than ${GIT_OUTPUT_LIMIT} bytes ${options.action}; a lore file or listing that large is refused. Nothing was written.`, { details: { limit: GIT_OUTPUT_LIMIT } }));
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ENOENT') {
        reject(new MnemoError('DEPENDENCY_MISSING', `Reading lore from git needs the git binary, but ${JSON.stringify(options.binary)} was not found. Install git (e.g. apt-get install git) or pass its path as gitBinary.`, { details: { binary: options.binary } }));
      } else {
        reject(new MnemoError('PROVIDER_FAILURE', `git could not be started ${options.action}: ${redactSecrets(error.message, options.secrets)}. Nothing was written.`));
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failure !== null) reject(failure);
      else resolve({ code, stdout: Buffer.concat(chunks), stderr: redactSecrets(stderr, options.secrets) });
    });
  });
}

/** The last meaningful lines git printed on stderr, for an error message (secrets already removed). */
export function gitComplaint(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('hint:'));
  return lines.slice(-3).join(' / ') || 'no message';
}
