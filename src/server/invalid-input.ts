// Zod issues of a request as one MnemoError: LIMIT_EXCEEDED when every issue is a bound crossed, else INVALID_INPUT.
import type { z } from 'zod';
import { MnemoError } from '../core/errors.js';

/**
 * Turns zod issues into one error listing every problem: LIMIT_EXCEEDED when each is a bound of LIMITS crossed
 * (their messages name the limit), else INVALID_INPUT.
 *
 * @example
 * ```ts
 * const parsed = queryBody.safeParse(body);
 * if (!parsed.success) throw invalidInput('body', parsed.error);
 * ```
 */
export function invalidInput(location: 'path' | 'query' | 'body' | 'arguments', error: z.ZodError): MnemoError {
  const issues = error.issues.map((issue) => `${issue.path.length === 0 ? location : issue.path.join('.')}: ${issue.message}`);
  const first = error.issues[0]?.path.join('.') ?? '';
  const limits = error.issues.map((issue) => /\(limit (\w+)/u.exec(issue.message)?.[1]);
  const code = limits.every((limit) => limit !== undefined) ? 'LIMIT_EXCEEDED' : 'INVALID_INPUT';
  const where = { path: 'path', query: 'query string', body: 'body', arguments: 'arguments' }[location];
  return new MnemoError(code, `Invalid request ${where}: ${issues.join('; ')}. ${code === 'LIMIT_EXCEEDED' ? 'docs/limits.md lists every bound.' : 'See /openapi.json for the expected shape.'}`, {
    details: { location, field: first === '' ? location : first, issues, ...(code === 'LIMIT_EXCEEDED' ? { limit: limits[0] as string } : {}) },
  });
}
