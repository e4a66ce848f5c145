// The one error class of Mnemo: a stable UPPERCASE code, a category, JSON-safe details and a cause.

/** Who is at fault: the caller (USER), Mnemo or its machine (SYSTEM), or a service Mnemo talks to (THIRD_PARTY). */
export type ErrorCategory = 'USER' | 'SYSTEM' | 'THIRD_PARTY';

/**
 * Every code Mnemo raises. Codes are stable: callers may match on them. Some with a meaning of their own:
 * - `LIMIT_EXCEEDED`: a value over one of the bounds of `LIMITS` (core/limits.ts, docs/limits.md); details name it.
 * - `NOT_A_DATABASE`: `path` / `--db` names a file that is not a SQLite database, or a folder that does not exist.
 * - `STORE_BUSY`: another process held the database's write lock longer than the store waits; nothing was
 *   written, and the same call may simply be retried (HTTP 503 with `Retry-After`).
 * - `TOKEN_EXPIRED`: the bearer token's `expiresAt` has passed (HTTP 401).
 */
export const ERROR_CODES = {
  INVALID_INPUT: 'USER',
  NOT_FOUND: 'USER',
  CONFLICT: 'USER',
  EMBEDDER_MISMATCH: 'USER',
  UNSUPPORTED: 'USER',
  STORE_CLOSED: 'USER',
  CONFIRMATION_REQUIRED: 'USER',
  LORE_INVALID: 'USER',
  LORE_EMPTY: 'USER',
  SAVE_FILE_INVALID: 'USER',
  UNAUTHENTICATED: 'USER',
  FORBIDDEN: 'USER',
  PAYLOAD_TOO_LARGE: 'USER',
  MALFORMED_JSON: 'USER',
  UNSUPPORTED_MEDIA_TYPE: 'USER',
  LIMIT_EXCEEDED: 'USER',
  NOT_A_DATABASE: 'USER',
  TOKEN_EXPIRED: 'USER',
  STORE_FAILURE: 'SYSTEM',
  STORE_BUSY: 'SYSTEM',
  SCHEMA_TOO_NEW: 'SYSTEM',
  INTERNAL: 'SYSTEM',
  DEPENDENCY_MISSING: 'SYSTEM',
  MODEL_MISSING: 'SYSTEM',
  PROVIDER_FAILURE: 'THIRD_PARTY',
  PROVIDER_TIMEOUT: 'THIRD_PARTY',
  PROVIDER_MALFORMED: 'THIRD_PARTY',
  CANCELLED: 'USER',
} as const satisfies Record<string, ErrorCategory>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** JSON-safe details attached to an error (what was expected, what arrived, where). */
export type ErrorDetails = Record<string, string | number | boolean | null | readonly (string | number)[]>;

export interface MnemoErrorOptions {
  details?: ErrorDetails;
  cause?: unknown;
}

/**
 * The error Mnemo throws. Its message says what was expected, what arrived and how to fix it.
 *
 * @example
 * ```ts
 * try { await memory.add({ saveId: 's', turnId: -1, text: 'x' }); }
 * catch (error) { if (error instanceof MnemoError && error.code === 'INVALID_INPUT') console.log(error.message); }
 * ```
 */
export class MnemoError extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: MnemoErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MnemoError';
    this.code = code;
    this.category = ERROR_CODES[code];
    this.details = options.details ?? {};
  }

  /** A JSON form without the stack, safe to send to a client. */
  toJSON(): { code: ErrorCode; category: ErrorCategory; message: string; details: ErrorDetails } {
    return { code: this.code, category: this.category, message: this.message, details: this.details };
  }
}

/**
 * True when `error` is a MnemoError, optionally with the given code.
 *
 * @example
 * ```ts
 * try {
 *   await memory.add({ saveId: 's', turnId: 1, text: '' });
 * } catch (error) {
 *   if (isMnemoError(error, 'INVALID_INPUT')) console.warn(error.message);
 * }
 * ```
 */
export function isMnemoError(error: unknown, code?: ErrorCode): error is MnemoError {
  return error instanceof MnemoError && (code === undefined || error.code === code);
}

/**
 * STORE_BUSY: another process held the write lock for `waitedMs`; nothing was written and the call may be retried.
 *
 * @example
 * ```ts
 * throw busyError('game.db', 5000); // HTTP 503 with Retry-After: 1
 * ```
 */
export function busyError(location: string, waitedMs: number): MnemoError {
  return new MnemoError('STORE_BUSY', `The database${location === '' ? '' : ` at ${location}`} is locked by another process (waited ${waitedMs} ms for its write lock); nothing was written. Try again in a moment, or find the process holding the lock (a long import, a shell with an open transaction). The wait is busyTimeoutMs (default 5000).`, {
    details: { path: location, waitedMs, retryAfterSeconds: 1 },
  });
}

/** STORE_BUSY when `error` is SQLite's "database is locked" (SQLITE_BUSY, SQLITE_LOCKED and their variants), else null. */
export function asBusyError(error: unknown, location = '', waitedMs = 0): MnemoError | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/u.test(code) ? busyError(location, waitedMs) : null;
}
