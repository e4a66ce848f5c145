// A small HTTP client for the server tests: real fetch calls, answers checked against the routes' response schemas.
import { expect } from 'vitest';
import { API_ROUTES } from '../src/server/routes/index.js';

/** What a call sends. */
export interface CallOptions {
  method?: string;
  token?: string | null;
  body?: unknown;
  /** A raw body sent as is (for malformed JSON and size limits). */
  raw?: string | Uint8Array | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
}

/** An answer: status, parsed JSON (JSON Lines: `{ lines }`), headers, the body's text. */
export interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown> & { error?: { code: string; category: string; message: string; details: Record<string, unknown>; requestId: string } };
  headers: Headers;
}

/** Calls the server and records which routes answered with success. */
export class ApiClient {
  readonly covered = new Set<string>();

  constructor(readonly baseUrl: string, readonly defaultToken: string | null) {}

  async call(path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.defaultToken : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: RequestInit['body'];
    if (options.raw !== undefined) body = options.raw as RequestInit['body'];
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const init: RequestInit & { duplex?: 'half' } = { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body };
    if (options.raw instanceof ReadableStream) init.duplex = 'half';
    const response = await fetch(`${this.baseUrl}${path}`, init);
    const text = await response.text();
    if ((response.headers.get('content-type') ?? '').startsWith('application/x-ndjson')) {
      return { status: response.status, json: { lines: text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as unknown) }, headers: response.headers, text };
    }
    return { status: response.status, json: text === '' ? {} : JSON.parse(text), headers: response.headers, text };
  }

  /** Calls a route expecting success: checks the status and the answer's schema, and marks the route covered. */
  async ok(operationId: string, path: string, options: CallOptions = {}): Promise<Answer['json']> {
    const route = API_ROUTES.find((candidate) => candidate.operationId === operationId);
    if (route === undefined) throw new Error(`no route ${operationId}`);
    const answer = await this.call(path, { method: route.method.toUpperCase(), ...options });
    expect(answer.status, JSON.stringify(answer.json)).toBe(route.status ?? 200);
    for (const value of route.stream === true ? (answer.json.lines as unknown[]) : [answer.json]) {
      const parsed = route.response.safeParse(value);
      expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
    }
    this.covered.add(operationId);
    return answer.json;
  }

  /** Calls expecting an error answer with this status and code; returns the error. */
  async fails(path: string, status: number, code: string, options: CallOptions = {}): Promise<NonNullable<Answer['json']['error']>> {
    const answer = await this.call(path, options);
    expect(answer.status, JSON.stringify(answer.json)).toBe(status);
    expect(answer.json.error?.code).toBe(code);
    expect(JSON.stringify(answer.json)).not.toMatch(/\n\s+at |\.ts:\d+/u);
    return answer.json.error as NonNullable<Answer['json']['error']>;
  }
}
