// The SQLite adapter of the recall sub-store: one table in the engine's file, every write one IMMEDIATE transaction.
import type { Statement } from 'better-sqlite3';
import type { JsonValue, Metadata } from '../../core/types.js';
import type { NewRecallEntry, RecallIndexRow, RecallStore, RecallWriteResult, StoredRecallEntry } from '../../seams/recall-store.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { blobToVector, vectorToBlob } from './vectors.js';

interface EntryRow {
  seq: number;
  scope: string;
  key: string;
  value: string;
  metadata: string;
  created_at: number;
  expires_at: number | null;
}

interface IndexSourceRow {
  seq: number;
  scope: string;
  key: string;
  value: string;
  created_at: number;
  expires_at: number | null;
  embedding: Buffer | null;
}

const ENTRY_COLUMNS = 'seq, scope, key, value, metadata, created_at, expires_at';
/** Live at `now`: never expires, or expires at or after now. */
const LIVE = '(expires_at IS NULL OR expires_at >= @now)';

const toScope = (stored: string): string | null => (stored === '' ? null : stored);
const fromScope = (scope: string | null): string => scope ?? '';

/** The searched text of a stored JSON value: a string as it is, anything else as its JSON. */
function valueTextOf(json: string): string {
  return json.startsWith('"') ? (JSON.parse(json) as string) : json;
}

