// The PostgreSQL adapter of the recall sub-store: one table in Mnemo's schema, every write one transaction.
import type { JsonValue, Metadata } from '../../core/types.js';
import type { NewRecallEntry, RecallIndexRow, RecallStore, RecallWriteResult, StoredRecallEntry } from '../../seams/recall-store.js';
import { schemaTable } from './postgres-connection.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { SqlClient, SqlResult } from './queryable.js';
import { literalToVector, vectorToLiteral } from './vectors.js';

interface EntryRow {
  seq: string | number;
  scope: string;
  key: string;
  value: string;
  metadata: string;
  created_at: string | number;
  expires_at: string | number | null;
}

interface IndexSourceRow {
  seq: string | number;
  scope: string;
  key: string;
  value: string;
  created_at: string | number;
  expires_at: string | number | null;
  embedding: string | null;
}

const ENTRY_COLUMNS = 'seq, scope, key, value, metadata, created_at, expires_at';
/** Rows per statement when scanning or reading by seq. */
const BATCH = 2000;

const toScope = (stored: string): string | null => (stored === '' ? null : stored);
const fromScope = (scope: string | null): string => scope ?? '';
const toNumber = (value: string | number | null): number | null => (value === null ? null : Number(value));

/** The searched text of a stored JSON value: a string as it is, anything else as its JSON. */
function valueTextOf(json: string): string {
  return json.startsWith('"') ? (JSON.parse(json) as string) : json;
}

function toEntry(row: EntryRow): StoredRecallEntry {
  return {
    seq: Number(row.seq),
    scope: toScope(row.scope),
    key: row.key,
    value: JSON.parse(row.value) as JsonValue,
    metadata: JSON.parse(row.metadata) as Metadata,
    createdAt: Number(row.created_at),
    expiresAt: toNumber(row.expires_at),
  };
}

/**
 * Remembered entries in the `recall_entries` table of Mnemo's PostgreSQL schema. Values and metadata are kept
 * as the JSON text Mnemo wrote (as on SQLite), so they read back, and are searched, exactly as written. Every
 * write first locks the one `recall_state` row and bumps its version, so writers queue and every process's
 * recall index knows when to refresh.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url });
 * await store.recall.count(null, Date.now()); // 0
 * ```
 */
export class PostgresRecallStore implements RecallStore {
  private readonly entries: string;
  private readonly state: string;

  constructor(private readonly connection: PostgresConnection) {
    this.entries = schemaTable(connection.schema, 'recall_entries');
    this.state = schemaTable(connection.schema, 'recall_state');
  }

  /** Locks the recall state for the rest of the write and bumps its version; returns [previous, current]. */
  private async bump(client: SqlClient): Promise<[number, number]> {
    const result = await client.query<{ version: string | number }>(`UPDATE ${this.state} SET version = version + 1 WHERE id = 1 RETURNING version`);
    const version = Number(result.rows[0]?.version);
    return [version - 1, version];
  }

  private async lockedVersion(client: SqlClient): Promise<number> {
    const result = await client.query<{ version: string | number }>(`SELECT version FROM ${this.state} WHERE id = 1 FOR UPDATE`);
    return Number(result.rows[0]?.version ?? 0);
  }

  async put(entry: NewRecallEntry): Promise<RecallWriteResult & { seq: number; replaced: boolean }> {
    return this.connection.write(async (client) => {
      const [previousVersion, version] = await this.bump(client);
      const existing = await client.query(`SELECT seq FROM ${this.entries} WHERE scope = $1 AND key = $2`, [fromScope(entry.scope), entry.key]);
      const result = await client.query<{ seq: string | number }>(
        `INSERT INTO ${this.entries} AS e (scope, key, folded_key, value, metadata, created_at, expires_at, embedding)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::vector)
         ON CONFLICT (scope, key) DO UPDATE SET value = EXCLUDED.value, metadata = EXCLUDED.metadata,
           created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, embedding = EXCLUDED.embedding
         RETURNING seq`,
        [fromScope(entry.scope), entry.key, entry.key.toLowerCase(), JSON.stringify(entry.value), JSON.stringify(entry.metadata), entry.createdAt, entry.expiresAt, vectorToLiteral(entry.embedding)],
      );
      return { previousVersion, version, count: 1, removedSeqs: [], seq: Number(result.rows[0]?.seq), replaced: existing.rows.length > 0 };
    });
  }

