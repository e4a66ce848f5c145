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
}

/** The principal of `--insecure-local` on a loopback address: the owner of the database, with every right. */
export const LOCAL_OWNER: Principal = { name: 'insecure-local', admin: true, saves: null };

/** True when the principal may use the save (or the recall scope) `saveId`. */
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

/** Throws FORBIDDEN unless the principal may use every save and scope (for calls that span them). */
export function requireAllSaves(principal: Principal, what: string): void {
  if (principal.saves === null) return;
  throw new MnemoError('FORBIDDEN', `${what} spans every save or scope, and this token is limited to ${[...principal.saves].map((save) => JSON.stringify(save)).join(', ')}. Name one of those, or use a token without a save list.`, {
    details: { field: 'token' },
  });
}

/** Throws FORBIDDEN unless the principal is an admin. */
export function requireAdmin(principal: Principal, what: string): void {
  if (principal.admin) return;
  throw new MnemoError('FORBIDDEN', `${what} needs an admin token (--admin-token, or "admin": true in the tokens file).`, { details: { field: 'token' } });
}
