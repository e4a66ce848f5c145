// Who is calling and what it may touch: the saves (and recall scopes) of its token, and whether it is an admin.
import { MnemoError } from '../core/errors.js';

/**
 * The caller of a request, as its token says. A token limited to saves may use only those saves and the recall
 * scopes of the same names; an admin may also author lore (import, wipe) and search or list lore without a
 * character's tags. Nobody, admin or not, gets lore a character may not know through the context builder.
 */
export interface Principal {
  /** A label for logs and `/v1/access` (never the secret). */
  name: string;
  admin: boolean;
  /** The saves and recall scopes it may use, or null for every one. */
  saves: ReadonlySet<string> | null;
  /** The most lore tags a request may claim (a request claiming another is FORBIDDEN), or null/absent for any. */
  tags?: ReadonlySet<string> | null;
  /**
   * The characters it may build context for, each with the tags the operator gave it (null: the request's tags,
   * within `tags`), or null/absent for any character.
   */
  characters?: ReadonlyMap<string, ReadonlySet<string> | null> | null;
  /** When the token stops working (ms since 1970), or null/absent for never. */
  expiresAt?: number | null;
}

/** The principal of `--insecure-local` on a loopback address: the owner of the database, with every right. */
export const LOCAL_OWNER: Principal = { name: 'insecure-local', admin: true, saves: null };

const quoted = (values: Iterable<string>) => [...values].map((value) => JSON.stringify(value)).join(', ');

/**
 * Throws FORBIDDEN when a request claims lore tags outside the token's binding (its `tags`, or the tags of its
 * characters): a client holding a player's token cannot read another faction's lore by claiming its tags.
 *
 * @example
 * ```ts
 * requireTagsWithin({ name: 'player', admin: false, saves: null, tags: new Set(['brackwater']) }, ['lamplighters']); // throws FORBIDDEN
 * ```
 */
export function requireTagsWithin(principal: Principal, tags: readonly string[] | undefined, field = 'tags'): void {
  const allowed = principal.tags ?? null;
  if (allowed === null || tags === undefined) return;
  const outside = tags.filter((tag) => !allowed.has(tag));
  if (outside.length === 0) return;
  throw new MnemoError('FORBIDDEN', `${field}: this token may claim only the lore tags ${quoted(allowed) || '(none: continental lore only)'}, not ${quoted(outside)}. The tokens file binds each token to the tags of the characters it plays.`, {
    details: { field, outside },
  });
}

/**
 * Throws FORBIDDEN unless the token may build context for `character` with `tags`: the character must be one of its
 * characters (names compared case-insensitively), and the tags within that character's tags and the token's.
 *
 * @example
 * ```ts
 * requireCharacterWithin(playerPrincipal, 'Marta', ['brackwater']);
 * ```
 */
export function requireCharacterWithin(principal: Principal, character: string, tags: readonly string[]): void {
  const characters = principal.characters ?? null;
  if (characters !== null) {
    const key = character.trim().toLowerCase();
    const entry = [...characters.entries()].find(([name]) => name.toLowerCase() === key);
    if (entry === undefined) {
      throw new MnemoError('FORBIDDEN', `character: this token may act as ${quoted(characters.keys())} only, not ${JSON.stringify(character)}. Use the token given for that character.`, { details: { field: 'character' } });
    }
    const own = entry[1];
    const outside = own === null ? [] : tags.filter((tag) => !own.has(tag));
    if (outside.length > 0) {
      throw new MnemoError('FORBIDDEN', `tags: ${entry[0]} holds the lore tags ${quoted(own ?? []) || '(none: continental lore only)'} for this token, not ${quoted(outside)}.`, { details: { field: 'tags', outside } });
    }
  }
  requireTagsWithin(principal, tags);
}

/**
 * True when the principal may use the save (or the recall scope) `saveId`.
 *
 * @example
 * ```ts
 * allowsSave({ name: 'game', admin: false, saves: new Set(['run-1']) }, 'run-2'); // false
 * ```
 */
export function allowsSave(principal: Principal, saveId: string): boolean {
  return principal.saves === null || principal.saves.has(saveId);
}

/**
 * Throws FORBIDDEN unless the principal may use the save (or recall scope) `saveId`.
 *
 * @example
 * ```ts
 * requireSave({ name: 'game', admin: false, saves: new Set(['a']) }, 'b'); // throws FORBIDDEN (HTTP 403)
 * ```
 */
export function requireSave(principal: Principal, saveId: string, field = 'saveId'): void {
  if (allowsSave(principal, saveId)) return;
  throw new MnemoError('FORBIDDEN', `${field}: this token may use ${[...(principal.saves ?? [])].map((save) => JSON.stringify(save)).join(', ')}, not ${JSON.stringify(saveId)}. Use a token granted that save.`, {
    details: { field, saveId },
  });
}

/**
 * Throws FORBIDDEN unless the principal may use every save and scope (for calls that span them).
 *
 * @example
 * ```ts
 * requireAllSaves(principal, 'GET /v1/saves'); // throws FORBIDDEN for a token limited to some saves
 * ```
 */
export function requireAllSaves(principal: Principal, what: string): void {
  if (principal.saves === null) return;
  throw new MnemoError('FORBIDDEN', `${what} spans every save or scope, and this token is limited to ${[...principal.saves].map((save) => JSON.stringify(save)).join(', ')}. Name one of those, or use a token without a save list.`, {
    details: { field: 'token' },
  });
}

/**
 * Throws FORBIDDEN unless the principal is an admin.
 *
 * @example
 * ```ts
 * requireAdmin(principal, 'POST /v1/lore/import'); // throws FORBIDDEN unless principal.admin
 * ```
 */
export function requireAdmin(principal: Principal, what: string): void {
  if (principal.admin) return;
  throw new MnemoError('FORBIDDEN', `${what} needs an admin token (--admin-token, or "admin": true in the tokens file).`, { details: { field: 'token' } });
}
