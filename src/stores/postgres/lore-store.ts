// The PostgreSQL adapter of the LoreStore seam: entries in `lore_entries`, the access rule in SQL, one transaction per write.
import { MnemoError, isMnemoError } from '../../core/errors.js';
import type { Metadata } from '../../core/types.js';
import type { LoreChangeSet, LoreEntry, LoreIndexRow, LoreListOptions, LoreOrigin, LoreStore, LoreWriteResult, ScopeLevel } from '../../seams/lore-store.js';
import { LORE_ORIGIN_COLUMNS, originValues, toLoreOrigin } from '../lore-origin-columns.js';
import type { LoreOriginColumns } from '../lore-origin-columns.js';
import { schemaTable } from './postgres-connection.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { SqlClient, SqlResult } from './queryable.js';
import { literalToVector, vectorToLiteral } from './vectors.js';

interface EntryRow {
  id: string;
  source: string;
  title: string;
  content: string;
  scope_level: ScopeLevel;
  scope_tags: string;
  metadata: string;
  content_hash: string;
  embedding_model: string | null;
  created_at: string | number;
  updated_at: string | number;
}

interface ScanRow {
  seq: string | number;
  id: string;
  scope_level: ScopeLevel;
  scope_tags: string;
  content: string;
  metadata: string;
  embedding: string | null;
}

const ENTRY_COLUMNS = 'id, source, title, content, scope_level, scope_tags, metadata, content_hash, embedding_model, created_at, updated_at';
/** Rows per statement when scanning or reading by id. */
const BATCH = 2000;

