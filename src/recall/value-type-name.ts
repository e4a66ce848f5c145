// The value type a memory_write trace event reports, with the seed's (Python's) names.
import type { JsonValue } from '../core/types.js';

/**
 * The type name of a JSON value as the seed's traces spell it: `str`, `int`, `float`, `bool`, `NoneType`, `list`
 * or `dict`. A number is `int` when it is a whole number, else `float`.
 *
 * @example
 * ```ts
 * valueTypeName('NDA');           // 'str'
 * valueTypeName({ risk: 0.35 });  // 'dict'
 * ```
 */
export function valueTypeName(value: JsonValue): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    default:
      return 'dict';
  }
}
