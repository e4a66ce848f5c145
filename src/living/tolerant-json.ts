// Forgiving zod pieces for reading model answers: strings from numbers, name lists from "a, b", id lists from
// "12", field aliases, and lists that come bare or wrapped in an object.
import { z } from 'zod';

/** A string (a number becomes its text); anything else becomes "". Trimmed. */
export const looseText = z.preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string()).catch('').transform((value) => value.trim());

/** A list of non-empty strings, from an array or a "a, b; c" string; anything else becomes []. */
export const looseNames = z
  .preprocess((value) => (typeof value === 'string' ? value.split(/[,;]/) : value), z.array(z.unknown()))
  .catch([])
  .transform((list) => list.flatMap((item) => (typeof item === 'string' && item.trim() !== '' ? [item.trim()] : [])));

/** An integer from a number or a numeric string (also "#12" or "b12"), else null. */
export const looseId = z
  .unknown()
  .optional()
  .transform((value) => {
    const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.replace(/^[^0-9-]+/, '')) : NaN;
    return Number.isSafeInteger(number) ? number : null;
  });

/** A list of integers, from an array or a single value; unusable items dropped. */
export const looseIds = z
  .unknown()
  .optional()
  .transform((value) => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]))
  .transform((list) => list.flatMap((item) => {
    const id = looseId.parse(item);
    return id === null ? [] : [id];
  }));

/** Copies the first present alias of each field onto the field's own name (answers say `factType`, `fact_type`, `type`...). */
export function withAliases(aliases: Record<string, readonly string[]>): (value: unknown) => unknown {
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const source = value as Record<string, unknown>;
    const copy: Record<string, unknown> = { ...source };
    for (const [field, names] of Object.entries(aliases)) {
      if (copy[field] !== undefined) continue;
      const alias = names.find((name) => source[name] !== undefined);
      if (alias !== undefined) copy[field] = source[alias];
    }
    return copy;
  };
}

/**
 * The items of a list that may come bare (`[...]`), wrapped (`{ "facts": [...] }`, or under another single key),
 * or as one object. Throws when there is no list at all (the answer is then malformed).
 */
export function listIn(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const wrapped = record[key];
    if (Array.isArray(wrapped)) return wrapped;
    const arrays = Object.values(record).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
    if (wrapped === undefined && arrays.length === 0 && Object.keys(record).length > 0) return [record];
  }
  throw new Error(`expected a list under "${key}", got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
}

/** Parses each item with `schema`, dropping the ones that do not fit (one bad item does not spoil the rest). */
export function parseEach<T>(items: readonly unknown[], schema: z.ZodType<T>): T[] {
  return items.flatMap((item) => {
    const result = schema.safeParse(item);
    return result.success ? [result.data] : [];
  });
}
