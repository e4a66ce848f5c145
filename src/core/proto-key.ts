// Refuses objects with an own key named "__proto__": a copy by assignment or a schema's record drops it (or swaps the prototype), so a filter on it would silently filter nothing.
import { MnemoError } from './errors.js';

const PROTO = '__proto__';

/**
 * The path of the first own `__proto__` key in `value` (nested objects and arrays included, walked without
 * recursion so any depth is safe), or null when there is none.
 *
 * @example
 * ```ts
 * protoKeyPath(JSON.parse('{"where":{"__proto__":"x"}}'), 'body'); // 'body.where.__proto__'
 * ```
 */
export function protoKeyPath(value: unknown, field: string): string | null {
  const pending: [unknown, string][] = [[value, field]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index--) pending.push([item[index], `${path}[${index}]`]);
      continue;
    }
    if (Object.prototype.hasOwnProperty.call(item, PROTO)) return `${path}.${PROTO}`;
    for (const [key, child] of Object.entries(item)) pending.push([child, `${path}.${key}`]);
  }
  return null;
}

/**
 * Throws INVALID_INPUT when `value` holds an own `__proto__` key anywhere (see `protoKeyPath`).
 *
 * @example
 * ```ts
 * refuseProtoKeys(JSON.parse(text), 'body');
 * ```
 */
export function refuseProtoKeys(value: unknown, field: string): void {
  const path = protoKeyPath(value, field);
  if (path === null) return;
  throw new MnemoError('INVALID_INPUT', `${path}: expected a key other than "__proto__", got "__proto__". Mnemo refuses that key everywhere (a copy of the object would drop it, so a filter on it would filter nothing): rename it.`, {
    details: { field: path, expected: 'a key other than "__proto__"', received: '"__proto__"' },
  });
}
