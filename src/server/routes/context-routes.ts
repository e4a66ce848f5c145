// Routes of the prompt context builder and of the caller's own access.
import { z } from 'zod';
import { requireCharacterWithin } from '../access.js';
import { defineRoute } from '../route.js';
import type { Route } from '../route.js';
import { contextBody, saveParams } from '../schemas/requests.js';
import { contextResultSchema } from '../schemas/responses.js';

export const contextRoutes: Route[] = [
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/context',
    operationId: 'buildContext',
    summary: "Build one prompt's context: the character's mental model, beliefs, facts, memories and the lore it may know, within a token budget",
    description: 'Lore is searched with the character\'s tags, whatever the token (admins included). Every line carries its source.',
    tag: 'context',
    access: 'save',
    params: saveParams,
    body: contextBody,
    response: contextResultSchema,
    async handle({ params, body, principal, memory }) {
      requireCharacterWithin(principal, body.character, body.tags);
      return memory.context.build({ ...body, saveId: params.saveId });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/access',
    operationId: 'getAccess',
    summary: 'What this token may do: its name, whether it is an admin, its saves ("*" for all), and its binding (lore tags, characters, expiry; absent when unbound)',
    tag: 'access',
    access: 'any',
    response: z.object({
      name: z.string(),
      admin: z.boolean(),
      saves: z.union([z.literal('*'), z.array(z.string())]),
      tags: z.array(z.string()).optional().describe('The most lore tags its requests may claim (absent: any).'),
      characters: z.record(z.string(), z.array(z.string()).nullable()).optional().describe('The characters it may build context for, with their tags (absent: any).'),
      expiresAt: z.string().optional().describe('When it stops working (absent: never).'),
    }),
    async handle({ principal }) {
      const characters = principal.characters ?? null;
      return {
        name: principal.name,
        admin: principal.admin,
        saves: principal.saves === null ? '*' : [...principal.saves].sort(),
        ...(principal.tags === undefined || principal.tags === null ? {} : { tags: [...principal.tags].sort() }),
        ...(characters === null ? {} : { characters: Object.fromEntries([...characters].map(([name, tags]) => [name, tags === null ? null : [...tags].sort()])) }),
        ...(principal.expiresAt === undefined || principal.expiresAt === null ? {} : { expiresAt: new Date(principal.expiresAt).toISOString() }),
      };
    },
  }),
];
