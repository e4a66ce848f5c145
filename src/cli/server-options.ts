// The flags `mnemo serve` and `mnemo mcp --http` share: address, tokens, limits; and the auth they resolve to.
import type { Command } from 'commander';
import { MnemoError } from '../core/errors.js';
import { isLoopbackHost } from '../server/loopback.js';
import { parseTokenSpec, readTokensFile, TokenTable } from '../server/tokens.js';
import type { TokenGrant } from '../server/tokens.js';
import { DEFAULT_MAX_BODY_BYTES } from '../server/create-api.js';
import { parseInteger } from './context.js';

/** The port used when --port is not given. */
export const DEFAULT_PORT = 7420;

/** The server flags as commander parses them. */
export interface ServerFlags {
  port: number;
  host: string;
  token: string[];
  adminToken: string[];
  tokensFile?: string;
  insecureLocal?: boolean;
  maxBody: number;
  shutdownTimeout: number;
  logRequests?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds --port, --host, --token, --admin-token, --tokens-file, --insecure-local, --max-body, --shutdown-timeout, --log-requests. */
export function addServerOptions(command: Command): Command {
  return command
    .option('--port <port>', 'the port (0 = a free one, printed at start)', parseInteger('port', 0, 65535), DEFAULT_PORT)
    .option('--host <host>', 'the address to listen on (0.0.0.0 = every interface)', '127.0.0.1')
    .option('--token <secret[:saves]>', 'a bearer token, repeatable; SECRET:save1,save2 limits it to those saves and recall scopes (default: MNEMO_TOKEN)', collect, [])
    .option('--admin-token <secret>', 'a token that may also import and wipe lore and read it without tags, repeatable (default: MNEMO_ADMIN_TOKEN)', collect, [])
    .option('--tokens-file <path>', 'a JSON file: { "tokens": [{ "name", "token", "saves": [..] | "*", "admin" }] }')
    .option('--insecure-local', 'no token (local development): only on a loopback --host, and only for requests addressed to it')
    .option('--max-body <bytes>', 'larger request bodies get 413', parseInteger('maxBody', 1, 1024 * 1024 * 1024), DEFAULT_MAX_BODY_BYTES)
    .option('--shutdown-timeout <ms>', 'on SIGTERM/SIGINT, how long in-flight requests may take before their connections are cut', parseInteger('shutdownTimeout', 0, 24 * 60 * 60 * 1000), 10_000)
    .option('--log-requests', 'log one line per request to stderr');
}

/**
 * The auth the flags ask for: the tokens (flags, then MNEMO_TOKEN / MNEMO_ADMIN_TOKEN when no flag names one, plus
 * the tokens file), or `insecure-local`, which is refused on a host that is not loopback or alongside tokens.
 */
export async function resolveAuth(flags: ServerFlags, environment: NodeJS.ProcessEnv = process.env): Promise<TokenTable | 'insecure-local'> {
  const tokens = flags.token.length > 0 ? flags.token : environment.MNEMO_TOKEN === undefined || environment.MNEMO_TOKEN === '' ? [] : [environment.MNEMO_TOKEN];
  const admins = flags.adminToken.length > 0 ? flags.adminToken : environment.MNEMO_ADMIN_TOKEN === undefined || environment.MNEMO_ADMIN_TOKEN === '' ? [] : [environment.MNEMO_ADMIN_TOKEN];
  const grants: TokenGrant[] = [
    ...tokens.map((spec) => parseTokenSpec(spec, '--token')),
    ...admins.map((spec) => parseTokenSpec(spec, '--admin-token', true)),
    ...(flags.tokensFile === undefined ? [] : await readTokensFile(flags.tokensFile)),
  ];
  if (flags.insecureLocal === true) {
    if (!isLoopbackHost(flags.host)) {
      throw new MnemoError('INVALID_INPUT', `--insecure-local: refused on --host ${flags.host}, which is not a loopback address: anyone who can reach it could read and rewrite every save. Use --host 127.0.0.1, or give a --token.`, {
        details: { field: 'insecureLocal', host: flags.host },
      });
    }
    if (grants.length > 0) throw new MnemoError('INVALID_INPUT', '--insecure-local: expected no tokens with it, got some. Drop --insecure-local to require them, or drop the tokens.', { details: { field: 'insecureLocal' } });
    return 'insecure-local';
  }
  if (grants.length === 0) {
    throw new MnemoError('INVALID_INPUT', 'The server needs a bearer token: pass --token <secret> (e.g. "$(openssl rand -hex 24)"), --admin-token, --tokens-file or MNEMO_TOKEN; or --insecure-local with a loopback --host for local development.', {
      details: { field: 'token' },
    });
  }
  return new TokenTable(grants);
}

/** A line saying how the server authenticates, for the start-up message. */
export function describeAuth(auth: TokenTable | 'insecure-local'): string {
  return auth === 'insecure-local' ? 'NO TOKEN (--insecure-local, loopback only)' : `${auth.size} token${auth.size === 1 ? '' : 's'}`;
}

/** The first SIGTERM or SIGINT to come. */
export interface StopSignal {
  /** Resolves with the signal's name. The handlers are removed then, so a second signal ends the process at once. */
  readonly received: Promise<NodeJS.Signals>;
  /** Stops listening (when the process stops for another reason). */
  cancel(): void;
}

/** Listens for the first SIGTERM or SIGINT, instead of the default of dying at once. */
export function nextStopSignal(): StopSignal {
  let stop: (signal: NodeJS.Signals) => void = () => {};
  const remove = () => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  };
  const received = new Promise<NodeJS.Signals>((resolve) => {
    stop = (signal) => {
      remove();
      resolve(signal);
    };
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return { received, cancel: remove };
}