  async getEntries(seqs: readonly number[]): Promise<StoredRecallEntry[]> {
    const database = this.connection.read();
    const found = new Map<number, StoredRecallEntry>();
    for (let start = 0; start < seqs.length; start += BATCH) {
      const result = await database.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM ${this.entries} WHERE seq = ANY($1::bigint[])`, [seqs.slice(start, start + BATCH)]);
      for (const row of result.rows) found.set(Number(row.seq), toEntry(row));
    }
    return seqs.flatMap((seq) => found.get(seq) ?? []);
  }

  async findByFoldedKey(foldedKey: string, scope: string | null, now: number): Promise<StoredRecallEntry[]> {
    const database = this.connection.read();
    const result = scope === null
      ? await database.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM ${this.entries} WHERE folded_key = $1 AND (expires_at IS NULL OR expires_at >= $2) ORDER BY seq`, [foldedKey, now])
      : await database.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM ${this.entries} WHERE folded_key = $1 AND scope = $3 AND (expires_at IS NULL OR expires_at >= $2) ORDER BY seq`, [foldedKey, now, scope]);
    return result.rows.map(toEntry);
  }

  /** Streams live entries in seq order, the version and every batch read in one REPEATABLE READ snapshot. */
  async scan(scope: string | null, now: number, visit: (row: RecallIndexRow) => void): Promise<number> {
    return this.connection.read().transaction(async (client) => {
      const state = await client.query<{ version: string | number }>(`SELECT version FROM ${this.state} WHERE id = 1`);
      const version = Number(state.rows[0]?.version ?? 0);
      let last = 0;
      for (;;) {
        const params: unknown[] = [now, last];
        const batch: SqlResult<IndexSourceRow> = await client.query<IndexSourceRow>(
          `SELECT seq, scope, key, value, created_at, expires_at, embedding::text AS embedding FROM ${this.entries}
           WHERE (expires_at IS NULL OR expires_at >= $1) AND seq > $2 ${scope === null ? '' : `AND scope = $${params.push(scope)}`}
           ORDER BY seq LIMIT ${BATCH}`,
          params,
        );
        for (const row of batch.rows) {
          visit({ seq: Number(row.seq), scope: toScope(row.scope), key: row.key, valueText: valueTextOf(row.value), createdAt: Number(row.created_at), expiresAt: toNumber(row.expires_at), embedding: literalToVector(row.embedding) });
        }
        if (batch.rows.length < BATCH) return version;
        last = Number(batch.rows[batch.rows.length - 1]!.seq);
      }
    }, { isolation: 'repeatable read', readOnly: true });
  }

  async version(): Promise<number> {
    const result = await this.connection.read().query<{ version: string | number }>(`SELECT version FROM ${this.state} WHERE id = 1`);
    return Number(result.rows[0]?.version ?? 0);
  }

  async count(scope: string | null, now: number): Promise<number> {
    const database = this.connection.read();
    const result = scope === null
      ? await database.query<{ n: string | number }>(`SELECT COUNT(*) AS n FROM ${this.entries} WHERE expires_at IS NULL OR expires_at >= $1`, [now])
      : await database.query<{ n: string | number }>(`SELECT COUNT(*) AS n FROM ${this.entries} WHERE scope = $2 AND (expires_at IS NULL OR expires_at >= $1)`, [now, scope]);
    return Number(result.rows[0]?.n ?? 0);
  }

  async listScopes(now: number): Promise<{ scope: string | null; entries: number }[]> {
    const result = await this.connection.read().query<{ scope: string; entries: string | number }>(
      `SELECT scope, COUNT(*) AS entries FROM ${this.entries} WHERE expires_at IS NULL OR expires_at >= $1 GROUP BY scope ORDER BY scope COLLATE "C"`,
      [now],
    );
    return result.rows.map((row) => ({ scope: toScope(row.scope), entries: Number(row.entries) }));
  }

  async clear(scope: string | null): Promise<RecallWriteResult> {
    return this.connection.write(async (client) => {
      const current = await this.lockedVersion(client);
      const deleted = scope === null
        ? await client.query<{ seq: string | number }>(`DELETE FROM ${this.entries} RETURNING seq`)
        : await client.query<{ seq: string | number }>(`DELETE FROM ${this.entries} WHERE scope = $1 RETURNING seq`, [scope]);
      return this.removed(client, current, deleted.rows);
    });
  }

  async deleteKeys(scope: string | null, keys: readonly string[]): Promise<RecallWriteResult> {
    if (keys.length === 0) {
      const version = await this.version();
      return { previousVersion: version, version, count: 0, removedSeqs: [] };
    }
    return this.connection.write(async (client) => {
      const current = await this.lockedVersion(client);
      const deleted = await client.query<{ seq: string | number }>(`DELETE FROM ${this.entries} WHERE scope = $1 AND key = ANY($2::text[]) RETURNING seq`, [fromScope(scope), [...keys]]);
      return this.removed(client, current, deleted.rows);
    });
  }

  async purgeExpired(now: number): Promise<RecallWriteResult> {
    const any = await this.connection.read().query(`SELECT 1 FROM ${this.entries} WHERE expires_at < $1 LIMIT 1`, [now]);
    if (any.rows.length === 0) {
      const version = await this.version();
      return { previousVersion: version, version, count: 0, removedSeqs: [] };
    }
    return this.connection.write(async (client) => {
      const current = await this.lockedVersion(client);
      const deleted = await client.query<{ seq: string | number }>(`DELETE FROM ${this.entries} WHERE expires_at < $1 RETURNING seq`, [now]);
      return this.removed(client, current, deleted.rows);
    });
  }

  private async removed(client: SqlClient, current: number, rows: { seq: string | number }[]): Promise<RecallWriteResult> {
    if (rows.length === 0) return { previousVersion: current, version: current, count: 0, removedSeqs: [] };
    const [previousVersion, version] = await this.bump(client);
    return { previousVersion, version, count: rows.length, removedSeqs: rows.map((row) => Number(row.seq)).sort((a, b) => a - b) };
  }
}
