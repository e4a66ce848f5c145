// The options of a chunk or turn listing, checked once for every store: a turn range, a type left out, a page.
import { MnemoError } from '../core/errors.js';
import { describe, optionalChunkType, optionalCount, optionalTurnId } from '../core/validate.js';
import type { ListChunksOptions } from '../seams/chunk-store.js';

/** An optional integer >= 1 (a page's limit, its bound in bytes). */
function optionalPositive(value: unknown, field: string, fix: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected an integer >= 1, got ${describe(value)}. ${fix}`, { details: { field, expected: 'an integer >= 1', received: describe(value) } });
  }
  return value;
}

/**
 * Checks the options of `listChunks` / `listTurns` (INVALID_INPUT saying what was expected, what came and how to
 * fix it): turn ids >= 0, a chunk type name, `offset` >= 0, `limit` and `maxTextBytes` >= 1. Returns them.
 *
 * @example
 * ```ts
 * const { offset, limit } = requireListChunksOptions({ offset: 20, limit: 10 });
 * ```
 */
export function requireListChunksOptions(options: unknown): ListChunksOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new MnemoError('INVALID_INPUT', `options: expected an object, got ${describe(options)}. Pass { offset, limit, ... } or nothing.`, { details: { field: 'options', expected: 'an object', received: describe(options) } });
  }
  const given = options as Record<string, unknown>;
  const checked: ListChunksOptions = {};
  const fromTurnId = optionalTurnId(given['fromTurnId'], 'fromTurnId');
  const toTurnId = optionalTurnId(given['toTurnId'], 'toTurnId');
  const excludeChunkType = optionalChunkType(given['excludeChunkType'], 'excludeChunkType');
  const offset = optionalCount(given['offset'], 'offset');
  const limit = optionalPositive(given['limit'], 'limit', 'Ask for at least one item, or leave limit out for all of them.');
  const maxTextBytes = optionalPositive(given['maxTextBytes'], 'maxTextBytes', 'A page holds at least one chunk: pass a bound of 1 byte or more, or leave it out.');
  if (fromTurnId !== undefined) checked.fromTurnId = fromTurnId;
  if (toTurnId !== undefined) checked.toTurnId = toTurnId;
  if (excludeChunkType !== undefined) checked.excludeChunkType = excludeChunkType;
  if (offset !== undefined) checked.offset = offset;
  if (limit !== undefined) checked.limit = limit;
  if (maxTextBytes !== undefined) checked.maxTextBytes = maxTextBytes;
  return checked;
}
