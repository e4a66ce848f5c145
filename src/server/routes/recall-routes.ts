// Routes of remember / recall (seed 001): remember a value in a scope, recall by query, forget a scope, list scopes.
import { z } from 'zod';
import type { Metadata } from '../../core/types.js';
import type { JsonValue } from '../../core/types.js';
import { parseDecay } from '../../recall/decay.js';
import { allowsSave, requireAllSaves, requireSave } from '../access.js';
import { defineRoute } from '../route.js';
import type { Route } from '../route.js';
import { forgetBody, recallBody, rememberBody } from '../schemas/requests.js';
import { memoryEntrySchema } from '../schemas/responses.js';

export const recallRoutes: Route[] = [
  defineRoute({
    method: 'post',
    path: '/v1/remember',
    operationId: 'remember',
    summary: 'Store a JSON value under a key in a scope (replacing that key there), optionally decaying',
    description: 'A token limited to saves may use the recall scopes of the same names only.',
    tag: 'recall',
    access: 'any',
    body: rememberBody,
    response: z.object({ entry: memoryEntrySchema }),
    status: 201,
    async handle({ body, principal, memory }) {
      requireSave(principal, body.scope, 'scope');
      const metadata = { ...(body.metadata as Metadata | undefined), scope: body.scope };
      return { entry: await memory.recall.store(body.key, body.value as JsonValue, metadata, { decayMs: body.decay === undefined ? null : parseDecay(body.decay) }) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/recall',
    operationId: 'recall',
    summary: 'The best remembered entries for a query, in one scope or all (semantic, or exact substring scoring)',
    tag: 'recall',
    access: 'any',
    body: recallBody,
    response: z.object({ entries: z.array(memoryEntrySchema) }),
    async handle({ body, principal, memory }) {
      if (body.scope === undefined) requireAllSaves(principal, 'Recall without a scope');
      else requireSave(principal, body.scope, 'scope');
      return { entries: await memory.recall.persistent[body.exact === true ? 'exact' : 'semantic'].retrieve(body.query, body.k ?? 5, body.scope) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/forget',
    operationId: 'forget',
    summary: 'Remove every entry of a scope (or of every scope, unlimited tokens only); returns how many',
    tag: 'recall',
    access: 'any',
    body: forgetBody,
    response: z.object({ removed: z.number() }),
    async handle({ body, principal, memory }) {
      if (body.scope === undefined) requireAllSaves(principal, 'Forgetting every scope');
      else requireSave(principal, body.scope, 'scope');
      return { removed: await memory.recall.clear(body.scope) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/recall/scopes',
    operationId: 'listScopes',
    summary: 'The recall scopes this token may use, with their live entry counts',
    tag: 'recall',
    access: 'any',
    response: z.object({ scopes: z.array(z.object({ scope: z.string().nullable(), entries: z.number() })) }),
    async handle({ principal, memory }) {
      return { scopes: (await memory.recall.listScopes()).filter((scope) => principal.saves === null || (scope.scope !== null && allowsSave(principal, scope.scope))) };
    },
  }),
];
