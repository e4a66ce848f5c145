// The zod schemas of the API's responses: they document each endpoint in /openapi.json, and the tests parse real answers with them.
import { z } from 'zod';

const nullableNumber = z.number().nullable();
const armRank = z.object({ rank: z.number(), score: z.number() }).nullable();

export const explanationSchema = z.object({
  lexical: armRank,
  semantic: armRank,
  fused: z.number(),
  boost: z.number(),
  rerank: nullableNumber,
  focusMatches: z.array(z.string()),
});

export const chunkSchema = z.object({
  id: z.string(),
  saveId: z.string(),
  turnId: z.number(),
  chunkType: z.string(),
  text: z.string(),
  entryId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.number(),
});

export const hitSchema = chunkSchema.extend({ score: z.number(), explanation: explanationSchema });

export const factSchema = z.object({
  factId: nullableNumber,
  turnId: nullableNumber,
  statement: z.string(),
  factType: z.string(),
  who: z.string(),
  what: z.string(),
  when: z.string(),
  where: z.string(),
  why: z.string(),
  entities: z.array(z.string()),
});

export const trendSchema = z.enum(['NEW', 'STRENGTHENING', 'WEAKENING', 'STALE', 'STABLE']);

export const beliefSchema = z.object({
  beliefId: nullableNumber,
  statement: z.string(),
  subject: z.string(),
  proofCount: z.number(),
  sources: z.array(z.object({ factId: z.number(), turnId: z.number() })),
  history: z.array(z.object({ action: z.enum(['CREATE', 'UPDATE', 'DELETE']), turnId: z.number(), statement: z.string(), subject: z.string(), factIds: z.array(z.number()) })),
  createdTurnId: z.number(),
  updatedTurnId: z.number(),
  stale: z.boolean(),
  deletedTurnId: nullableNumber,
  trend: trendSchema,
});

export const modelSchema = z.object({
  modelId: nullableNumber,
  subject: z.string(),
  summary: z.string(),
  sources: z.array(z.number()),
  createdTurnId: z.number(),
  updatedTurnId: z.number(),
  stale: z.boolean(),
});

export const jobCountsSchema = z.object({ pending: z.number(), running: z.number(), done: z.number(), failed: z.number() });

