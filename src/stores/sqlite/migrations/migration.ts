// The shape of one schema step of the SQLite store.
import type { Database } from 'better-sqlite3';

/** One schema step, named so that layers can add theirs independently. `up` runs inside a transaction. */
export interface Migration {
  /** A stable, unique name, e.g. `chunks-001` or `lore-002`. Never rename or edit one that has shipped. */
  id: string;
  description: string;
  up(db: Database): void;
}
