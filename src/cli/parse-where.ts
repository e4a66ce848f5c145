// Reads `--where` flags of the CLI into a metadata filter (the library checks it).
import { MnemoError } from '../core/errors.js';
import type { MetadataCondition, MetadataScalar, MetadataWhere } from '../core/types.js';

/** The help of a `--where` flag (mnemo query, mnemo lore search). */
export const WHERE_FLAG_HELP = 'KEY=VALUE (again for one of several), KEY:=JSON (3, true), KEY (present), !KEY (missing)';

/**
 * Turns `--where` flags into a `where` filter: `KEY=VALUE` (the string value; the same key again adds a value it
 * may take instead), `KEY:=JSON` (a JSON value: a number, a boolean, or `{"in":[...]}`), `KEY` (the key present)
 * and `!KEY` (the key missing). Undefined without flags.
 *
 * @example
 * ```ts
 * parseWhere(['speaker=Marta', 'speaker=Rowan', 'level:=3', '!secret']);
 * // { speaker: { in: ['Marta', 'Rowan'] }, level: 3, secret: { exists: false } }
 * ```
 */
export function parseWhere(flags: readonly string[] | undefined): MetadataWhere | undefined {
  if (flags === undefined || flags.length === 0) return undefined;
  const where: Record<string, MetadataCondition> = {};
  for (const flag of flags) {
    if (/^!?__proto__(?:$|:?=)/u.test(flag)) {
      throw new MnemoError('INVALID_INPUT', `--where ${flag}: expected a metadata key other than "__proto__", got "__proto__". Rename the key.`, { details: { field: 'where' } });
    }
    const json = flag.indexOf(':=');
    const equals = flag.indexOf('=');
    if (json > 0 && json < equals) {
      const text = flag.slice(json + 2);
      try {
        where[flag.slice(0, json)] = JSON.parse(text) as MetadataCondition;
      } catch {
        throw new MnemoError('INVALID_INPUT', `--where ${flag}: expected KEY:=JSON (3, true, {"in":["a","b"]}), got ${JSON.stringify(text)} after :=. Quote the flag for the shell.`, { details: { field: 'where' } });
      }
    } else if (equals > 0) {
      const key = flag.slice(0, equals);
      const value = flag.slice(equals + 1);
      const before = where[key];
      const values: MetadataScalar[] = before === undefined ? [] : typeof before === 'object' && 'in' in before ? [...before.in] : typeof before === 'object' ? [] : [before];
      where[key] = values.length === 0 ? value : { in: [...values, value] };
    } else if (flag.startsWith('!') && flag.length > 1) {
      where[flag.slice(1)] = { exists: false };
    } else if (flag !== '') {
      where[flag] = { exists: true };
    } else {
      throw new MnemoError('INVALID_INPUT', '--where: expected KEY=VALUE, KEY:=JSON, KEY or !KEY, got an empty flag.', { details: { field: 'where' } });
    }
  }
  return where;
}
