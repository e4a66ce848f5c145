// The MCP server: Mnemo's tools (narrative, living, lore, context, remember / recall) for one caller, with compact text results.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { compactBeliefs, compactEntries, compactEntry, compactFacts, compactHits, compactLoreHits, compactModels, compactSaves } from '../../compact/index.js';
import type { Fact, MentalModel } from '../../core/living-types.js';
import { MnemoError, asBusyError, isMnemoError } from '../../core/errors.js';
import { requireJsonDepth } from '../../core/json-value.js';
import { refuseProtoKeys } from '../../core/proto-key.js';
import { LIMITS } from '../../core/limits.js';
import type { Hit } from '../../core/types.js';
import type { BeliefView } from '../../living/living-memory.js';
import type { LoreHit } from '../../lore/lore-book.js';
import type { MemoryEntry } from '../../recall/memory-entry.js';
import { silentLogger } from '../../core/logger.js';
import type { Logger } from '../../core/logger.js';
import type { Mnemo } from '../../open-memory.js';
import { requireSave } from '../access.js';
import type { Principal } from '../access.js';
import type { InFlight } from '../in-flight.js';
import type { Route } from '../route.js';
import { API_ROUTES } from '../routes/index.js';
import { importBody } from '../routes/save-file-routes.js';
import { invalidInput } from '../invalid-input.js';
import { chunkInputSchema, contextBody, deleteChunksBody, forkBody, loreSearchBody, queryBody, recallBody, rememberBody, rewindBody, saveIdSchema, turnIdSchema } from '../schemas/requests.js';
import type { deleteChunksCountsSchema, deleteCountsSchema, forkCountsSchema, rewindCountsSchema, saveOverviewSchema } from '../schemas/responses.js';
import { collectSaveFile } from './collect-save-file.js';
import { MCP_INSTRUCTIONS } from './mcp-instructions.js';

const withSave = { saveId: saveIdSchema };
const scores = z.boolean().optional().describe("Add each hit's score and its rank in each arm to the text (default false).");
const limit = z.number().int().min(1).max(1000).optional().describe('How many to return (default 20, at most 1000).');
const maxTurnId = turnIdSchema.optional().describe('Only what existed by this turn.');

const factsTool = z.strictObject({
  ...withSave,
  turnId: turnIdSchema.optional().describe('Only the facts of this turn.'),
  maxTurnId,
  entity: z.string().min(1).max(200).optional().describe('Only facts naming this entity (a character, place or thing; case-insensitive, exact).'),
  limit,
});
const beliefsTool = z.strictObject({
  ...withSave,
  subject: z.string().max(200).optional().describe('Only beliefs about this subject, e.g. "Marta" ("" = the world).'),
  maxTurnId,
  nowTurn: turnIdSchema.optional().describe('Read trends at this turn (default: the latest).'),
  limit,
});
const modelsTool = z.strictObject({ ...withSave, subject: z.string().max(200).optional().describe('Only the profile of this subject, e.g. "Marta".'), maxTurnId, limit });
const listSavesTool = z.strictObject({
  offset: z.number().int().min(0).optional().describe('Saves to skip (default 0).'),
  limit: z.number().int().min(1).max(1000).optional().describe('Saves to list (default 100).'),
});

const exportSaveTool = z.strictObject({
  ...withSave,
  vectors: z.boolean().optional().describe("Include each chunk's vector (default true, so an import finds the chunks by meaning at once; false gives a file several times smaller, whose import finds them by words until `mnemo reindex`)."),
});
const importSaveTool = importBody.extend({
  saveId: saveIdSchema.describe('The save to import into; it must hold nothing yet.'),
  file: z.string().min(1).max(LIMITS.mcpSaveFileChars, `must be at most ${LIMITS.mcpSaveFileChars.toLocaleString('en-US')} characters (limit mcpSaveFileChars, see docs/limits.md); import a larger file with mnemo import`).describe('The save file (JSON Lines), exactly as export_save gave it.'),
});

