// The zod schemas of every request the HTTP API and the MCP tools accept; the OpenAPI document is generated from them.
import { z } from 'zod';
import { DEFAULT_LIMITS } from '../../context/context-builder.js';
import { LIMITS } from '../../core/limits.js';
import type { LimitName } from '../../core/limits.js';
import { entryInputSchema } from '../../lore/lore-schema.js';
import { DECAY_FORMS, isDecay } from '../../recall/decay.js';

// ---- building blocks -------------------------------------------------------------------------------------------

/** The message of a bound crossed: the API answers LIMIT_EXCEEDED, naming the limit (see createApi). */
const over = (limit: LimitName, unit: string) => `must be at most ${LIMITS[limit].toLocaleString('en-US')} ${unit} (limit ${limit}, see docs/limits.md)`;
/** A string of at most the bound `limit` characters. */
const boundedText = (limit: LimitName) => z.string().max(LIMITS[limit], over(limit, 'characters'));

export const saveIdSchema = z.string().min(1).max(200).refine((id) => id.trim() !== '', 'must not be blank').describe('The save (game, conversation, agent run), e.g. "run-1".');
export const turnIdSchema = z.number().int().min(0).describe('A turn number: 0, 1, 2, ... in the order turns happen.');
const chunkTypeSchema = z.string().min(1).max(64);
const kSchema = z.number().int().min(1).max(LIMITS.k, over('k', 'hits'));
const countSchema = z.number().int().min(0);
const tagsSchema = z.array(z.string().regex(/^\S+$/u, 'must be a tag without spaces').max(100)).max(LIMITS.tags, over('tags', 'tags'));
const namesSchema = z.array(z.string().max(200)).max(LIMITS.names, over('names', 'names'));
const focusTermsSchema = z.array(boundedText('focusTermChars')).max(LIMITS.focusTerms, over('focusTerms', 'terms'));
const metadataSchema = z.record(z.string(), z.unknown());
/** Any JSON value (a request body holds nothing else). */
const jsonValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);

/** A whole number in a query string or a path (`?limit=50`). */
const wholeNumber = (minimum: number, maximum: number) => z.string().regex(/^\d{1,16}$/u, 'must be a whole number such as 10').transform(Number).pipe(z.number().int().min(minimum).max(maximum));
/** `true` or `false` in a query string. */
const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');
/** A comma-separated list in a query string (`?tags=brackwater,brackwater_docks`); empty means []. */
const queryList = z
  .string()
  .max(10_000)
  .transform((text) => (text.trim() === '' ? [] : text.split(',').map((item) => item.trim()).filter((item) => item !== '')));

const turnQuery = wholeNumber(0, Number.MAX_SAFE_INTEGER);

// ---- path parameters ---------------------------------------------------------------------------------------------

export const saveParams = z.strictObject({ saveId: saveIdSchema });
export const turnParams = z.strictObject({ saveId: saveIdSchema, turnId: turnQuery.describe('The turn number.') });
export const entryParams = z.strictObject({ entryId: z.string().min(1).max(200).describe('A lore entry id (UUID).') });

// ---- narrative ---------------------------------------------------------------------------------------------------

export const pageQuery = z.strictObject({
  offset: wholeNumber(0, Number.MAX_SAFE_INTEGER).optional().describe('Items to skip (default 0).'),
  limit: wholeNumber(1, 1000).optional().describe('Items per page (default 100, at most 1000).'),
});

export const chunkPageQuery = pageQuery.extend({
  fromTurnId: turnQuery.optional().describe('Only turns >= this.'),
  toTurnId: turnQuery.optional().describe('Only turns <= this.'),
});

export const chunkInputSchema = z.strictObject({
  turnId: turnIdSchema,
  text: boundedText('textChars').min(1).describe('The text to remember; never empty.'),
  chunkType: chunkTypeSchema.optional().describe('What kind of text it is, e.g. "dialogue" (default "narrative").'),
  entryId: z.string().max(200).nullable().optional().describe('The id of the record this chunk stands for.'),
  metadata: metadataSchema.optional().describe('Extra keys; the core keys always win.'),
});

