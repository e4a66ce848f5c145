// How a MnemoError becomes an HTTP status: by code where one has its own status, else by category.
import type { ErrorCategory, ErrorCode } from '../core/errors.js';

/** Codes with a status of their own. */
const BY_CODE: Partial<Record<ErrorCode, number>> = {
  UNAUTHENTICATED: 401,
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  CONFIRMATION_REQUIRED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  STORE_CLOSED: 503,
  STORE_BUSY: 503,
};

/** Every other code, by who is at fault: the caller 400, Mnemo 500, a service Mnemo called 502. */
const BY_CATEGORY: Record<ErrorCategory, number> = { USER: 400, SYSTEM: 500, THIRD_PARTY: 502 };

/**
 * The HTTP status of an error code.
 *
 * @example
 * ```ts
 * httpStatus('FORBIDDEN', 'USER');         // 403
 * httpStatus('INVALID_INPUT', 'USER');     // 400
 * httpStatus('PROVIDER_TIMEOUT', 'THIRD_PARTY'); // 502
 * ```
 */
export function httpStatus(code: ErrorCode, category: ErrorCategory): number {
  return BY_CODE[code] ?? BY_CATEGORY[category];
}