/**
 * Any JSON value, as zod's recursive JSON schema: every branch names its type, so a model's tool schema says what
 * it takes (the HTTP API's `unknown` leaves would be `{}`, which MCP clients flag as constraining nothing; OpenAPI
 * 3.0 cannot hold the recursion, so only the MCP tools use it).
 */
const jsonMetadata = z.record(z.string(), z.json()).optional().describe('Free JSON metadata kept with it.');
const rememberTool = rememberBody.extend({ value: z.json().describe('Any JSON value; it comes back exactly.'), metadata: jsonMetadata });
const addMemoryTool = chunkInputSchema.extend({ ...withSave, metadata: jsonMetadata });

/** The hints every tool carries: Mnemo touches only its own database (closed world). */
const readOnly: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const plural = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'}`;

/** lore_search always takes the character's tags: no MCP caller reads lore outside a character's scope. */
const loreSearchTool = z.strictObject({
  query: loreSearchBody.shape.query.describe('What the player asks about.'),
  tags: z.array(z.string().regex(/^\S+$/u).max(100)).max(LIMITS.tags, `must be at most ${LIMITS.tags} tags (limit tags, see docs/limits.md)`).describe("The character's lore tags (zone, district, faction); [] = continental lore only."),
  k: z.number().int().min(1).max(100).optional().describe('Entries to return (default 5).'),
  where: loreSearchBody.shape.where,
});

/**
 * The SDK would refuse arguments that do not match a tool's schema with its own text ("MCP error -32602: Input
 * validation error: ..."). Each tool's arguments are checked here instead: first each argument's nesting
 * (iteratively, so a value nested far past `jsonDepth` is LIMIT_EXCEEDED before zod's recursive JSON schema walks
 * it and overflows the stack), then against the tool's schema, and refused
 * as the HTTP API refuses a body: `error INVALID_INPUT: ...`, or `error LIMIT_EXCEEDED: ...` when every problem is
 * a bound crossed (docs/limits.md). (This replaces the SDK's `validateToolInput`, pinned at 1.32.2; the MCP tests
 * check the coded answer, so an SDK that renames it fails them.)
 */
function codedArgumentErrors(server: McpServer, schemas: ReadonlyMap<string, z.ZodType>): void {
  const sdk = server as unknown as { validateToolInput(tool: unknown, args: unknown, name: string): Promise<unknown> };
  const original = sdk.validateToolInput.bind(sdk);
  sdk.validateToolInput = async (tool, args, name) => {
    const schema = schemas.get(name);
    if (schema === undefined) return original(tool, args, name);
    try {
      for (const [field, value] of Object.entries((args ?? {}) as Record<string, unknown>)) requireJsonDepth(value, field);
      refuseProtoKeys(args, 'arguments');
    } catch (error) {
      if (!isMnemoError(error)) throw error;
      throw new Error(`error ${error.code}: ${error.message}`);
    }
    const parsed = schema.safeParse(args ?? {});
    if (parsed.success) return parsed.data;
    const error = invalidInput('arguments', parsed.error);
    throw new Error(`error ${error.code}: ${error.message}`);
  };
}

function routeById(operationId: string): Route {
  const route = API_ROUTES.find((candidate) => candidate.operationId === operationId);
  if (route === undefined) throw new MnemoError('INTERNAL', `MCP: no route ${operationId}.`);
  return route;
}

/** Runs an API route's handler with the route's own access check, so a tool and its endpoint obey the same rules. */
async function invoke<T>(memory: Mnemo, principal: Principal, operationId: string, input: { saveId?: string; body?: unknown; query?: unknown }): Promise<T> {
  const route = routeById(operationId);
  if (route.access === 'save') requireSave(principal, input.saveId ?? '');
  return (await route.handle({ params: input.saveId === undefined ? undefined : { saveId: input.saveId }, query: input.query ?? {}, body: input.body, principal, memory })) as T;
}

/** A result: compact text for the model, the whole answer as structured content for programs. */
function asResult(value: unknown, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: value as Record<string, unknown> };
}

