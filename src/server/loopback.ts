// Loopback checks: --insecure-local only listens on a loopback address and only answers requests that name one.
import { isIP } from 'node:net';
import { MnemoError } from '../core/errors.js';

/**
 * True for a loopback host name or address: `localhost`, 127.0.0.0/8 and ::1 (with or without brackets).
 *
 * @example
 * ```ts
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('0.0.0.0');   // false: every interface
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/^\[(.*)\]$/u, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1' || /^::ffff:127\./u.test(name);
  return false;
}

/** The host part of a Host header value (`127.0.0.1:8080`, `[::1]:8080`, `localhost`). */
function hostOf(header: string): string {
  const bracketed = /^\[([^\]]*)\](:\d+)?$/u.exec(header);
  if (bracketed !== null) return bracketed[1] as string;
  const colon = header.lastIndexOf(':');
  return colon !== -1 && header.indexOf(':') === colon ? header.slice(0, colon) : header;
}

/**
 * Refuses (FORBIDDEN) a request under `--insecure-local` whose Host is not a loopback name, or that a web page of
 * another origin sent: without a token, these checks keep DNS-rebinding and cross-site pages out.
 */
export function requireLoopbackRequest(hostHeader: string | undefined, origin: string | undefined): void {
  if (hostHeader === undefined || !isLoopbackHost(hostOf(hostHeader))) {
    throw new MnemoError('FORBIDDEN', `Without a token (--insecure-local) the server answers only requests addressed to a loopback name, got Host ${JSON.stringify(hostHeader ?? '')}. Use http://127.0.0.1:<port>, or start the server with --token.`, {
      details: { field: 'host' },
    });
  }
  if (origin === undefined || origin === 'null') {
    if (origin === 'null') throw new MnemoError('FORBIDDEN', 'Without a token (--insecure-local) requests from opaque origins are refused. Start the server with --token.', { details: { field: 'origin' } });
    return;
  }
  let originHost: string;
  try {
    originHost = new URL(origin).hostname;
  } catch {
    originHost = '';
  }
  if (!isLoopbackHost(originHost)) {
    throw new MnemoError('FORBIDDEN', `Without a token (--insecure-local) requests from web pages of other origins are refused, got Origin ${JSON.stringify(origin)}. Start the server with --token.`, {
      details: { field: 'origin' },
    });
  }
}
