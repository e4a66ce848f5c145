// SQL identifiers and connection URLs, made safe to embed in statements and to show in messages.
import { MnemoError } from '../../core/errors.js';

/**
 * Checks a schema name (lowercase letters, digits and underscores, starting with a letter or underscore).
 *
 * @example
 * ```ts
 * requireSchemaName('mnemo'); // 'mnemo'
 * ```
 */
export function requireSchemaName(value: unknown): string {
  if (typeof value !== 'string' || !/^[a-z_][a-z0-9_]{0,62}$/.test(value)) {
    throw new MnemoError('INVALID_INPUT', `schema: expected a PostgreSQL schema name of lowercase letters, digits and underscores (at most 63), got ${JSON.stringify(value)}.`, { details: { field: 'schema' } });
  }
  return value;
}

/**
 * Quotes an identifier for SQL text.
 *
 * @example
 * ```ts
 * quoteIdentifier('mnemo'); // '"mnemo"'
 * ```
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Quotes a text value as an SQL literal (quotes doubled; backslashes doubled in an `E''` string, so the literal
 * means the same whatever `standard_conforming_strings` says). For the few statements that must name a value in
 * their text rather than as a parameter: Citus picks the shard of an `INSERT ... SELECT` from its distribution
 * column's values when planning, and a parameter is not known then.
 *
 * @example
 * ```ts
 * quoteLiteral("O'Brien"); // "'O''Brien'"
 * ```
 */
export function quoteLiteral(value: string): string {
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return value.includes('\\') ? ` E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}

/**
 * A connection URL with its password replaced by `***`, fit for logs and `Store.location`.
 *
 * @example
 * ```ts
 * redactUrl('postgres://mnemo:secret@db:5432/game'); // 'postgres://mnemo:***@db:5432/game'
 * ```
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:\/\/([^:/@]*):[^@]*@/, '://$1:***@');
  }
}

/** True when `value` is a PostgreSQL connection URL (`postgres://` or `postgresql://`). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}