function toEntry(row: EntryRow): LoreEntry {
  return {
    id: row.id,
    source: row.source,
    title: row.title,
    content: row.content,
    scopeLevel: row.scope_level,
    scopeTags: JSON.parse(row.scope_tags) as string[],
    metadata: JSON.parse(row.metadata) as Metadata,
    contentHash: row.content_hash,
    embeddingModel: row.embedding_model,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/**
 * The lore book in Mnemo's PostgreSQL schema. The access rule runs in SQL (continental, or no tag of the entry
 * missing from the character's tags), so filtered-out entries never reach ranking. Tags are kept as the JSON text
 * Mnemo wrote; listings sort by (source, title) in byte order, as on SQLite.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url });
 * await store.lore.list({ accessibleTo: ['brackwater', 'brackwater_docks'] });
 * ```
 */
export class PostgresLoreStore implements LoreStore {
  private readonly entries: string;
  private readonly book: string;

  constructor(private readonly connection: PostgresConnection) {
    this.entries = schemaTable(connection.schema, 'lore_entries');
    this.book = schemaTable(connection.schema, 'lore_book');
  }

  private async lockedVersion(client: SqlClient): Promise<number> {
    const result = await client.query<{ version: string | number }>(`SELECT version FROM ${this.book} WHERE id = 1 FOR UPDATE`);
    return Number(result.rows[0]?.version ?? 0);
  }

  private async setOrigin(client: SqlClient, origin: LoreOrigin | null): Promise<void> {
    await client.query(`UPDATE ${this.book} SET origin_reader = $1, origin_location = $2, origin_ref = $3, origin_commit = $4, origin_imported_at = $5 WHERE id = 1`, originValues(origin));
  }

  private async bump(client: SqlClient): Promise<number> {
    const result = await client.query<{ version: string | number }>(`UPDATE ${this.book} SET version = version + 1 WHERE id = 1 RETURNING version`);
    return Number(result.rows[0]?.version);
  }

  async list(options: LoreListOptions = {}): Promise<LoreEntry[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (options.accessibleTo !== undefined) {
      where.push(`(scope_level = 'continental' OR NOT EXISTS (
        SELECT 1 FROM jsonb_array_elements_text(scope_tags::jsonb) AS tag WHERE tag <> ALL ($${params.push([...options.accessibleTo])}::text[])))`);
    }
    if (options.source !== undefined) where.push(`source = $${params.push(options.source)}`);
    const limit = options.limit === undefined ? '' : ` LIMIT $${params.push(options.limit)}`;
    const offset = options.offset === undefined ? '' : ` OFFSET $${params.push(options.offset)}`;
    const result = await this.connection.read().query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM ${this.entries} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY source COLLATE "C", title COLLATE "C"${limit}${offset}`,
      params,
    );
    return result.rows.map(toEntry);
  }

  async get(ids: readonly string[]): Promise<LoreEntry[]> {
    const database = this.connection.read();
    const found = new Map<string, LoreEntry>();
    for (let start = 0; start < ids.length; start += BATCH) {
      const result = await database.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM ${this.entries} WHERE id = ANY($1::text[])`, [ids.slice(start, start + BATCH)]);
      for (const row of result.rows) found.set(row.id, toEntry(row));
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  async count(): Promise<number> {
    const result = await this.connection.read().query<{ n: string | number }>(`SELECT COUNT(*) AS n FROM ${this.entries}`);
    return Number(result.rows[0]?.n ?? 0);
  }

  async apply(changes: LoreChangeSet): Promise<LoreWriteResult> {
    try {
      return await this.connection.write((client) => this.applyWithin(client, changes));
    } catch (error) {
      if (isMnemoError(error)) throw error;
      throw new MnemoError('STORE_FAILURE', `The lore change set failed inside its transaction (${(error as Error).message}); it was rolled back and nothing was written. Check the database and run the import again.`, { cause: error });
    }
  }

  private async applyWithin(client: SqlClient, changes: LoreChangeSet): Promise<LoreWriteResult> {
    const previousVersion = await this.lockedVersion(client);
    if (previousVersion !== changes.expectedVersion) {
      throw new MnemoError('CONFLICT', `The lore book changed while this import was being prepared (version ${previousVersion}, expected ${changes.expectedVersion}). Nothing was written; run the import again.`, {
        details: { found: previousVersion, expected: changes.expectedVersion },
      });
    }
    for (const id of changes.remove) {
      const deleted = await client.query(`DELETE FROM ${this.entries} WHERE id = $1`, [id]);
      if (deleted.rowCount !== 1) throw new MnemoError('CONFLICT', `Lore entry ${id} cannot be removed: it does not exist. Nothing was written.`, { details: { id } });
    }
    for (const entry of changes.update) {
      const values = [entry.id, entry.content, entry.scopeLevel, JSON.stringify(entry.scopeTags), JSON.stringify(entry.metadata), entry.contentHash, entry.updatedAt];
      // Without a vector (a change of metadata only), the stored one and its model stay.
      const updated = entry.vector === undefined
        ? await client.query(`UPDATE ${this.entries} SET content = $2, scope_level = $3, scope_tags = $4, metadata = $5, content_hash = $6, updated_at = $7 WHERE id = $1`, values)
        : await client.query(
          `UPDATE ${this.entries} SET content = $2, scope_level = $3, scope_tags = $4, metadata = $5, content_hash = $6, updated_at = $7, embedding_model = $8, embedding = $9::vector WHERE id = $1`,
          [...values, entry.vector.embeddingModel, vectorToLiteral(entry.vector.embedding)],
        );
      if (updated.rowCount !== 1) throw new MnemoError('CONFLICT', `Lore entry ${entry.id} cannot be updated: it does not exist. Nothing was written.`, { details: { id: entry.id } });
    }
    for (const entry of changes.create) {
      // ON CONFLICT DO NOTHING keeps the transaction usable when an entry clashes, so the error can name it.
      const inserted = await client.query(
        `INSERT INTO ${this.entries} (id, source, title, content, scope_level, scope_tags, metadata, content_hash, embedding_model, embedding, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::vector, $11, $12) ON CONFLICT DO NOTHING`,
        [entry.id, entry.source, entry.title, entry.content, entry.scopeLevel, JSON.stringify(entry.scopeTags), JSON.stringify(entry.metadata), entry.contentHash, entry.embeddingModel, vectorToLiteral(entry.embedding), entry.createdAt, entry.updatedAt],
      );
      if (inserted.rowCount !== 1) {
        throw new MnemoError('CONFLICT', `Lore entry '${entry.title}' of source '${entry.source}' already exists (entries are unique on source and title). Nothing was written.`, {
          details: { source: entry.source, title: entry.title },
        });
      }
    }
    if (changes.origin !== undefined) await this.setOrigin(client, changes.origin);
    const counts = { created: changes.create.length, updated: changes.update.length, removed: changes.remove.length };
    if (counts.created + counts.updated + counts.removed === 0) return { previousVersion, version: previousVersion, ...counts };
    return { previousVersion, version: await this.bump(client), ...counts };
  }

  async wipe(): Promise<LoreWriteResult> {
    return this.connection.write(async (client) => {
      const previousVersion = await this.lockedVersion(client);
      const removed = (await client.query(`DELETE FROM ${this.entries}`)).rowCount;
      await this.setOrigin(client, null);
      if (removed === 0) return { previousVersion, version: previousVersion, created: 0, updated: 0, removed };
      return { previousVersion, version: await this.bump(client), created: 0, updated: 0, removed };
    });
  }

  /** Streams every entry in insertion order, the version and every batch read in one REPEATABLE READ snapshot. */
  async scan(visit: (row: LoreIndexRow) => void): Promise<number> {
    return this.connection.read().transaction(async (client) => {
      const book = await client.query<{ version: string | number }>(`SELECT version FROM ${this.book} WHERE id = 1`);
      const version = Number(book.rows[0]?.version ?? 0);
      let last = 0;
      for (;;) {
        const batch: SqlResult<ScanRow> = await client.query<ScanRow>(
          `SELECT seq, id, scope_level, scope_tags, content, metadata, embedding::text AS embedding FROM ${this.entries} WHERE seq > $1 ORDER BY seq LIMIT ${BATCH}`,
          [last],
        );
        for (const row of batch.rows) {
          visit({ id: row.id, scopeLevel: row.scope_level, scopeTags: JSON.parse(row.scope_tags) as string[], content: row.content, metadata: JSON.parse(row.metadata) as Metadata, embedding: literalToVector(row.embedding) });
        }
        if (batch.rows.length < BATCH) return version;
        last = Number(batch.rows[batch.rows.length - 1]!.seq);
      }
    }, { isolation: 'repeatable read', readOnly: true });
  }

  async version(): Promise<number> {
    const result = await this.connection.read().query<{ version: string | number }>(`SELECT version FROM ${this.book} WHERE id = 1`);
    return Number(result.rows[0]?.version ?? 0);
  }

  async origin(): Promise<LoreOrigin | null> {
    const result = await this.connection.read().query<LoreOriginColumns>(`SELECT ${LORE_ORIGIN_COLUMNS} FROM ${this.book} WHERE id = 1`);
    return toLoreOrigin(result.rows[0]);
  }
}