function toEntry(row: EntryRow): StoredRecallEntry {
  return {
    seq: row.seq,
    scope: toScope(row.scope),
    key: row.key,
    value: JSON.parse(row.value) as JsonValue,
    metadata: JSON.parse(row.metadata) as Metadata,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/**
 * Remembered entries in the `recall_entries` table of the engine's SQLite file.
 *
 * @example
 * ```ts
 * const store = openSqliteStore({ path: 'game.db' });
 * await store.recall.count(null, Date.now()); // 0
 * ```
 */
export class SqliteRecallStore implements RecallStore {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly connection: SqliteConnection) {}

  /** A prepared statement, made on first use (a read-only file of an older schema still opens). */
  private statement(sql: string): Statement {
    const database = this.connection.database(); // throws STORE_CLOSED once the store is closed
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private bump(): [number, number] {
    const row = this.statement('UPDATE recall_state SET version = version + 1 WHERE id = 1 RETURNING version').get() as { version: number };
    return [row.version - 1, row.version];
  }

  private currentVersion(): number {
    return (this.statement('SELECT version FROM recall_state WHERE id = 1').get() as { version: number }).version;
  }

  private unchanged(): RecallWriteResult {
    const version = this.currentVersion();
    return { previousVersion: version, version, count: 0, removedSeqs: [] };
  }

  async put(entry: NewRecallEntry): Promise<RecallWriteResult & { seq: number; replaced: boolean }> {
    const parameters = {
      scope: fromScope(entry.scope),
      key: entry.key,
      foldedKey: entry.key.toLowerCase(),
      value: JSON.stringify(entry.value),
      metadata: JSON.stringify(entry.metadata),
      createdAt: entry.createdAt,
      expiresAt: entry.expiresAt,
      embedding: vectorToBlob(entry.embedding),
    };
    return this.connection.transact(() => {
      const existing = this.statement('SELECT seq FROM recall_entries WHERE scope = ? AND key = ?').get(parameters.scope, parameters.key) as { seq: number } | undefined;
      const { seq } = this.statement(
        `INSERT INTO recall_entries (scope, key, folded_key, value, metadata, created_at, expires_at, embedding)
         VALUES (@scope, @key, @foldedKey, @value, @metadata, @createdAt, @expiresAt, @embedding)
         ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, metadata = excluded.metadata,
           created_at = excluded.created_at, expires_at = excluded.expires_at, embedding = excluded.embedding
         RETURNING seq`,
      ).get(parameters) as { seq: number };
      const [previousVersion, version] = this.bump();
      return { previousVersion, version, count: 1, removedSeqs: [], seq, replaced: existing !== undefined };
    });
  }

  async getEntries(seqs: readonly number[]): Promise<StoredRecallEntry[]> {
    const found = new Map<number, StoredRecallEntry>();
    for (let start = 0; start < seqs.length; start += 500) {
      const batch = seqs.slice(start, start + 500);
      const rows = this.connection.database().prepare(`SELECT ${ENTRY_COLUMNS} FROM recall_entries WHERE seq IN (${batch.map(() => '?').join(',')})`).all(...batch) as EntryRow[];
      for (const row of rows) found.set(row.seq, toEntry(row));
    }
    return seqs.flatMap((seq) => found.get(seq) ?? []);
  }

  async findByFoldedKey(foldedKey: string, scope: string | null, now: number): Promise<StoredRecallEntry[]> {
    const rows = (scope === null
      ? this.statement(`SELECT ${ENTRY_COLUMNS} FROM recall_entries WHERE folded_key = @foldedKey AND ${LIVE} ORDER BY seq`).all({ foldedKey, now })
      : this.statement(`SELECT ${ENTRY_COLUMNS} FROM recall_entries WHERE folded_key = @foldedKey AND scope = @scope AND ${LIVE} ORDER BY seq`).all({ foldedKey, scope, now })) as EntryRow[];
    return rows.map(toEntry);
  }

  async scan(scope: string | null, now: number, visit: (row: RecallIndexRow) => void): Promise<number> {
    const database = this.connection.database();
    return database.transaction(() => {
      const version = this.currentVersion();
      const rows = scope === null
        ? this.statement(`SELECT seq, scope, key, value, created_at, expires_at, embedding FROM recall_entries WHERE ${LIVE} ORDER BY seq`).iterate({ now })
        : this.statement(`SELECT seq, scope, key, value, created_at, expires_at, embedding FROM recall_entries WHERE scope = @scope AND ${LIVE} ORDER BY seq`).iterate({ scope, now });
      for (const row of rows as Iterable<IndexSourceRow>) {
        visit({ seq: row.seq, scope: toScope(row.scope), key: row.key, valueText: valueTextOf(row.value), createdAt: row.created_at, expiresAt: row.expires_at, embedding: blobToVector(row.embedding) });
      }
      return version;
    }).deferred();
  }

  async version(): Promise<number> {
    return this.currentVersion();
  }

  async count(scope: string | null, now: number): Promise<number> {
    const row = scope === null
      ? this.statement(`SELECT COUNT(*) AS n FROM recall_entries WHERE ${LIVE}`).get({ now })
      : this.statement(`SELECT COUNT(*) AS n FROM recall_entries WHERE scope = @scope AND ${LIVE}`).get({ scope, now });
    return (row as { n: number }).n;
  }

  async listScopes(now: number): Promise<{ scope: string | null; entries: number }[]> {
    const rows = this.statement(`SELECT scope, COUNT(*) AS entries FROM recall_entries WHERE ${LIVE} GROUP BY scope ORDER BY scope`).all({ now }) as { scope: string; entries: number }[];
    return rows.map((row) => ({ scope: toScope(row.scope), entries: row.entries }));
  }

  async clear(scope: string | null): Promise<RecallWriteResult> {
    return this.connection.transact(() => {
      const rows = (scope === null
        ? this.statement('DELETE FROM recall_entries RETURNING seq').all()
        : this.statement('DELETE FROM recall_entries WHERE scope = ? RETURNING seq').all(scope)) as { seq: number }[];
      return this.removed(rows);
    });
  }

  async deleteKeys(scope: string | null, keys: readonly string[]): Promise<RecallWriteResult> {
    if (keys.length === 0) return this.unchanged();
    return this.connection.transact(() => {
      const rows: { seq: number }[] = [];
      for (let start = 0; start < keys.length; start += 500) {
        const batch = keys.slice(start, start + 500);
        rows.push(...(this.connection.database().prepare(`DELETE FROM recall_entries WHERE scope = ? AND key IN (${batch.map(() => '?').join(',')}) RETURNING seq`).all(fromScope(scope), ...batch) as { seq: number }[]));
      }
      return this.removed(rows);
    });
  }

  async purgeExpired(now: number): Promise<RecallWriteResult> {
    const any = this.statement('SELECT EXISTS (SELECT 1 FROM recall_entries WHERE expires_at < ?) AS found').get(now) as { found: number };
    if (any.found === 0) return this.unchanged();
    return this.connection.transact(() => this.removed(this.statement('DELETE FROM recall_entries WHERE expires_at < ? RETURNING seq').all(now) as { seq: number }[]));
  }

  private removed(rows: { seq: number }[]): RecallWriteResult {
    if (rows.length === 0) return this.unchanged();
    const [previousVersion, version] = this.bump();
    return { previousVersion, version, count: rows.length, removedSeqs: rows.map((row) => row.seq) };
  }
}
