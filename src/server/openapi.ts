// The OpenAPI 3.0 document of the HTTP API, generated from the same zod schemas that validate the requests.
import { z } from 'zod';
import type { Route } from './route.js';
import { errorSchema } from './schemas/responses.js';

type JsonSchema = Record<string, unknown>;

/** A zod schema as an OpenAPI 3.0 schema object: the input side for requests, the output side for answers. */
function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _schema, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema;
  return json;
}

/** The parameters of a path or query schema (a zod object), one per property. */
function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (schema === undefined) return [];
  const json = toSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: location, required: location === 'path' || required.has(name), schema: rest, ...(description === undefined ? {} : { description }) };
  });
}

/** A JSON request body; optional when no field is required (an empty body then counts as `{}`). */
function requestBody(schema: z.ZodType): JsonSchema {
  const json = toSchema(schema, 'input');
  return { required: ((json.required ?? []) as string[]).length > 0, content: { 'application/json': { schema: json } } };
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/** The error answers every authenticated route may give. */
const ERROR_RESPONSES = {
  400: errorResponse('Invalid input (INVALID_INPUT, with every problem in details.issues) or malformed JSON (MALFORMED_JSON).'),
  401: errorResponse('No bearer token, or an unknown one (UNAUTHENTICATED).'),
  403: errorResponse('The token may not use this save or scope, or the call needs an admin token (FORBIDDEN).'),
  404: errorResponse('No such save, entry or route (NOT_FOUND).'),
  409: errorResponse('A conflict, e.g. forking into a save that holds data (CONFLICT).'),
  413: errorResponse('The body is larger than the server accepts (PAYLOAD_TOO_LARGE).'),
  415: errorResponse('A body that is not application/json (UNSUPPORTED_MEDIA_TYPE).'),
  500: errorResponse('An internal error (the server log has the details under the request id; no stack trace is sent).'),
  502: errorResponse('A service Mnemo called failed (an embedder or a model).'),
  503: errorResponse('The server is shutting down (STORE_CLOSED).'),
};

function operation(route: Route): JsonSchema {
  const status = route.status ?? 200;
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    tags: [route.tag],
    parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
    ...(route.body === undefined ? {} : { requestBody: requestBody(route.body) }),
    responses: {
      [status]: route.stream === true
        ? { description: 'Success: JSON Lines, one object a line of this schema', content: { 'application/x-ndjson': { schema: toSchema(route.response, 'output') } } }
        : { description: 'Success', content: { 'application/json': { schema: toSchema(route.response, 'output') } } },
      ...ERROR_RESPONSES,
    },
  };
}

/**
 * Builds the OpenAPI 3.0 document of `routes`: paths, parameters and bodies from the zod schemas that validate
 * them, answers from the response schemas, bearer security, and the public /health and /openapi.json.
 *
 * @example
 * ```ts
 * const document = buildOpenApiDocument(API_ROUTES, { version: '0.1.0' });
 * document.paths['/v1/saves/{saveId}/query'].post.requestBody; // the queryBody schema
 * ```
 */
export function buildOpenApiDocument(routes: readonly Route[], info: { version: string; mcp?: boolean }): { openapi: string; paths: Record<string, Record<string, JsonSchema>> } & JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {
    '/health': { get: { operationId: 'health', summary: 'Liveness: 200 while the server accepts requests (no token needed)', tags: ['meta'], security: [], responses: { 200: { description: 'Up', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } } } } },
    '/openapi.json': { get: { operationId: 'openapi', summary: 'This document (no token needed)', tags: ['meta'], security: [], responses: { 200: { description: 'The OpenAPI 3.0 document' } } } },
  };
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/gu, '{$1}');
    paths[path] = { ...paths[path], [route.method]: operation(route) };
  }
  if (info.mcp === true) {
    paths['/mcp'] = {
      post: { operationId: 'mcp', summary: 'The MCP server over streamable HTTP (JSON-RPC; tools remember, recall, query_memory, rewind, lore_search, build_context, add_memory)', tags: ['mcp'], responses: { 200: { description: 'A JSON-RPC answer' }, 401: ERROR_RESPONSES[401] } },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Mnemo HTTP API', version: info.version, description: 'Memory for LLM-driven characters: narrative memory, living memory, the lore book, remember / recall, and prompt contexts. Every /v1 call needs `Authorization: Bearer <token>`.' },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A token given to `mnemo serve` (--token, --admin-token, --tokens-file).' } },
      schemas: { Error: toSchema(errorSchema, 'output') },
    },
    tags: ['narrative', 'living', 'lore', 'recall', 'context', 'access', 'meta'].map((name) => ({ name })),
    paths,
  };
}