export const jobSchema = z.object({
  jobId: z.number(),
  saveId: z.string(),
  turnId: z.number(),
  stage: z.enum(['extract', 'consolidate', 'reflect', 'done']),
  status: z.enum(['pending', 'running', 'done', 'failed']),
  generation: z.number(),
  attempts: z.number(),
  lastError: z.string().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const livingStatusSchema = z.object({
  saveId: z.string(),
  facts: z.number(),
  beliefs: z.number(),
  models: z.number(),
  jobs: jobCountsSchema,
  latestTurnId: nullableNumber,
});

export const saveOverviewSchema = z.object({
  saveId: z.string(),
  chunks: z.number(),
  turns: z.number().describe('How many distinct turns hold chunks.'),
  minTurnId: nullableNumber,
  maxTurnId: nullableNumber,
  version: z.number(),
  facts: z.number(),
  beliefs: z.number(),
  models: z.number(),
  jobs: jobCountsSchema,
  latestTurnId: nullableNumber,
});

export const turnSummarySchema = z.object({ turnId: z.number(), chunks: z.number(), chunkTypes: z.array(z.string()) });

export const scopeLevelSchema = z.enum(['continental', 'regional', 'local', 'faction']);

export const loreEntrySchema = z.object({
  id: z.string(),
  source: z.string(),
  title: z.string(),
  content: z.string(),
  scopeLevel: scopeLevelSchema,
  scopeTags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()).describe('Free keys of the entry ({} when none); lore search filters on them (where).'),
  contentHash: z.string(),
  embeddingModel: z.string().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const loreHitSchema = z.object({
  entryId: z.string(),
  title: z.string(),
  source: z.string(),
  scopeLevel: scopeLevelSchema,
  scopeTags: z.array(z.string()),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  score: z.number(),
  explanation: explanationSchema,
});

const changeSummary = z.object({ source: z.string(), title: z.string(), scopeLevel: scopeLevelSchema });

const loreOriginIdentity = z.object({
  reader: z.enum(['folder', 'git', 'entries']),
  location: z.string().nullable(),
  ref: z.string().nullable(),
  commit: z.string().nullable(),
});

/** Where the book's live lore came from: reader, location (never with credentials), ref, commit, time of import. */
export const loreOriginSchema = loreOriginIdentity.extend({ importedAt: z.number() });

export const loreStatusSchema = z.object({ entries: z.number(), version: z.number(), origin: loreOriginSchema.nullable() });

export const loreImportReportSchema = z.object({
  dryRun: z.boolean(),
  files: z.array(z.string()),
  entries: z.number(),
  created: z.array(changeSummary),
  updated: z.array(changeSummary.extend({ changes: z.array(z.string()) })),
  unchanged: z.number(),
  removed: z.array(changeSummary),
  embedded: z.number(),
  written: z.boolean(),
  version: z.number(),
  origin: loreOriginIdentity,
  previous: loreOriginSchema.nullable(),
});

export const memoryEntrySchema = z.object({
  key: z.string(),
  value: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
  score: z.number(),
  timestamp: z.number(),
  expiresAt: nullableNumber,
});

export const rewindCountsSchema = z.object({
  chunks: z.number(),
  living: z.object({ facts: z.number(), beliefsDeleted: z.number(), beliefsUpdated: z.number(), modelsDeleted: z.number(), modelsUpdated: z.number(), jobsCancelled: z.number() }),
});

export const forkCountsSchema = z.object({
  chunks: z.number(),
  living: z.object({ facts: z.number(), beliefs: z.number(), models: z.number(), jobs: z.number() }),
});

export const deleteCountsSchema = forkCountsSchema;

export const deleteChunksCountsSchema = z.object({ chunks: z.number().int().describe('Chunks removed, with their vectors and index entries (unknown ids count 0).') });

const contextSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('mental_model'), modelId: nullableNumber, subject: z.string(), updatedTurnId: z.number(), stale: z.boolean() }),
  z.object({ kind: z.literal('belief'), beliefId: nullableNumber, subject: z.string(), trend: trendSchema, proofCount: z.number(), updatedTurnId: z.number(), factIds: z.array(z.number()) }),
  z.object({ kind: z.literal('fact'), factId: nullableNumber, turnId: nullableNumber }),
  z.object({ kind: z.literal('chunk'), chunkId: z.string(), turnId: z.number(), chunkType: z.string(), score: z.number() }),
  z.object({ kind: z.literal('lore'), entryId: z.string(), title: z.string(), scopeLevel: scopeLevelSchema, score: z.number() }),
]);

const contextLineSchema = z.object({ text: z.string(), tokens: z.number(), source: contextSourceSchema });

export const contextResultSchema = z.object({
  variables: z.record(z.string(), z.string()).describe('mental_model, beliefs, facts, memories, lore_context, character, message, and the request\'s variables.'),
  sections: z.array(z.object({
    name: z.enum(['mental_model', 'beliefs', 'facts', 'memories', 'lore_context']),
    text: z.string(),
    tokens: z.number(),
    cap: z.number(),
    lines: z.array(contextLineSchema),
    omitted: z.array(contextLineSchema),
  })),
  prompt: z.string(),
  tokens: z.object({ budget: z.number(), used: z.number(), prompt: z.number() }),
  tokenizer: z.string(),
});

/** Every error answer: `{ error: { code, category, message, details, requestId } }`, never a stack trace. */
export const errorSchema = z.object({
  error: z.object({
    code: z.string().describe('A stable UPPERCASE code, e.g. INVALID_INPUT, MALFORMED_JSON, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, PAYLOAD_TOO_LARGE.'),
    category: z.enum(['USER', 'SYSTEM', 'THIRD_PARTY']),
    message: z.string().describe('What was expected, what arrived, and how to fix it.'),
    details: z.record(z.string(), z.unknown()).describe('JSON-safe details; an invalid request lists every problem in `issues` and the first field in `field`.'),
    requestId: z.string().describe('The id of the request in the server log (also the X-Request-Id header).'),
  }),
});

/** A page of a listing: the next offset to ask for, or null at the end. */
export const nextOffsetSchema = z.number().nullable().describe('The offset of the next page, or null when this page is the last.');
