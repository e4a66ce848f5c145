// The HTTP API as a hono app: bearer auth, body limits, JSON parsing, zod validation, errors mapped to statuses.
import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { Context, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { MnemoError, asBusyError, isMnemoError } from '../core/errors.js';
import { silentLogger } from '../core/logger.js';
import { refuseProtoKeys } from '../core/proto-key.js';
import type { Logger } from '../core/logger.js';
import type { Mnemo } from '../open-memory.js';
import { LOCAL_OWNER, requireSave } from './access.js';
import type { Principal } from './access.js';
import { httpStatus } from './http-status.js';
import { invalidInput } from './invalid-input.js';
import { serveInspector } from './inspector.js';
import { requireLoopbackRequest } from './loopback.js';
import { mcpHttpHandler } from './mcp/mcp-http.js';
import { buildOpenApiDocument } from './openapi.js';
import type { Route } from './route.js';
import { API_ROUTES } from './routes/index.js';
import type { TokenTable } from './tokens.js';

/** The largest request body accepted by default: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** How the API is set up. */
export interface ApiOptions {
  memory: Mnemo;
  /** Who may call: a token table, or `insecure-local` (every request is the owner; loopback addresses only). */
  auth: TokenTable | 'insecure-local';
  /** Larger bodies get 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /** Where request lines and internal errors go (default: nowhere; `mnemo serve` passes one writing to stderr). */
  logger?: Logger;
  /** Log one line per request (default false). */
  logRequests?: boolean;
  /** Serve the /v1 API (default true). */
  api?: boolean;
  /** Serve the MCP server at /mcp over streamable HTTP (default true). */
  mcp?: boolean;
  /** Serve the inspector page at /inspector/ (default true; its files need no token, its data comes from /v1). */
  inspector?: boolean;
  /** The version in /openapi.json. */
  version?: string;
}

type Env = { Variables: { principal: Principal; requestId: string } };

function errorBody(error: MnemoError, requestId: string) {
  return { error: { ...error.toJSON(), requestId } };
}

/** Any thrown value as a MnemoError; an unexpected one is logged (with its stack) and reported without it. */
function asMnemoError(error: unknown, requestId: string, logger: Logger): MnemoError {
  if (isMnemoError(error)) return error;
  const busy = asBusyError(error);
  if (busy !== null) return busy;
  if (error instanceof HTTPException) {
    if (error.status === 413) return new MnemoError('PAYLOAD_TOO_LARGE', 'The request body is larger than the server accepts. Send less, or start the server with a larger --max-body.');
    if (error.status < 500) return new MnemoError('INVALID_INPUT', `The request was refused (${error.status}): ${error.message}.`);
  }
  logger.warn(`request ${requestId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return new MnemoError('INTERNAL', `An internal error occurred; the server log has the details under request id ${requestId}.`);
}

/** The query of a route that takes none: any key is refused (400), as an unknown key of a declared query is. */
const NO_QUERY = z.strictObject({});

function validate<T extends z.ZodType>(schema: T | undefined, value: unknown, location: 'path' | 'query' | 'body'): z.output<T> | undefined {
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidInput(location, parsed.error);
  return parsed.data;
}

/** The JSON body of a request: an empty body is `{}`; anything else must be application/json and parse. */
async function readJson(c: Context<Env>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/iu.test(type)) {
    throw new MnemoError('UNSUPPORTED_MEDIA_TYPE', `Expected a JSON body with Content-Type: application/json, got ${type === '' ? 'no Content-Type' : JSON.stringify(type)}. Add -H 'content-type: application/json'.`, {
      details: { contentType: type },
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    const position = /position (\d+)/u.exec(reason)?.[1];
    throw new MnemoError('MALFORMED_JSON', `The request body is not valid JSON (${reason}). Send one JSON object.`, {
      details: { location: 'body', ...(position === undefined ? {} : { position: Number(position) }) },
    });
  }
  // Only a text that spells the key, or escapes characters, can hold it.
  if (text.includes('__proto__') || text.includes('\\u')) refuseProtoKeys(body, 'body');
  return body;
}

/**
 * A stream of JSON Lines as the answer: the first piece is read before answering (so an error up to then is an
 * error answer with its status), the rest as the client reads (backpressure: nothing is read ahead of it).
 */
async function streamLines(lines: AsyncIterable<string>, logger: Logger): Promise<Response> {
  const iterator = lines[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  let first: IteratorResult<string> | null = await iterator.next();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = first ?? (await iterator.next());
        first = null;
        if (next.done === true) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        logger.warn(`a streamed answer ended early: ${error instanceof Error ? error.message : String(error)}`);
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/x-ndjson; charset=utf-8' } });
}

function register(app: Hono<Env>, route: Route, memory: Mnemo, logger: Logger): void {
  app.on(route.method.toUpperCase(), route.path, async (c) => {
    const principal = c.get('principal');
    const params = validate(route.params, c.req.param(), 'path') as Record<string, unknown> | undefined;
    if (route.access === 'save') requireSave(principal, String(params?.saveId));
    const query = validate(route.query ?? NO_QUERY, c.req.query(), 'query');
    const body = route.body === undefined ? undefined : validate(route.body, await readJson(c), 'body');
    const result = await route.handle({ params, query, body, principal, memory });
    if (route.stream === true) return streamLines(result as AsyncIterable<string>, logger);
    return c.json(result as object, (route.status ?? 200) as ContentfulStatusCode);
  });
}

/**
 * Builds the HTTP API: `/health`, `/openapi.json` and the inspector's static files (`/inspector/`) are public; `/v1/...` and `/mcp` need a bearer token (or
 * `insecure-local`). Bodies over the limit get 413, malformed JSON 400 MALFORMED_JSON, invalid input 400
 * INVALID_INPUT listing every problem; other errors map by code and category (USER 400/401/403/404/409,
 * SYSTEM 500, THIRD_PARTY 502). No answer carries a stack trace. See docs/serving.md.
 *
 * @example
 * ```ts
 * const app = createApi({ memory, auth: new TokenTable([{ token: process.env.MNEMO_TOKEN!, saves: '*' }]) });
 * const server = await startHttpServer({ fetch: app.fetch, host: '127.0.0.1', port: 8080 });
 * ```
 */
export function createApi(options: ApiOptions): Hono<Env> {
  const { memory, auth } = options;
  const logger = options.logger ?? silentLogger;
  const app = new Hono<Env>();
  const document = buildOpenApiDocument(options.api === false ? [] : API_ROUTES, { version: options.version ?? '0.1.0', mcp: options.mcp !== false });

  app.use('*', async (c, next) => {
    const requestId = randomBytes(6).toString('hex');
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    c.header('X-Request-Id', requestId);
    if (options.logRequests === true) logger.info(`${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - started).toFixed(1)} ms (${requestId})`);
  });
  app.onError((error, c) => {
    const requestId = c.get('requestId') ?? 'unknown';
    const mnemoError = asMnemoError(error, requestId, logger);
    if (mnemoError.code === 'UNAUTHENTICATED') c.header('WWW-Authenticate', 'Bearer realm="mnemo"');
    if (mnemoError.code === 'TOKEN_EXPIRED') c.header('WWW-Authenticate', 'Bearer realm="mnemo", error="invalid_token", error_description="the token has expired"');
    if (mnemoError.code === 'STORE_BUSY') c.header('Retry-After', String(mnemoError.details.retryAfterSeconds ?? 1));
    return c.json(errorBody(mnemoError, requestId), httpStatus(mnemoError.code, mnemoError.category) as ContentfulStatusCode);
  });
  app.notFound((c) => {
    const error = new MnemoError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}. GET /openapi.json lists the routes.`, { details: { method: c.req.method, path: c.req.path } });
    return c.json(errorBody(error, c.get('requestId') ?? 'unknown'), 404);
  });

  app.get('/health', (c) => c.json({ ok: true }));
  app.get('/openapi.json', (c) => c.json(document));
  if (options.inspector !== false && options.api !== false) serveInspector(app);

  const authenticate = async (c: Context<Env>, next: Next) => {
    if (auth === 'insecure-local') {
      requireLoopbackRequest(c.req.header('host'), c.req.header('origin'));
      c.set('principal', LOCAL_OWNER);
    } else {
      const principal = auth.authenticate(c.req.header('authorization'));
      if (principal === null) {
        const sent = c.req.header('authorization') !== undefined;
        throw new MnemoError('UNAUTHENTICATED', sent ? 'The bearer token is not one this server knows. Check the token given to `mnemo serve`.' : 'This call needs a token: send the header `Authorization: Bearer <token>`.', {
          details: { field: 'authorization' },
        });
      }
      if (principal.expiresAt !== undefined && principal.expiresAt !== null && Date.now() >= principal.expiresAt) {
        throw new MnemoError('TOKEN_EXPIRED', `This token (${principal.name}) expired at ${new Date(principal.expiresAt).toISOString()}. Ask the operator for a new one.`, {
          details: { field: 'authorization', expiresAt: new Date(principal.expiresAt).toISOString() },
        });
      }
      c.set('principal', principal);
    }
    await next();
  };
  const limit = bodyLimit({
    maxSize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    onError: () => {
      throw new MnemoError('PAYLOAD_TOO_LARGE', `The request body is larger than ${options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes. Send less (e.g. fewer chunks per call), or start the server with a larger --max-body.`, {
        details: { maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES },
      });
    },
  });

  if (options.api !== false) {
    app.use('/v1/*', authenticate, limit);
    for (const route of API_ROUTES) register(app, route, memory, logger);
  }
  if (options.mcp !== false) {
    app.use('/mcp', authenticate, limit);
    app.all('/mcp', (c) => mcpHttpHandler(memory, c.get('principal'), c.req.raw, logger));
  }
  return app;
}