export const addChunksBody = z.strictObject({
  chunks: z.array(chunkInputSchema).min(1).max(LIMITS.chunksPerCall, over('chunksPerCall', 'chunks')).describe('One or more chunks of this save, written in one transaction.'),
});

export const updateTurnBody = z.strictObject({
  text: boundedText('textChars').min(1).describe("The turn's new text."),
  chunkType: chunkTypeSchema.optional().describe('The chunk type replaced (default "narrative").'),
});

const metadataScalar = z.union([z.string().max(LIMITS.whereValueChars, over('whereValueChars', 'characters')), z.number(), z.boolean()]);

/** A metadata filter: key -> value, { in: [values] } or { exists: boolean }, every condition must hold (see MetadataWhere). */
export const whereSchema = z
  .record(
    z.string().min(1).max(LIMITS.whereKeyChars),
    z.union([
      metadataScalar,
      z.strictObject({ in: z.array(metadataScalar).min(1).max(LIMITS.whereValues, over('whereValues', 'values')) }),
      z.strictObject({ exists: z.boolean() }),
    ]),
  )
  .refine((where) => Object.keys(where).length <= LIMITS.whereClauses, over('whereClauses', 'keys'))
  .describe('Metadata conditions, all of which must hold, applied before ranking: { "speaker": "Marta", "location": { "in": ["docks", "tavern"] }, "quest": { "exists": true } }.');

export const queryBody = z.strictObject({
  query: boundedText('queryChars').describe('What to look for: the player message or a question.'),
  k: kSchema.optional().describe('Hits to return (default 5).'),
  maxTurnId: turnIdSchema.optional().describe('Only chunks of this turn or earlier (a history window).'),
  currentTurnId: turnIdSchema.optional().describe('The present turn: nothing after it comes back.'),
  chunkType: chunkTypeSchema.optional().describe('Only chunks of this type, e.g. "dialogue" ("lore": admin tokens only).'),
  excludeChunkType: chunkTypeSchema.optional().describe('Never this type.'),
  includeLore: z.boolean().optional().describe("Let the save's lore chunks rank too (admin tokens only; left out by default)."),
  where: whereSchema.optional(),
  focusTerms: focusTermsSchema.optional().describe('Here-and-now terms (location, characters on scene): a small boost.'),
  focusBoost: z.number().min(0).optional().describe('Tuning: the boost for a focus-term mention (default 0.5 standard deviations; 0.005 with rrf).'),
  capPerSource: countSchema.max(LIMITS.capPerSource, over('capPerSource', 'candidates')).optional().describe('Tuning: candidates each arm keeps before fusion (default max(50, 5k); 0 = the largest cap).'),
  rrfK: z.number().min(0).optional().describe('Tuning: the Reciprocal Rank Fusion constant (default 60; with fusion "rrf").'),
  fusion: z.enum(['rrf', 'zscore']).optional().describe('Tuning: how the word and meaning arms merge (default "zscore").'),
  weights: z.strictObject({ lexical: z.number().min(0).optional().describe('Weight of the word arm (default 1).'), semantic: z.number().min(0).optional().describe('Weight of the meaning arm (default 1).') }).optional().describe('Tuning: arm weights for zscore fusion.'),
  rerank: z.boolean().optional().describe('Rerank with the configured reranker (default: on when one is configured).'),
  rerankTop: countSchema.max(LIMITS.rerankTop, over('rerankTop', 'candidates')).optional().describe('Tuning: candidates the reranker reads (default max(20, 2k)).'),
});

