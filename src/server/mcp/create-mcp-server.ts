// The MCP server: Mnemo's tools (remember, recall, query_memory, rewind, lore_search, build_context, add_memory) for one caller.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MnemoError, asBusyError, isMnemoError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { silentLogger } from '../../core/logger.js';
import type { Logger } from '../../core/logger.js';
import type { Mnemo } from '../../open-memory.js';
import { requireSave } from '../access.js';
import type { Principal } from '../access.js';
import type { InFlight } from '../in-flight.js';
import type { Route } from '../route.js';
import { API_ROUTES } from '../routes/index.js';
import { invalidInput } from '../invalid-input.js';
import { chunkInputSchema, contextBody, loreSearchBody, queryBody, recallBody, rememberBody, rewindBody, saveIdSchema } from '../schemas/requests.js';

const withSave = { saveId: saveIdSchema };

/** lore_search always takes the character's tags: no MCP caller reads lore outside a character's scope. */
const loreSearchTool = z.strictObject({
  query: loreSearchBody.shape.query.describe('What the player asks about.'),
  tags: z.array(z.string().regex(/^\S+$/u).max(100)).max(LIMITS.tags, `must be at most ${LIMITS.tags} tags (limit tags, see docs/limits.md)`).describe("The character's lore tags (zone, district, faction); [] = continental lore only."),
  k: z.number().int().min(1).max(100).optional().describe('Entries to return (default 5).'),
});

/**
 * The SDK would refuse arguments that do not match a tool's schema with its own text ("MCP error -32602: Input
 * validation error: ..."). Each tool's arguments are checked here instead, against the same schema, and refused
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
async function invoke(memory: Mnemo, principal: Principal, operationId: string, input: { saveId?: string; body?: unknown }): Promise<unknown> {
  const route = routeById(operationId);
  if (route.access === 'save') requireSave(principal, input.saveId ?? '');
  return route.handle({ params: input.saveId === undefined ? undefined : { saveId: input.saveId }, query: undefined, body: input.body, principal, memory });
}

function asResult(value: unknown, text?: string): CallToolResult {
  return { content: [{ type: 'text', text: text ?? JSON.stringify(value, null, 2) }], structuredContent: value as Record<string, unknown> };
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
  const server = new McpServer({ name: 'mnemo', version: options.version ?? '0.1.0' }, { capabilities: { tools: {} } });
  const schemas = new Map<string, z.ZodType>();
  codedArgumentErrors(server, schemas);
  const tool = <S extends z.ZodObject>(name: string, description: string, inputSchema: S, run: (args: z.output<S>) => Promise<CallToolResult>) => {
    schemas.set(name, inputSchema);
    server.registerTool(name, { description, inputSchema }, (async (args: z.output<S>) => {
      try {
        return await (options.inFlight === undefined ? run(args) : options.inFlight.track(run(args)));
      } catch (error) {
        return asError(error, logger);
      }
    }) as never);
  };

  tool('remember', 'Store a JSON value under a key in a scope (replacing that key there); `decay` forgets it after 30s, 15m, 1h, 7d ...', rememberBody, async (args) =>
    asResult(await invoke(memory, principal, 'remember', { body: args })));
  tool('recall', 'Recall remembered values by meaning and words (or by substring with exact: true), in one scope or all.', recallBody, async (args) =>
    asResult(await invoke(memory, principal, 'recall', { body: args })));
  tool('query_memory', "Search a save's narrative memory (hybrid: words and meaning); each hit says its turn and why it ranked. currentTurnId keeps out anything later.", queryBody.extend(withSave), async ({ saveId, ...body }) =>
    asResult(await invoke(memory, principal, 'queryMemory', { saveId, body })));
  tool('rewind', 'Delete everything of a save after a turn, in every layer (chunks, facts, beliefs, models, queued jobs); returns what each lost.', rewindBody.extend(withSave), async ({ saveId, ...body }) =>
    asResult(await invoke(memory, principal, 'rewind', { saveId, body })));
  tool('lore_search', 'Search the lore a character may know: continental entries, plus entries whose every tag the character holds.', loreSearchTool, async (args) =>
    asResult(await invoke(memory, principal, 'searchLore', { body: args })));
  tool('build_context', "Build a prompt's context for a character: its mental model, beliefs, facts, relevant memories and the lore it may know, within a token budget. The text is the rendered prompt; the structured result has every line's source.", contextBody.extend(withSave), async ({ saveId, ...body }) => {
    const result = (await invoke(memory, principal, 'buildContext', { saveId, body })) as { prompt: string };
    return asResult(result, result.prompt);
  });
  tool('add_memory', 'Add one chunk of text to a save at a turn (chunkType default "narrative").', chunkInputSchema.extend(withSave), async ({ saveId, ...chunk }) =>
    asResult(await invoke(memory, principal, 'addChunks', { saveId, body: { chunks: [chunk] } })));
  return server;
}
