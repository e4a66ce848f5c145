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
  /** The most lore tags its requests may claim (403 beyond them). */
  tags?: string[];
  /** The characters it may build context for: names, or names with the lore tags each holds (403 for others). */
  characters?: string[] | Record<string, string[]>;
  /** When it stops working: an ISO 8601 time with its offset (`2026-01-31T00:00:00Z`), or ms since 1970 (401 after). */
  expiresAt?: string | number;
}

const secretSchema = z
  .string()
  .min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters; generate one with \`openssl rand -hex 24\``)
  .regex(/^\S+$/u, 'must not contain spaces');

const saveIdSchema = z.string().trim().min(1).max(200);
const tagSchema = z.string().regex(/^\S+$/u, 'must be a tag without spaces').max(100);
const characterSchema = z.string().trim().min(1).max(200);
const expirySchema = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time with its offset, such as 2026-01-31T00:00:00Z' });

/** The tokens file: `{ "tokens": [{ "name": "game", "token": "...", "saves": ["run-1"] }, { "token": "...", "admin": true }] }`. */
export const tokensFileSchema = z.strictObject({
  tokens: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(100).optional(),
        token: secretSchema,
        saves: z.union([z.literal('*'), z.array(saveIdSchema).min(1)]).default('*'),
        admin: z.boolean().default(false),
        tags: z.array(tagSchema).max(100).optional(),
        characters: z.union([z.array(characterSchema).min(1).max(1000), z.record(characterSchema, z.array(tagSchema).max(100))]).optional(),
        expiresAt: expirySchema.optional(),
      }),
    )
    .min(1, 'must list at least one token'),
});

function tokenError(message: string, field: string): MnemoError {
  return new MnemoError('INVALID_INPUT', message, { details: { field } });
}

/** Parses the `;key=value` bindings after a token spec's saves: tags, characters, expires. */
function parseBindings(parts: readonly string[], field: string): Pick<TokenGrant, 'tags' | 'characters' | 'expiresAt'> {
  const grant: Pick<TokenGrant, 'tags' | 'characters' | 'expiresAt'> = {};
  const list = (value: string) => value.split(',').map((item) => item.trim()).filter((item) => item !== '');
  for (const part of parts) {
    const equals = part.indexOf('=');
    const key = equals === -1 ? part : part.slice(0, equals).trim();
    const value = equals === -1 ? '' : part.slice(equals + 1).trim();
    if (key === 'tags' && list(value).every((tag) => tagSchema.safeParse(tag).success)) grant.tags = list(value);
    else if (key === 'characters' && list(value).length > 0) grant.characters = list(value);
    else if (key === 'expires' && expirySchema.safeParse(value).success) grant.expiresAt = value;
    else {
      throw tokenError(`${field}: expected ;tags=a,b or ;characters=Name1,Name2 or ;expires=2026-01-31T00:00:00Z after the secret and its saves, got ${JSON.stringify(part)}.`, field);
    }
  }
  return grant;
}

/**
 * Parses a `--token` spec: `SECRET` (every save) or `SECRET:saveA,saveB` (only those saves and recall scopes),
 * then optional bindings `;tags=a,b` (the most lore tags it may claim), `;characters=Marta,Rowan` (the characters
 * it may build context for) and `;expires=2026-01-31T00:00:00Z`. An admin token takes `;expires` only.
 *
 * @example
 * ```ts
 * parseTokenSpec('s3cr3t-s3cr3t-s3cr3t:run-1,run-2'); // { token: 's3cr3t-s3cr3t-s3cr3t', saves: ['run-1', 'run-2'] }
 * parseTokenSpec('s3cr3t-s3cr3t-s3cr3t:run-1;tags=brackwater;expires=2026-01-31T00:00:00Z');
 * ```
 */
export function parseTokenSpec(spec: string, field = '--token', admin = false): TokenGrant {
  const [head = '', ...bindings] = spec.split(';');
  const separator = head.indexOf(':');
  const token = separator === -1 ? head : head.slice(0, separator);
  const checked = secretSchema.safeParse(token);
  if (!checked.success) throw tokenError(`${field}: the secret ${checked.error.issues[0]?.message ?? 'is invalid'}.`, field);
  const bound = parseBindings(bindings, field);
  if (admin && (separator !== -1 || bound.tags !== undefined || bound.characters !== undefined)) {
    throw tokenError(`${field}: an admin token reaches every save and every lore entry; remove the saves, tags or characters after the secret (;expires= is allowed), or use --token for a limited one.`, field);
  }
  if (separator === -1 || head.slice(separator + 1).trim() === '*') return { token, saves: '*', admin, ...bound };
  const saves = head.slice(separator + 1).split(',').map((save) => save.trim());
  if (saves.length === 0 || saves.some((save) => !saveIdSchema.safeParse(save).success)) {
    throw tokenError(`${field}: expected SECRET or SECRET:save1,save2 with non-empty save ids, got a save list ${JSON.stringify(head.slice(separator + 1))}.`, field);
  }
  return { token, saves, ...bound };
}

/**
 * Reads and checks a tokens file (JSON, see tokensFileSchema).
 *
 * @example
 * ```ts
 * const grants = await readTokensFile('/etc/mnemo/tokens.json');
 * ```
 */
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
    throw new MnemoError('INVALID_INPUT', `--tokens-file: ${path} is invalid: ${problems.join('; ')}. Expected { "tokens": [{ "name": "game", "token": "<secret>", "saves": ["run-1"] | "*", "admin": false, "tags"?: [...], "characters"?: { "Marta": [...] }, "expiresAt"?: "2026-01-31T00:00:00Z" }] }.`, {
      details: { field: 'tokensFile' },
    });
  }
  return parsed.data.tokens;
}

/** A grant's bindings as a principal holds them: tag and character sets, the expiry in ms. */
function bindingOf(grant: TokenGrant, name: string): Pick<Principal, 'tags' | 'characters' | 'expiresAt'> {
  const characters = grant.characters === undefined ? null
    : new Map<string, ReadonlySet<string> | null>(Array.isArray(grant.characters) ? grant.characters.map((character) => [character, null]) : Object.entries(grant.characters).map(([character, tags]) => [character, new Set(tags)]));
  const characterTags = characters === null || [...characters.values()].some((tags) => tags === null) ? null : new Set([...characters.values()].flatMap((tags) => [...(tags ?? [])]));
  const tags = grant.tags === undefined ? characterTags : new Set(grant.tags.filter((tag) => characterTags === null || characterTags.has(tag)));
  const expiresAt = grant.expiresAt === undefined ? null : typeof grant.expiresAt === 'number' ? grant.expiresAt : Date.parse(grant.expiresAt);
  if (expiresAt !== null && !Number.isFinite(expiresAt)) throw tokenError(`${name}: expiresAt must be an ISO 8601 time such as 2026-01-31T00:00:00Z, got ${JSON.stringify(grant.expiresAt)}.`, 'expiresAt');
  return { ...(tags === null ? {} : { tags }), ...(characters === null ? {} : { characters }), ...(expiresAt === null ? {} : { expiresAt }) };
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
      const name = grant.name ?? `token #${index + 1}`;
      if (grant.admin === true && (grant.tags !== undefined || grant.characters !== undefined)) {
        throw tokenError(`${name}: an admin token reads every lore entry, so tags and characters cannot bind it; remove them, or make it a limited token.`, 'token');
      }
      const saves = grant.admin === true || grant.saves === '*' ? null : new Set(grant.saves);
      return { hash: digest(grant.token), principal: { name, admin: grant.admin === true, saves, ...bindingOf(grant, name) } };
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