export const deleteChunksBody = z.strictObject({
  ids: z.array(z.string().min(1).max(200)).min(1).max(LIMITS.deleteChunkIds, over('deleteChunkIds', 'ids')).optional().describe('The chunks to delete (ids a query or a listing returned); unknown ids count 0.'),
  entryId: z.string().min(1).max(200).optional().describe('Or: every chunk added with this entryId.'),
}).describe('Exactly one of ids and entryId.');

export const rewindBody = z.strictObject({ turnId: turnIdSchema.describe('Everything after this turn goes, every layer.') });

export const forkBody = z.strictObject({
  newSaveId: saveIdSchema.describe('The new save; it must hold nothing yet.'),
  atTurn: turnIdSchema.describe('The copy holds exactly the state as of this turn.'),
});

// ---- living memory -----------------------------------------------------------------------------------------------

export const recordTurnBody = z.strictObject({
  turnId: turnIdSchema,
  text: boundedText('textChars').min(1).optional().describe("The narrative to distil (default: the turn's stored chunks, lore excepted)."),
  knownEntities: namesSchema.optional(),
  whenHint: z.string().max(200).optional(),
});

export const factsQuery = z.strictObject({
  turnId: turnQuery.optional().describe('Only facts of this turn.'),
  maxTurnId: turnQuery.optional(),
  entity: z.string().min(1).max(200).optional().describe('Only facts naming this entity (case-insensitive, exact).'),
  limit: wholeNumber(1, 1000).optional().describe('Default 100.'),
});

export const beliefsQuery = z.strictObject({
  subject: z.string().max(200).optional().describe('Only beliefs about this subject ("" = the world).'),
  maxTurnId: turnQuery.optional(),
  nowTurn: turnQuery.optional().describe('Read trends at this turn.'),
  includeDeleted: queryBoolean.optional(),
  limit: wholeNumber(1, 1000).optional().describe('Default 100.'),
});

export const modelsQuery = z.strictObject({
  subject: z.string().max(200).optional(),
  maxTurnId: turnQuery.optional(),
  limit: wholeNumber(1, 1000).optional().describe('Default 100.'),
});

export const missionsBody = z.strictObject({
  universe: z.string().max(10_000).optional().describe('The world-wide default mission.'),
  characters: z.record(z.string().min(1).max(200), z.string().max(10_000)).optional().describe('Per-character missions, replacing the current ones.'),
});

// ---- lore --------------------------------------------------------------------------------------------------------

export const loreImportBody = z.strictObject({
  entries: z.array(entryInputSchema).min(1).max(LIMITS.loreEntries, over('loreEntries', 'entries')).describe('The whole book: entries gone from this list are removed.'),
  dryRun: z.boolean().optional().describe('Report what would change; write and embed nothing.'),
});

export const loreSearchBody = z.strictObject({
  query: boundedText('queryChars').describe('What to look up in the lore book.'),
  tags: tagsSchema.optional().describe("The character's lore tags ([] = continental only). Required unless the token is an admin's."),
  ignoreScope: z.boolean().optional().describe('Search every entry whatever its scope (admin tokens only).'),
  k: kSchema.optional().describe('Entries to return (default 5).'),
  where: whereSchema.optional().describe("Conditions on the entries' metadata, all of which must hold, applied before ranking with the tags: { \"quest\": \"salt\", \"district\": { \"in\": [\"docks\", \"pier\"] }, \"secret\": { \"exists\": false } }."),
  focusTerms: focusTermsSchema.optional().describe('Here-and-now terms: entries mentioning one get a small boost.'),
});

export const loreEntriesQuery = pageQuery.extend({
  tags: queryList.optional().describe("Comma-separated lore tags of a character; required unless the token is an admin's. Empty = continental only."),
  source: z.string().min(1).max(200).optional(),
});

export const loreEntryQuery = z.strictObject({
  tags: queryList.optional().describe("The character's lore tags; required unless the token is an admin's."),
});

export const loreWipeBody = z.strictObject({ confirm: z.literal(true).describe('Must be true: every entry goes.') });

