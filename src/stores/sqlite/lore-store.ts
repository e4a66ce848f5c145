// The SQLite adapter of the LoreStore seam: entries in `lore_entries`, the access rule in SQL, one IMMEDIATE transaction per write.
import type { Statement } from 'better-sqlite3';
import { MnemoError, isMnemoError } from '../../core/errors.js';
import type { Metadata } from '../../core/types.js';
import type { LoreChangeSet, LoreEntry, LoreIndexRow, LoreListOptions, LoreOrigin, LoreStore, LoreWriteResult, ScopeLevel } from '../../seams/lore-store.js';
import { LORE_ORIGIN_COLUMNS, originValues, toLoreOrigin } from '../lore-origin-columns.js';
import type { LoreOriginColumns } from '../lore-origin-columns.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { blobToVector, vectorToBlob } from './vectors.js';

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
  created_at: number;
  updated_at: number;
}

const ENTRY_COLUMNS = 'id, source, title, content, scope_level, scope_tags, metadata, content_hash, embedding_model, created_at, updated_at';

/**
 * The access rule in SQL: continental, or no tag of the entry missing from the character's tags (a JSON array
 * bound as the parameter). It runs inside the query, so filtered-out entries never reach ranking.
 */
const ACCESSIBLE = `(scope_level = 'continental' OR NOT EXISTS (
  SELECT 1 FROM json_each(lore_entries.scope_tags) AS tag WHERE tag.value NOT IN (SELECT value FROM json_each(?))))`;

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
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * The lore book in the same SQLite file as the narrative chunks.
 *
 * @example
 * ```ts
 * const store = openSqliteStore({ path: 'game.db' });
 * await store.lore.list({ accessibleTo: ['brackwater', 'brackwater_docks'] });
 * ```
 */
export class SqliteLoreStore implements LoreStore {
  private prepared: Record<'insert' | 'update' | 'updateKeepingVector' | 'remove' | 'version' | 'bump' | 'origin' | 'setOrigin', Statement> | null = null;

  constructor(private readonly connection: SqliteConnection) {}

  private get statements() {
    const db = this.connection.database();
    this.prepared ??= {
      insert: db.prepare(
        `INSERT INTO lore_entries (id, source, title, content, scope_level, scope_tags, metadata, content_hash, embedding_model, embedding, created_at, updated_at)
         VALUES (@id, @source, @title, @content, @scopeLevel, @scopeTags, @metadata, @contentHash, @embeddingModel, @embedding, @createdAt, @updatedAt)`,
      ),
      update: db.prepare(
        `UPDATE lore_entries SET content = @content, scope_level = @scopeLevel, scope_tags = @scopeTags, metadata = @metadata, content_hash = @contentHash,
         embedding_model = @embeddingModel, embedding = @embedding, updated_at = @updatedAt WHERE id = @id`,
      ),
      updateKeepingVector: db.prepare(
        `UPDATE lore_entries SET content = @content, scope_level = @scopeLevel, scope_tags = @scopeTags, metadata = @metadata, content_hash = @contentHash,
         updated_at = @updatedAt WHERE id = @id`,
      ),
      remove: db.prepare('DELETE FROM lore_entries WHERE id = ?'),
      version: db.prepare('SELECT version FROM lore_book WHERE id = 1'),
      bump: db.prepare('UPDATE lore_book SET version = version + 1 WHERE id = 1 RETURNING version'),
      origin: db.prepare(`SELECT ${LORE_ORIGIN_COLUMNS} FROM lore_book WHERE id = 1`),
      setOrigin: db.prepare('UPDATE lore_book SET origin_reader = ?, origin_location = ?, origin_ref = ?, origin_commit = ?, origin_imported_at = ? WHERE id = 1'),
    };
    return this.prepared;
  }

  private currentVersion(): number {
    return (this.statements.version.get() as { version: number }).version;
  }

  async list(options: LoreListOptions = {}): Promise<LoreEntry[]> {
    const where: string[] = [];
    const parameters: (string | number)[] = [];
    if (options.accessibleTo !== undefined) {
      where.push(ACCESSIBLE);
      parameters.push(JSON.stringify(options.accessibleTo));
    }
    if (options.source !== undefined) {
      where.push('source = ?');
      parameters.push(options.source);
    }
    const page = options.limit === undefined && options.offset === undefined ? '' : ' LIMIT ? OFFSET ?';
    if (page !== '') parameters.push(options.limit ?? -1, options.offset ?? 0);
    const sql = `SELECT ${ENTRY_COLUMNS} FROM lore_entries ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY source, title${page}`;
    return (this.connection.database().prepare(sql).all(...parameters) as EntryRow[]).map(toEntry);
  }

