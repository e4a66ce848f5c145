// `mnemo mcp`: the MCP server over stdio (for a client that spawns it) or over streamable HTTP (--http).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import { consoleLogger } from '../../core/logger.js';
import type { Principal } from '../../server/access.js';
import { createApi } from '../../server/create-api.js';
import { InFlight } from '../../server/in-flight.js';
import { createMcpServer } from '../../server/mcp/create-mcp-server.js';
import { startHttpServer } from '../../server/start-http-server.js';
import type { Output } from '../context.js';
import { openFromOptions } from '../context.js';
import { parseTags } from '../parse-tags.js';
import { addServerOptions, describeAuth, nextStopSignal, resolveAuth } from '../server-options.js';
import type { ServerFlags } from '../server-options.js';

interface McpFlags extends ServerFlags {
  http?: boolean;
  saves?: string[];
}

/** The saves of `--saves`: at least one (an empty list would start a server that can use no save). */
function parseSaves(value: string): string[] {
  const saves = parseTags(value);
  if (saves.length === 0 || saves.some((save) => save.length > 200)) {
    throw new MnemoError('INVALID_INPUT', `--saves: expected one or more save ids separated by commas (each at most 200 characters), got ${JSON.stringify(value)}. Leave --saves out to allow every save.`, { details: { field: 'saves' } });
  }
  return saves;
}

/** Serves MCP on stdin/stdout until the client closes stdin or a stop signal comes; running tool calls finish first. */
async function serveStdio(command: Command, flags: McpFlags): Promise<void> {
  const memory = await openFromOptions(command);
  const principal: Principal = { name: 'stdio', admin: false, saves: flags.saves === undefined ? null : new Set(flags.saves) };
  const inFlight = new InFlight();
  const server = createMcpServer(memory, principal, { logger: consoleLogger, inFlight });
  const stop = nextStopSignal();
  const ended = Promise.race([new Promise<string>((resolve) => process.stdin.once('end', () => resolve('stdin closed'))), stop.received]);
  await server.connect(new StdioServerTransport());
  consoleLogger.info(`MCP server on stdio (db ${memory.location}${flags.saves === undefined ? '' : `; saves ${flags.saves.join(', ')}`})`);
  const reason = await ended;
  stop.cancel();
  consoleLogger.info(`${reason}: finishing ${inFlight.size} tool call(s)`);
  await inFlight.idle();
  await server.close();
  await memory.close();
}

/** Registers `mnemo mcp [--saves a,b]` (stdio) and `mnemo mcp --http [--port] [--host] [--token ...]`. */
export function registerMcp(program: Command, output: Output): void {
  const command = program
    .command('mcp')
    .description('serve the MCP tools (remember, recall, query_memory, rewind, lore_search, build_context, add_memory) over stdio, or over streamable HTTP with --http')
    .option('--http', 'serve streamable HTTP at /mcp instead of stdio (a bearer token is required, as for serve)')
    .option('--saves <saves>', 'stdio: limit the tools to these saves and recall scopes, comma-separated', parseSaves);
  addServerOptions(command);
  command.action(async (flags: McpFlags, self: Command) => {
    if (flags.http !== true) return serveStdio(self, flags);
    const auth = await resolveAuth(flags);
    const memory = await openFromOptions(self);
    let running;
    try {
      const app = createApi({ memory, auth, api: false, mcp: true, maxBodyBytes: flags.maxBody, logRequests: flags.logRequests === true, logger: consoleLogger });
      running = await startHttpServer({ fetch: app.fetch, host: flags.host, port: flags.port, shutdownTimeoutMs: flags.shutdownTimeout });
    } catch (error) {
      await memory.close();
      throw error;
    }
    const stopped = nextStopSignal();
    output.out(`mnemo MCP listening on ${running.url}/mcp (db ${memory.location}; ${describeAuth(auth)})`);
    const signal = await stopped.received;
    output.err(`${signal}: finishing ${running.inFlight()} request(s) in flight`);
    await running.close();
    await memory.close();
  });
}
