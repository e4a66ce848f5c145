// MCP over streamable HTTP, stateless: each POST gets a fresh server and transport acting for the request's token.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Logger } from '../../core/logger.js';
import type { Mnemo } from '../../open-memory.js';
import type { Principal } from '../access.js';
import { createMcpServer } from './create-mcp-server.js';

/**
 * Answers one MCP request (JSON-RPC over POST, JSON answers). The server is stateless: no session, no stream to
 * GET (405), so it survives restarts and runs behind any load balancer; the token of each request decides what
 * its tools may touch.
 *
 * @example
 * ```ts
 * app.post('/mcp', (c) => mcpHttpHandler(memory, c.get('principal'), c.req.raw));
 * ```
 */
export async function mcpHttpHandler(memory: Mnemo, principal: Principal, request: Request, logger?: Logger): Promise<Response> {
  if (request.method !== 'POST') {
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send JSON-RPC with POST.' }, id: null }), {
      status: 405,
      headers: { 'content-type': 'application/json', allow: 'POST' },
    });
  }
  const server = createMcpServer(memory, principal, { logger });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
