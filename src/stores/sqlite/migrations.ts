// Applies the schema migrations in one transaction and records them; PRAGMA user_version counts them.
import type { Database } from 'better-sqlite3';
import { MnemoError } from '../../core/errors.js';
import { MIGRATIONS } from './migrations/index.js';

export { MIGRATIONS } from './migrations/index.js';
export type { Migration } from './migrations/index.js';

/** The schema version this build writes: the number of migrations it knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** True when every known migration is recorded and no other: the schema is current, nothing to write. */
function isCurrent(db: Database, known: ReadonlySet<string>): boolean {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() === undefined) return false;
  const done = (db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((row) => row.id);
  return done.length === known.size && done.every((id) => known.has(id));
}

/**
 * Brings a database up to date in one IMMEDIATE transaction; a current one is only read (no write lock is taken, so
 * opening works while another process writes). Applied migrations are recorded by id in
 * `schema_migrations`; a database holding a migration this build does not know (written by a newer Mnemo)
 * is refused rather than guessed at.
 *
 * @example
 * ```ts
 * migrate(new Database('game.db')); // { applied: ['chunks-001', ...], version: 1 }
 * ```
 */
export function migrate(db: Database): { applied: string[]; version: number } {
  const known = new Set(MIGRATIONS.map((migration) => migration.id));
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === SCHEMA_VERSION && isCurrent(db, known)) return { applied: [], version };
  return db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const done = new Set((db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((row) => row.id));
    const unknown = [...done].filter((id) => !known.has(id));
    if (unknown.length > 0 || version > SCHEMA_VERSION) {
      throw new MnemoError('SCHEMA_TOO_NEW', `The database is at schema version ${version}${unknown.length > 0 ? ` with migrations this Mnemo does not know (${unknown.join(', ')})` : ''}, but this Mnemo knows versions up to ${SCHEMA_VERSION}. Upgrade Mnemo to open it.`, {
        details: { found: version, supported: SCHEMA_VERSION, unknown },
      });
    }
    const applied: string[] = [];
    const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
    for (const migration of MIGRATIONS) {
      if (done.has(migration.id)) continue;
      migration.up(db);
      record.run(migration.id, Date.now());
      applied.push(migration.id);
    }
    if (applied.length > 0 || version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    return { applied, version: SCHEMA_VERSION };
  }).immediate();
}