  async get(ids: readonly string[]): Promise<LoreEntry[]> {
    const db = this.connection.database();
    const found = new Map<string, LoreEntry>();
    for (let start = 0; start < ids.length; start += 500) {
      const batch = ids.slice(start, start + 500);
      const rows = db.prepare(`SELECT ${ENTRY_COLUMNS} FROM lore_entries WHERE id IN (${batch.map(() => '?').join(',')})`).all(...batch) as EntryRow[];
      for (const row of rows) found.set(row.id, toEntry(row));
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  async count(): Promise<number> {
    return (this.connection.database().prepare('SELECT COUNT(*) AS n FROM lore_entries').get() as { n: number }).n;
  }

  async apply(changes: LoreChangeSet): Promise<LoreWriteResult> {
    try {
      return await this.applyInTransaction(changes);
    } catch (error) {
      if (isMnemoError(error)) throw error;
      throw new MnemoError('STORE_FAILURE', `The lore change set failed inside its transaction (${(error as Error).message}); it was rolled back and nothing was written. Check the database file and run the import again.`, { cause: error });
    }
  }

  private applyInTransaction(changes: LoreChangeSet): Promise<LoreWriteResult> {
    const { insert, update, updateKeepingVector, remove, bump, setOrigin } = this.statements;
    return this.connection.transact(() => {
      const previousVersion = this.currentVersion();
      if (previousVersion !== changes.expectedVersion) {
        throw new MnemoError('CONFLICT', `The lore book changed while this import was being prepared (version ${previousVersion}, expected ${changes.expectedVersion}). Nothing was written; run the import again.`, {
          details: { found: previousVersion, expected: changes.expectedVersion },
        });
      }
      for (const id of changes.remove) {
        if (remove.run(id).changes !== 1) throw new MnemoError('CONFLICT', `Lore entry ${id} cannot be removed: it does not exist. Nothing was written.`, { details: { id } });
      }
      for (const { vector, ...entry } of changes.update) {
        const values = { ...entry, scopeTags: JSON.stringify(entry.scopeTags), metadata: JSON.stringify(entry.metadata) };
        const changed = vector === undefined ? updateKeepingVector.run(values) : update.run({ ...values, embeddingModel: vector.embeddingModel, embedding: vectorToBlob(vector.embedding) });
        if (changed.changes !== 1) throw new MnemoError('CONFLICT', `Lore entry ${entry.id} cannot be updated: it does not exist. Nothing was written.`, { details: { id: entry.id } });
      }
      for (const entry of changes.create) {
        try {
          insert.run({ ...entry, scopeTags: JSON.stringify(entry.scopeTags), metadata: JSON.stringify(entry.metadata), embedding: vectorToBlob(entry.embedding) });
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          throw new MnemoError('CONFLICT', `Lore entry '${entry.title}' of source '${entry.source}' already exists (entries are unique on source and title). Nothing was written.`, {
            cause: error,
            details: { source: entry.source, title: entry.title },
          });
        }
      }
      const { origin } = changes;
      if (origin !== undefined) setOrigin.run(...originValues(origin));
      const counts = { created: changes.create.length, updated: changes.update.length, removed: changes.remove.length };
      if (counts.created + counts.updated + counts.removed === 0) return { previousVersion, version: previousVersion, ...counts };
      const { version } = bump.get() as { version: number };
      return { previousVersion, version, ...counts };
    });
  }

  async wipe(): Promise<LoreWriteResult> {
    const { bump, setOrigin } = this.statements;
    return this.connection.transact(() => {
      const previousVersion = this.currentVersion();
      const removed = this.connection.database().prepare('DELETE FROM lore_entries').run().changes;
      setOrigin.run(...originValues(null));
      if (removed === 0) return { previousVersion, version: previousVersion, created: 0, updated: 0, removed };
      const { version } = bump.get() as { version: number };
      return { previousVersion, version, created: 0, updated: 0, removed };
    });
  }

  async scan(visit: (row: LoreIndexRow) => void): Promise<number> {
    const db = this.connection.database();
    return db.transaction(() => {
      const version = this.currentVersion();
      const rows = db.prepare('SELECT id, scope_level, scope_tags, content, metadata, embedding FROM lore_entries ORDER BY seq')
        .iterate() as Iterable<{ id: string; scope_level: ScopeLevel; scope_tags: string; content: string; metadata: string; embedding: Buffer | null }>;
      for (const row of rows) {
        visit({ id: row.id, scopeLevel: row.scope_level, scopeTags: JSON.parse(row.scope_tags) as string[], content: row.content, metadata: JSON.parse(row.metadata) as Metadata, embedding: blobToVector(row.embedding) });
      }
      return version;
    }).deferred();
  }

  async version(): Promise<number> {
    return this.currentVersion();
  }

  async origin(): Promise<LoreOrigin | null> {
    return toLoreOrigin(this.statements.origin.get() as LoreOriginColumns | undefined);
  }
}
