// Bearer tokens: parsed from --token / --admin-token specs or a tokens file, checked in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { MnemoError } from '../core/errors.js';
import type { Principal } from './access.js';

/** The shortest secret accepted: 16 characters (e.g. `openssl rand -hex 24` gives 48). */
export const MIN_TOKEN_LENGTH = 16;

/** What one token grants. */
export interface TokenGrant {
  /** The secret the client sends as `Authorization: Bearer <token>`. */
  token: string;
  /** A label for logs (default `token #n`). */
  name?: string;
  /** The saves and recall scopes it may use, or `*` for all. */
  saves: '*' | string[];
  /** May author lore and read it without a character's tags. */
  admin?: boolean;
}

const secretSchema = z
  .string()
  .min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters; generate one with \`openssl rand -hex 24\``)
  .regex(/^\S+$/u, 'must not contain spaces');

const saveIdSchema = z.string().trim().min(1).max(200);

/** The tokens file: `{ "tokens": [{ "name": "game", "token": "...", "saves": ["run-1"] }, { "token": "...", "admin": true }] }`. */
export const tokensFileSchema = z.strictObject({
  tokens: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(100).optional(),
        token: secretSchema,
        saves: z.union([z.literal('*'), z.array(saveIdSchema).min(1)]).default('*'),
        admin: z.boolean().default(false),
      }),
    )
    .min(1, 'must list at least one token'),
});

function tokenError(message: string, field: string): MnemoError {
  return new MnemoError('INVALID_INPUT', message, { details: { field } });
}

/**
 * Parses a `--token` spec: `SECRET` (every save) or `SECRET:saveA,saveB` (only those saves and recall scopes).
 *
 * @example
 * ```ts
 * parseTokenSpec('s3cr3t-s3cr3t-s3cr3t:run-1,run-2'); // { token: 's3cr3t-s3cr3t-s3cr3t', saves: ['run-1', 'run-2'] }
 * ```
 */
export function parseTokenSpec(spec: string, field = '--token', admin = false): TokenGrant {
  const separator = spec.indexOf(':');
  const token = separator === -1 ? spec : spec.slice(0, separator);
  const checked = secretSchema.safeParse(token);
  if (!checked.success) throw tokenError(`${field}: the secret ${checked.error.issues[0]?.message ?? 'is invalid'}.`, field);
  if (separator === -1) return { token, saves: '*', admin };
  if (admin) throw tokenError(`${field}: an admin token reaches every save; remove ":${spec.slice(separator + 1)}", or use --token for a limited one.`, field);
  const saves = spec.slice(separator + 1).split(',').map((save) => save.trim());
  if (saves.length === 0 || saves.some((save) => !saveIdSchema.safeParse(save).success)) {
    throw tokenError(`${field}: expected SECRET or SECRET:save1,save2 with non-empty save ids, got a save list ${JSON.stringify(spec.slice(separator + 1))}.`, field);
  }
  return { token, saves };
}

/** Reads and checks a tokens file (JSON, see tokensFileSchema). */
export async function readTokensFile(path: string): Promise<TokenGrant[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new MnemoError('INVALID_INPUT', `--tokens-file: could not read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}). Check the path.`, { cause: error, details: { field: 'tokensFile' } });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new MnemoError('INVALID_INPUT', `--tokens-file: ${path} is not valid JSON (${(error as Error).message}).`, { cause: error, details: { field: 'tokensFile' } });
  }
  const parsed = tokensFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new MnemoError('INVALID_INPUT', `--tokens-file: ${path} is invalid: ${problems.join('; ')}. Expected { "tokens": [{ "name": "game", "token": "<secret>", "saves": ["run-1"] | "*", "admin": false }] }.`, {
      details: { field: 'tokensFile' },
    });
  }
  return parsed.data.tokens;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The server's tokens. A request's bearer token is hashed and compared with every known token's hash in constant
 * time, so neither the secret nor which token matched leaks through timing.
 *
 * @example
 * ```ts
 * const table = new TokenTable([{ token: 'a-long-secret-value', saves: ['run-1'] }]);
 * table.authenticate('Bearer a-long-secret-value'); // { name: 'token #1', admin: false, saves: Set { 'run-1' } }
 * ```
 */
export class TokenTable {
  private readonly entries: { hash: Buffer; principal: Principal }[];

  constructor(grants: readonly TokenGrant[]) {
    const seen = new Set<string>();
    this.entries = grants.map((grant, index) => {
      if (seen.has(grant.token)) throw tokenError(`token #${index + 1} repeats an earlier token; each secret may appear once.`, 'token');
      seen.add(grant.token);
      const saves = grant.admin === true || grant.saves === '*' ? null : new Set(grant.saves);
      return { hash: digest(grant.token), principal: { name: grant.name ?? `token #${index + 1}`, admin: grant.admin === true, saves } };
    });
  }

  /** Number of tokens. */
  get size(): number {
    return this.entries.length;
  }

  /** The principal of an `Authorization` header, or null when it carries no known bearer token. */
  authenticate(header: string | undefined): Principal | null {
    const match = /^Bearer\s+(\S+)\s*$/iu.exec(header ?? '');
    if (match === null) return null;
    const presented = digest(match[1] as string);
    let found: Principal | null = null;
    for (const entry of this.entries) if (timingSafeEqual(entry.hash, presented)) found = entry.principal;
    return found;
  }
}
