// `mnemo serve`: the HTTP JSON API (and MCP at /mcp) on one database, closed gracefully on SIGTERM / SIGINT.
import type { Command } from 'commander';
import { consoleLogger } from '../../core/logger.js';
import { createApi } from '../../server/create-api.js';
import { startHttpServer } from '../../server/start-http-server.js';
import type { Output } from '../context.js';
import { openFromOptions } from '../context.js';
import { addLlmOptions, llmFromFlags } from '../llm-options.js';
import type { LlmFlags } from '../llm-options.js';
import { addServerOptions, describeAuth, nextStopSignal, resolveAuth } from '../server-options.js';
import type { ServerFlags } from '../server-options.js';

/** Registers `mnemo serve [--port] [--host] [--token ...] [--insecure-local] [--no-mcp] [--llm-* ...]`. */
export function registerServe(program: Command, output: Output): void {
  const command = program
    .command('serve')
    .description('serve the HTTP JSON API (and the MCP server at /mcp) until SIGTERM or SIGINT; a bearer token is required')
    .option('--no-mcp', 'do not serve MCP at /mcp')
    .option('--no-inspector', 'do not serve the inspector page at /inspector/');
  addServerOptions(command);
  addLlmOptions(command);
  command.action(async (flags: ServerFlags & LlmFlags & { mcp: boolean; inspector: boolean }, self: Command) => {
    const auth = await resolveAuth(flags);
    const llm = flags.llmBaseUrl === undefined && flags.llmModel === undefined ? null : llmFromFlags(flags);
    const memory = await openFromOptions(self, { llm });
    let running;
    try {
      const app = createApi({ memory, auth, maxBodyBytes: flags.maxBody, logRequests: flags.logRequests === true, mcp: flags.mcp, inspector: flags.inspector, logger: consoleLogger });
      running = await startHttpServer({ fetch: app.fetch, host: flags.host, port: flags.port, shutdownTimeoutMs: flags.shutdownTimeout });
    } catch (error) {
      await memory.close();
      throw error;
    }
    const stopped = nextStopSignal();
    output.out(`mnemo listening on ${running.url} (db ${memory.location}; ${describeAuth(auth)}${flags.mcp ? '; MCP at /mcp' : ''}${flags.inspector ? `; inspector at ${running.url}/inspector/` : ''}${llm === null ? '' : '; living worker on'})`);
    const signal = await stopped.received;
    output.err(`${signal}: no new connections; finishing ${running.inFlight()} request(s) in flight`);
    await running.close();
    await memory.close();
    output.err('closed the database; bye');
  });
}
