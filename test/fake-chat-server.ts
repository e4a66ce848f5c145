// An in-process HTTP server on 127.0.0.1 that speaks the OpenAI chat completions protocol, for adapter tests.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server received. */
export interface ChatRequest {
  body: {
    model: string;
    messages: { role: string; content: string }[];
    response_format?: { type: string; json_schema?: { name: string; schema: object } };
    temperature?: number;
    max_tokens?: number;
  };
  headers: IncomingMessage['headers'];
  /** 1-based index of this request. */
  index: number;
}

/** How the handler answers: a chat completion with `content`, or a raw status/body. */
export type ChatReply =
  | { content: string | null; delayMs?: number }
  | { status: number; body: string; headers?: Record<string, string>; delayMs?: number }
  | { hang: true }
  | { destroy: true };

/** A running fake server. */
export interface FakeChatServer {
  baseUrl: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

/** A chat completion body with one choice. */
export function completion(content: string | null): string {
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
}

/** Starts a server whose answers come from `handler`. */
export async function startChatServer(handler: (request: ChatRequest) => ChatReply | Promise<ChatReply>): Promise<FakeChatServer> {
  const requests: ChatRequest[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((incoming, response) => {
    let raw = '';
    incoming.on('data', (data: Buffer) => { raw += data.toString(); });
    incoming.on('end', async () => {
      if (incoming.url !== '/v1/chat/completions' || incoming.method !== 'POST') {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const request: ChatRequest = { body: JSON.parse(raw) as ChatRequest['body'], headers: incoming.headers, index: requests.length + 1 };
      requests.push(request);
      const reply = await handler(request);
      if ('hang' in reply) {
        open.add(response);
        return;
      }
      if ('destroy' in reply) {
        incoming.socket.destroy();
        return;
      }
      if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      if (response.destroyed) return;
      if ('content' in reply) response.writeHead(200, { 'content-type': 'application/json' }).end(completion(reply.content));
      else response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
