// One HTTP route: its method and path, the zod schemas that validate its input and describe its answer, its handler.
import type { z } from 'zod';
import type { Mnemo } from '../open-memory.js';
import type { Principal } from './access.js';

/** What a handler receives: the validated input, the caller and the memory. */
export interface RouteInput<Params, Query, Body> {
  params: Params;
  query: Query;
  body: Body;
  principal: Principal;
  memory: Mnemo;
}

/** A route as written, with the schemas' types flowing into its handler. */
export interface RouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** A hono path such as `/v1/saves/:saveId/query`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The OpenAPI tag that groups it (narrative, living, lore, recall, context, access). */
  tag: string;
  /** `save`: the `:saveId` parameter must be one of the token's saves (403 otherwise). */
  access: 'save' | 'any';
  params?: P;
  query?: Q;
  body?: B;
  /** The answer's schema (documented in /openapi.json, checked by the tests). */
  response: z.ZodType;
  /** The success status (default 200). */
  status?: 200 | 201 | 202;
  /**
   * The handler returns an `AsyncIterable<string>` of JSON Lines, streamed as `application/x-ndjson`; `response` is
   * then the schema of one line. An error before the first line is an error answer; a later one ends the stream
   * early (a reader finds the last line missing).
   */
  stream?: boolean;
  handle(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<unknown>;
}

/** A route with its types erased, as the app and the OpenAPI builder hold it. */
export type Route = RouteDefinition<z.ZodType, z.ZodType, z.ZodType>;

/**
 * Declares a route; the handler's `params`, `query` and `body` are typed from the schemas.
 *
 * @example
 * ```ts
 * defineRoute({ method: 'post', path: '/v1/saves/:saveId/rewind', operationId: 'rewind', summary: 'Rewind a save',
 *   tag: 'narrative', access: 'save', params: saveParams, body: rewindBody, response: rewindCountsSchema,
 *   handle: ({ params, body, memory }) => memory.rewindWithCounts(params.saveId, body.turnId) });
 * ```
 */
export function defineRoute<P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(definition: RouteDefinition<P, Q, B>): Route {
  return definition as unknown as Route;
}

/** A page's `nextOffset`: given `limit + 1` rows were asked for, the offset of the next page, or null at the end. */
export function nextOffset(rows: number, offset: number, limit: number): number | null {
  return rows > limit ? offset + limit : null;
}

/** The default page size of listings. */
export const DEFAULT_PAGE = 100;

/**
 * UTF-8 bytes of chunk text one page of a chunk listing carries (1 MiB, what one request may write by default): a
 * page ends with the chunk that reaches it, and `nextOffset` goes on from there.
 */
export const PAGE_TEXT_BYTES = 1024 * 1024;
