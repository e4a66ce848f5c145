// Real git for the lore tests: a bare repository the test pushes to, and git's http-backend served on loopback.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join } from 'node:path';

const IDENTITY = ['-c', 'user.name=Lore Author', '-c', 'user.email=author@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false'];

/** Runs git synchronously (the test's own side: authoring and pushing). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...IDENTITY, ...args], { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A bare repository (`bare`) and an author's clone of it (`work`), with helpers to commit and push. */
export interface LoreRemote {
  root: string;
  bare: string;
  work: string;
  /** Replaces the clone's files with `files` (null removes a path), commits and pushes to `branch`; returns the commit. */
  commit(files: Record<string, string | null>, message: string, branch?: string): string;
  /** Makes `path` a symbolic link to `target` in the next commit. */
  link(path: string, target: string): void;
  /** Moves `branch` back to `commit`, commits `files` there and force-pushes; returns the new commit. */
  forcePush(base: string, files: Record<string, string | null>, message: string, branch?: string): string;
  tag(name: string, commit: string): void;
}

/**
 * Creates `name.git` (bare, default branch main) under `parent` and a clone to author in.
 *
 * @example
 * const remote = loreRemote(dir, 'world'); const first = remote.commit({ 'index.yaml': 'files: []\n' }, 'start');
 */
export function loreRemote(parent: string, name: string): LoreRemote {
  const root = join(parent, name);
  const bare = join(root, `${name}.git`);
  const work = join(root, 'work');
  mkdirSync(root, { recursive: true });
  git(root, 'init', '--bare', '--quiet', bare);
  git(root, 'clone', '--quiet', bare, work);
  const write = (files: Record<string, string | null>) => {
    for (const [path, text] of Object.entries(files)) {
      const full = join(work, path);
      if (text === null) {
        rmSync(full, { force: true, recursive: true });
        continue;
      }
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
  };
  const commitAndHead = (message: string) => {
    git(work, 'add', '--all');
    git(work, 'commit', '--quiet', '--allow-empty', '-m', message);
    return git(work, 'rev-parse', 'HEAD');
  };
  return {
    root,
    bare,
    work,
    commit(files, message, branch = 'main') {
      const current = git(work, 'symbolic-ref', '--short', 'HEAD');
      if (current !== branch) git(work, 'checkout', '--quiet', '-B', branch);
      write(files);
      const head = commitAndHead(message);
      git(work, 'push', '--quiet', 'origin', `${branch}:${branch}`);
      return head;
    },
    link(path, target) {
      const full = join(work, path);
      rmSync(full, { force: true, recursive: true });
      mkdirSync(dirname(full), { recursive: true });
      symlinkSync(target, full);
    },
    forcePush(base, files, message, branch = 'main') {
      git(work, 'checkout', '--quiet', '-B', branch, base);
      write(files);
      const head = commitAndHead(message);
      git(work, 'push', '--quiet', '--force', 'origin', `${branch}:${branch}`);
      return head;
    },
    tag(name, commit) {
      git(work, 'tag', name, commit);
      git(work, 'push', '--quiet', 'origin', `refs/tags/${name}`);
    },
  };
}

/** How the test server behaves. */
export interface GitHttpOptions {
  /** Require this user and password (Basic); 401 otherwise. */
  auth?: { user: string; password: string };
  /** `serve` (default); `stall`: accept and never answer; `drop`: close the connection once the request arrives. */
  mode?: 'serve' | 'stall' | 'drop';
}

/** A running git HTTP server and what it saw. */
export interface GitHttpServer {
  /** Base URL: `${url}/world.git` is the repository `world.git` under the project root. */
  url: string;
  /** The Authorization headers received, in order. */
  authorizations: (string | undefined)[];
  options: GitHttpOptions;
  close(): Promise<void>;
}

/** Answers one request by running git http-backend as a CGI program. */
function backend(projectRoot: string, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://loopback');
  const child = spawn('git', ['http-backend'], {
    env: {
      ...process.env,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: request.method ?? 'GET',
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      REMOTE_ADDR: '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  request.pipe(child.stdin);
  let head: Buffer | null = Buffer.alloc(0);
  child.stdout.on('data', (chunk: Buffer) => {
    if (head === null) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    response.write(head.subarray(end + 4));
    head = null;
  });
  child.on('close', () => response.end());
}

/**
 * Serves every bare repository under `projectRoot` over smart HTTP on 127.0.0.1 (a free port), through the
 * machine's `git http-backend`; `options` (changeable while it runs) add Basic auth, a stall or a dropped connection.
 *
 * @example
 * const server = await serveGitHttp(remote.root); const url = `${server.url}/world.git`;
 */
export async function serveGitHttp(projectRoot: string, options: GitHttpOptions = {}): Promise<GitHttpServer> {
  const authorizations: (string | undefined)[] = [];
  const held = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    if (served.options.mode === 'stall') return;
    if (served.options.mode === 'drop') {
      request.socket.destroy();
      return;
    }
    const auth = served.options.auth;
    if (auth !== undefined && request.headers.authorization !== `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="lore"' });
      response.end('unauthorized');
      return;
    }
    backend(projectRoot, request, response);
  });
  server.on('connection', (socket) => {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const served: GitHttpServer = {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    options,
    close: () => new Promise((resolve) => {
      for (const socket of held) socket.destroy();
      server.close(() => resolve());
    }),
  };
  return served;
}