/** A tool's failure as an MCP error result: the code and message, never a stack trace. */
function asError(thrown: unknown, logger: Logger): CallToolResult {
  const error = asBusyError(thrown) ?? thrown;
  if (isMnemoError(error)) return { isError: true, content: [{ type: 'text', text: `error ${error.code}: ${error.message}` }] };
  logger.warn(`MCP tool failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return { isError: true, content: [{ type: 'text', text: 'error INTERNAL: an internal error occurred; the server log has the details.' }] };
}

/**
 * Makes an MCP server whose tools act for `principal` (its saves, its admin right); `inFlight` tracks running tool
 * calls, so a shutdown can let them finish. Each tool runs the handler of
 * the HTTP route that does the same, so the same validation, access and lore rules hold: lore_search and
 * build_context always take a character's tags, and a token limited to saves stays within them.
 *
 * @example
 * ```ts
 * const server = createMcpServer(memory, LOCAL_OWNER);
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(memory: Mnemo, principal: Principal, options: { logger?: Logger; version?: string; inFlight?: InFlight } = {}): McpServer {
  const logger = options.logger ?? silentLogger;
  const server = new McpServer({ name: 'mnemo', title: 'Mnemo memory', version: options.version ?? '0.1.0' }, { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS });
  const schemas = new Map<string, z.ZodType>();
  codedArgumentErrors(server, schemas);
  const tool = <S extends z.ZodObject>(name: string, about: { title: string; description: string; annotations: ToolAnnotations }, inputSchema: S, run: (args: z.output<S>) => Promise<CallToolResult>) => {
    schemas.set(name, inputSchema);
    server.registerTool(name, { title: about.title, description: about.description, inputSchema, annotations: { title: about.title, ...about.annotations } }, (async (args: z.output<S>) => {
      try {
        return await (options.inFlight === undefined ? run(args) : options.inFlight.track(run(args)));
      } catch (error) {
        return asError(error, logger);
      }
    }) as never);
  };

  tool('list_saves', { title: 'List saves', description: 'The saves you may use, one line each: id, chunks, turn range, and facts, beliefs and mental models when there are any.', annotations: readOnly }, listSavesTool, async (args) => {
    const result = await invoke<{ saves: z.infer<typeof saveOverviewSchema>[]; total: number; nextOffset: number | null }>(memory, principal, 'listSaves', { query: args });
    return asResult(result, `${compactSaves(result.saves)}${result.nextOffset === null ? '' : `\n(${result.total} saves; more from offset ${result.nextOffset})`}`);
  });
  tool('add_memory', { title: 'Add a memory', description: 'Add one chunk of text to a save at a turn (chunkType default "narrative"); turns are numbered 0, 1, 2, ... in the order they happen.', annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } }, addMemoryTool, async ({ saveId, ...chunk }) => {
    const result = await invoke<{ ids: string[] }>(memory, principal, 'addChunks', { saveId, body: { chunks: [chunk] } });
    return asResult(result, `Added to ${saveId} at turn ${chunk.turnId}: ${result.ids.map((id) => id.slice(0, 8)).join(', ')}`);
  });
  tool('query_memory', { title: 'Search a save', description: "Search a save's memories by words and meaning; one line per hit: turn, type, short id, text. Pass currentTurnId to keep out anything later; scores: true shows why each hit ranked.", annotations: readOnly }, queryBody.extend({ ...withSave, scores }), async ({ saveId, scores: withScores, ...body }) => {
    const result = await invoke<{ hits: Hit[] }>(memory, principal, 'queryMemory', { saveId, body });
    return asResult(result, compactHits(result.hits, { scores: withScores }));
  });
  tool('rewind', { title: 'Rewind a save', description: 'Delete everything of a save after a turn, in every layer (chunks, facts, beliefs, mental models, queued jobs), for good; returns what each lost. To keep the later turns, fork_save first.', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } }, rewindBody.extend(withSave), async ({ saveId, ...body }) => {
    const result = await invoke<z.infer<typeof rewindCountsSchema>>(memory, principal, 'rewind', { saveId, body });
    const living = result.living;
    return asResult(result, `Rewound ${saveId} to turn ${body.turnId}: removed ${plural(result.chunks, 'chunk')}, ${plural(living.facts, 'fact')}, ${plural(living.beliefsDeleted, 'belief')} (${living.beliefsUpdated} trimmed), ${plural(living.modelsDeleted, 'mental model')} (${living.modelsUpdated} marked stale), ${plural(living.jobsCancelled, 'queued job')}.`);
  });
  tool('fork_save', { title: 'Fork a save', description: 'Copy a save as of a turn into a new, empty save, every layer, in one transaction; the old save is left as it was (a "save as", or a branch of the story).', annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } }, forkBody.extend(withSave), async ({ saveId, ...body }) => {
    const result = await invoke<z.infer<typeof forkCountsSchema>>(memory, principal, 'fork', { saveId, body });
    return asResult(result, `Forked ${saveId} at turn ${body.atTurn} into ${body.newSaveId}: ${plural(result.chunks, 'chunk')}, ${plural(result.living.facts, 'fact')}, ${plural(result.living.beliefs, 'belief')}, ${plural(result.living.models, 'mental model')}.`);
  });
  tool('export_save', { title: 'Export a save', description: 'A save, every layer (chunks, facts, beliefs, mental models, queued jobs), as one save file (JSON Lines) for a backup, a move to another store or import_save; the file comes as a resource after a one-line summary.', annotations: readOnly }, exportSaveTool, async ({ saveId, vectors }) => {
    const file = await collectSaveFile(await invoke<AsyncIterable<string>>(memory, principal, 'exportSave', { saveId, query: { vectors: vectors !== false } }), saveId);
    const summary = { saveId, lines: file.lines, characters: file.text.length };
    return {
      content: [
        { type: 'text', text: `Save file of ${saveId}: ${plural(file.lines, 'line')}, ${file.text.length.toLocaleString('en-US')} characters (format mnemo-save); import_save takes it as it is.` },
        { type: 'resource', resource: { uri: `mnemo://saves/${encodeURIComponent(saveId)}/save-file.jsonl`, mimeType: 'application/jsonl', text: file.text } },
      ],
      structuredContent: summary,
    };
  });
  tool('import_save', { title: 'Import a save', description: 'Import a save file (as export_save gives it) into a new, empty save, every layer in one transaction; the whole file is checked first, and a malformed or truncated one writes nothing and names its line.', annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } }, importSaveTool, async ({ saveId, ...body }) => {
    const result = await invoke<{ fromSaveId: string; chunks: number; vectors: number; living: { facts: number; beliefs: number; models: number; jobs: number } }>(memory, principal, 'importSave', { saveId, body });
    const living = result.living;
    return asResult(result, `Imported ${result.fromSaveId} into ${saveId}: ${plural(result.chunks, 'chunk')} (${result.vectors} with vectors), ${plural(living.facts, 'fact')}, ${plural(living.beliefs, 'belief')}, ${plural(living.models, 'mental model')}, ${plural(living.jobs, 'queued job')}.`);
  });
  tool('delete_chunks', { title: 'Delete chunks', description: "Delete chunks of a save for good, by id (as query_memory's structured result gives them) or every chunk added with one entryId, in one transaction; returns how many went (unknown ids count 0). Facts, beliefs and mental models stay; without an admin token the save's lore chunks stay.", annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } }, deleteChunksBody.extend(withSave), async ({ saveId, ...body }) => {
    const result = await invoke<z.infer<typeof deleteChunksCountsSchema>>(memory, principal, 'deleteChunks', { saveId, body });
    return asResult(result, `Deleted ${plural(result.chunks, 'chunk')} from ${saveId}.`);
  });
  tool('delete_save', { title: 'Delete a save', description: 'Remove a save for good, every layer (chunks, facts, beliefs, mental models and their versions, queued jobs, its search index), in one transaction; returns what each lost, all zeros for a save that holds nothing. export_save first to keep a copy.', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } }, z.strictObject({ saveId: saveIdSchema.describe('The save to delete, every turn of it.') }), async ({ saveId }) => {
    const result = await invoke<z.infer<typeof deleteCountsSchema>>(memory, principal, 'deleteSave', { saveId });
    const living = result.living;
    return asResult(result, `Deleted ${saveId}: removed ${plural(result.chunks, 'chunk')}, ${plural(living.facts, 'fact')}, ${plural(living.beliefs, 'belief')}, ${plural(living.models, 'mental model')}, ${plural(living.jobs, 'queued job')}.`);
  });
  tool('list_facts', { title: 'List facts', description: "A save's facts, most recent first, one line each: turn, fact id, statement. Filter by entity or turn.", annotations: readOnly }, factsTool, async ({ saveId, limit: count, ...query }) => {
    const result = await invoke<{ facts: Fact[] }>(memory, principal, 'listFacts', { saveId, query: { ...query, limit: count ?? 20 } });
    return asResult(result, compactFacts(result.facts));
  });
  tool('list_beliefs', { title: 'List beliefs', description: "A save's beliefs, most recently updated first, one line each: id, subject, trend (NEW, STRENGTHENING, WEAKENING, STALE, STABLE), how many facts back it, statement.", annotations: readOnly }, beliefsTool, async ({ saveId, limit: count, ...query }) => {
    const result = await invoke<{ beliefs: BeliefView[] }>(memory, principal, 'listBeliefs', { saveId, query: { ...query, limit: count ?? 20 } });
    return asResult(result, compactBeliefs(result.beliefs));
  });
  tool('list_mental_models', { title: 'List mental models', description: "A save's mental models (one short profile per character or subject), most recently updated first.", annotations: readOnly }, modelsTool, async ({ saveId, limit: count, ...query }) => {
    const result = await invoke<{ models: MentalModel[] }>(memory, principal, 'listModels', { saveId, query: { ...query, limit: count ?? 20 } });
    return asResult(result, compactModels(result.models));
  });
  tool('lore_search', { title: 'Search the lore', description: 'Search the lore a character may know: continental entries, plus entries whose every tag the character holds; one line per entry: title, scope, short id, content.', annotations: readOnly }, loreSearchTool.extend({ scores }), async ({ scores: withScores, ...body }) => {
    const result = await invoke<{ hits: LoreHit[] }>(memory, principal, 'searchLore', { body });
    return asResult(result, compactLoreHits(result.hits, { scores: withScores }));
  });
  tool('build_context', { title: 'Build a prompt context', description: "Build a prompt's context for a character: its mental model, beliefs, facts, relevant memories and the lore it may know, within a token budget. The text is the rendered prompt; the structured result has every line's source.", annotations: readOnly }, contextBody.extend(withSave), async ({ saveId, ...body }) => {
    const result = await invoke<{ prompt: string }>(memory, principal, 'buildContext', { saveId, body });
    return asResult(result, result.prompt === '' ? 'Nothing is known yet that bears on this message.' : result.prompt);
  });
  tool('remember', { title: 'Remember a value', description: 'Store a JSON value under a key in a scope, replacing that key there; `decay` forgets it after 30s, 15m, 1h, 7d ...', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } }, rememberTool, async (args) => {
    const result = await invoke<{ entry: MemoryEntry }>(memory, principal, 'remember', { body: args });
    return asResult(result, `Remembered ${compactEntry(result.entry)}`);
  });
  tool('recall', { title: 'Recall values', description: 'Recall remembered values by key, words and meaning (or by substring with exact: true), in one scope or all; one line per entry: key, scope, value.', annotations: readOnly }, recallBody.extend({ scores }), async ({ scores: withScores, ...body }) => {
    const result = await invoke<{ entries: MemoryEntry[] }>(memory, principal, 'recall', { body });
    return asResult(result, compactEntries(result.entries, { scores: withScores }));
  });
  return server;
}
