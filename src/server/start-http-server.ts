// A Node HTTP server for a fetch handler (the hono app), with a graceful close: stop accepting, finish in-flight requests.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { MnemoError } from '../core/errors.js';

/** How to serve. */
export interface HttpServerOptions {
  /** The request handler, e.g. `app.fetch` of `createApi(...)`. */
  fetch: (request: Request) => Response | Promise<Response>;
  /** The address to listen on, e.g. `127.0.0.1` (loopback) or `0.0.0.0` (every interface). */
  host: string;
  /** The port; 0 picks a free one (see `port` on the result). */
  port: number;
  /** How long `close()` waits for in-flight requests before cutting their connections (default 10 s). */
  shutdownTimeoutMs?: number;
}

/** A listening server. */
export interface RunningHttpServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly server: Server;
  /** Requests received and not yet answered. */
  inFlight(): number;
  /**
   * Stops accepting connections, lets every in-flight request finish (answers then carry `Connection: close`),
   * closes idle keep-alive connections, and resolves when the last connection is gone. After the timeout, the
   * remaining connections are cut. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      const hint = error.code === 'EADDRINUSE' ? 'Another process holds it: pick another --port, or 0 for a free one.' : error.code === 'EADDRNOTAVAIL' ? 'No interface has that address: use 127.0.0.1 or 0.0.0.0.' : 'Check the host and port.';
      reject(new MnemoError('INVALID_INPUT', `Could not listen on ${host}:${port} (${error.code ?? error.message}). ${hint}`, { cause: error, details: { host, port } }));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * Serves a fetch handler over HTTP/1.1 on Node.
 *
 * @example
 * ```ts
 * const running = await startHttpServer({ fetch: createApi({ memory, auth }).fetch, host: '127.0.0.1', port: 0 });
 * console.log(running.url); // http://127.0.0.1:43125
 * process.once('SIGTERM', async () => { await running.close(); await memory.close(); });
 * ```
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const listener = getRequestListener(options.fetch as Parameters<typeof getRequestListener>[0]);
  let closing: Promise<void> | null = null;
  let active = 0;
  const server = createServer((request, response) => {
    active++;
    if (closing !== null) response.setHeader('connection', 'close');
    response.once('close', () => {
      active--;
      if (closing !== null) server.closeIdleConnections();
    });
    void listener(request, response);
  });
  server.keepAliveTimeout = 5_000;
  await listen(server, options.port, options.host);
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    server,
    inFlight: () => active,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), options.shutdownTimeoutMs ?? 10_000);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
