// The shape of one schema step of the PostgreSQL store.
import type { SqlClient } from '../queryable.js';

/**
 * One schema step, named so that layers can add theirs independently. `up` runs inside the migration
 * transaction, under the migration lock, with `search_path` set to Mnemo's schema: write unqualified names.
 */
export interface PostgresMigration {
  /** A stable, unique name, e.g. `chunks-001` or `lore-002`. Never rename or edit one that has shipped. */
  id: string;
  description: string;
  up(client: SqlClient): Promise<void>;
}