// ---- remember / recall ------------------------------------------------------------------------------------------

export const rememberBody = z.strictObject({
  scope: z.string().min(1).max(200).describe('The scope (a memory declaration name); a limited token needs it in its list.'),
  key: boundedText('memoryKeyChars').min(1).describe('The name of the value; storing the same key in the same scope replaces it.'),
  value: jsonValueSchema.describe('Any JSON value; it comes back exactly.'),
  metadata: metadataSchema.optional().describe('Free JSON metadata kept with the entry.'),
  decay: z.string().refine(isDecay, `must be ${DECAY_FORMS}`).optional().describe('Forget it after this long: "30s", "15m", "1h", "7d" or "none" (the default).'),
});

export const recallBody = z.strictObject({
  query: boundedText('queryChars').describe('A key, or words and meaning of the value to find.'),
  scope: z.string().min(1).max(200).optional().describe('Only this scope (required for a limited token).'),
  k: kSchema.optional().describe('Entries to return (default 5).'),
  exact: z.boolean().optional().describe("The seed's substring scoring instead of the hybrid search."),
});

export const forgetBody = z.strictObject({
  scope: z.string().min(1).max(200).optional().describe('Only this scope; without it every scope is cleared (unlimited tokens only).'),
});

// ---- context -----------------------------------------------------------------------------------------------------

const sectionNames = ['mental_model', 'beliefs', 'facts', 'memories', 'lore_context'] as const;

export const contextBody = z.strictObject({
  character: z.string().min(1).max(200).describe('The character whose prompt this is.'),
  message: boundedText('queryChars').describe("The player's message."),
  tags: tagsSchema.describe("The character's lore tags ([] = continental only): lore it may not know never comes back."),
  currentTurnId: turnIdSchema.optional().describe('The present turn: nothing after it is read.'),
  budget: z.number().int().min(1).max(LIMITS.contextBudget, over('contextBudget', 'tokens')).optional().describe('Tokens for every section together (default 1200).'),
  subjects: namesSchema.optional().describe('Other subjects whose models and beliefs follow the character\'s (default [""]: the world).'),
  where: whereSchema.optional().describe("Metadata conditions the memories' chunks must meet (as in a query), applied before ranking."),
  focusTerms: z.array(boundedText('focusTermChars')).max(LIMITS.focusTerms - 1, `must be at most ${LIMITS.focusTerms - 1} terms (limit focusTerms, less the character, see docs/limits.md)`).optional().describe('Here-and-now terms (location, others on scene) that boost memories mentioning them.'),
  limits: z.strictObject(Object.fromEntries(Object.entries(DEFAULT_LIMITS).map(([name, fallback]) => [name, countSchema.max(LIMITS.contextSectionItems, over('contextSectionItems', 'candidates')).optional().describe(`Default ${fallback}.`)])) as Record<keyof typeof DEFAULT_LIMITS, z.ZodOptional<z.ZodNumber>>).optional().describe('Candidates each section considers before the budget.'),
  shares: z.strictObject(Object.fromEntries(sectionNames.map((name) => [name, z.number().min(0).optional().describe(`The share of ${name}.`)])) as Record<(typeof sectionNames)[number], z.ZodOptional<z.ZodNumber>>).optional().describe('First-pass shares of the budget (relative weights).'),
  template: boundedText('templateChars').optional().describe('A template with {placeholders}; {{ and }} are literal braces.'),
  variables: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/u), boundedText('templateChars')).refine((variables) => Object.keys(variables).length <= LIMITS.templateVariables, over('templateVariables', 'variables')).optional().describe('Extra template variables, e.g. { "name": "Marta" }.'),
  sourceTags: z.boolean().optional().describe('End each line with a short source tag such as [fact 17] (default true).'),
});

/** The body of a request with no parameters (an empty object or no body at all). */
export const emptyBody = z.strictObject({});
