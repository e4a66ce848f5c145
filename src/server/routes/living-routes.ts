// Routes of living memory: status, record a turn, retry, facts, beliefs (with trends, sources, history), models, missions.
import { z } from 'zod';
import { allowsSave, requireAdmin } from '../access.js';
import { DEFAULT_PAGE, defineRoute } from '../route.js';
import type { Route } from '../route.js';
import { beliefsQuery, emptyBody, factsQuery, missionsBody, modelsQuery, recordTurnBody, saveParams } from '../schemas/requests.js';
import { beliefSchema, factSchema, jobSchema, livingStatusSchema, modelSchema } from '../schemas/responses.js';

const missionsSchema = z.object({ universe: z.string(), characters: z.record(z.string(), z.string()) });

export const livingRoutes: Route[] = [
  defineRoute({
    method: 'get',
    path: '/v1/living/status',
    operationId: 'livingStatusAll',
    summary: 'Living memory counts (facts, beliefs, models, queued jobs) of every save this token may use',
    tag: 'living',
    access: 'any',
    response: z.object({ saves: z.array(livingStatusSchema) }),
    async handle({ principal, memory }) {
      return { saves: (await memory.living.status()).filter((status) => allowsSave(principal, status.saveId)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId/living',
    operationId: 'livingStatus',
    summary: "A save's living memory counts and its queue",
    tag: 'living',
    access: 'save',
    params: saveParams,
    response: livingStatusSchema,
    async handle({ params, memory }) {
      const [status] = await memory.living.status(params.saveId);
      return status;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/living/turns',
    operationId: 'recordTurn',
    summary: 'Queue a turn for distillation into facts, beliefs and models; returns at once',
    tag: 'living',
    access: 'save',
    params: saveParams,
    body: recordTurnBody,
    response: z.object({ job: jobSchema }),
    status: 202,
    async handle({ params, body, memory }) {
      return { job: await memory.living.recordTurn({ ...body, saveId: params.saveId }) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/living/retry',
    operationId: 'retryFailed',
    summary: "Put a save's failed jobs back in the queue",
    tag: 'living',
    access: 'save',
    params: saveParams,
    body: emptyBody,
    response: z.object({ retried: z.number() }),
    async handle({ params, memory }) {
      return { retried: await memory.living.retryFailed(params.saveId) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId/facts',
    operationId: 'listFacts',
    summary: "A save's facts, most recent first (one turn's with turnId)",
    tag: 'living',
    access: 'save',
    params: saveParams,
    query: factsQuery,
    response: z.object({ facts: z.array(factSchema) }),
    async handle({ params, query, memory }) {
      return { facts: await memory.living.facts(params.saveId, { ...query, limit: query.limit ?? DEFAULT_PAGE }) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId/beliefs',
    operationId: 'listBeliefs',
    summary: "A save's beliefs, most recently updated first, each with its trend, sources and history",
    tag: 'living',
    access: 'save',
    params: saveParams,
    query: beliefsQuery,
    response: z.object({ beliefs: z.array(beliefSchema) }),
    async handle({ params, query, memory }) {
      return { beliefs: await memory.living.beliefs(params.saveId, { ...query, limit: query.limit ?? DEFAULT_PAGE }) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId/models',
    operationId: 'listModels',
    summary: "A save's mental models (one profile per subject), most recently updated first",
    tag: 'living',
    access: 'save',
    params: saveParams,
    query: modelsQuery,
    response: z.object({ models: z.array(modelSchema) }),
    async handle({ params, query, memory }) {
      return { models: await memory.living.models(params.saveId, { ...query, limit: query.limit ?? DEFAULT_PAGE }) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/living/missions',
    operationId: 'getMissions',
    summary: 'The missions: what the world and each character tend to remember',
    tag: 'living',
    access: 'any',
    response: missionsSchema,
    async handle({ memory }) {
      return { universe: await memory.living.getMission(), characters: await memory.living.getMissions() };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/living/missions',
    operationId: 'setMissions',
    summary: 'Set the world mission and/or replace the per-character missions (admin tokens only)',
    tag: 'living',
    access: 'any',
    body: missionsBody,
    response: missionsSchema,
    async handle({ body, principal, memory }) {
      requireAdmin(principal, 'Setting missions');
      if (body.universe !== undefined) await memory.living.setMission(body.universe);
      if (body.characters !== undefined) await memory.living.setMissions(body.characters);
      return { universe: await memory.living.getMission(), characters: await memory.living.getMissions() };
    },
  }),
];
