// The in-memory adapter of the LoreStore seam: the same contract as SQLite, held in a map.
import { MnemoError } from '../../core/errors.js';
import { loreAccessible } from '../../core/lore-access.js';
import type { LoreChangeSet, LoreEntry, LoreIndexRow, LoreListOptions, LoreOrigin, LoreStore, LoreWriteResult, NewLoreEntry } from '../../seams/lore-store.js';

/** A lore entry as held (shared with the embedding sub-store, which re-embeds it). */
export interface StoredEntry extends NewLoreEntry {
  seq: number;
}

/** Orders strings by their UTF-8 bytes, as SQLite's BINARY collation does. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function toEntry(stored: StoredEntry): LoreEntry {
  const { seq: _seq, embedding: _embedding, ...entry } = stored;
  return { ...entry, scopeTags: [...entry.scopeTags], metadata: structuredClone(entry.metadata) };
}

const keyOf = (source: string, title: string) => JSON.stringify([source, title]);

/**
 * The lore book in process memory. Each write checks everything before it changes anything, and runs without
 * yielding, so it is atomic.
 *
 * @example
 * ```ts
 * const store = openInMemoryStore();
 * await store.lore.count(); // 0
 * ```
 */
export class InMemoryLoreStore implements LoreStore {
  private readonly entries = new Map<string, StoredEntry>();
  private bookVersion = 0;
  private seq = 0;
  private recordedOrigin: LoreOrigin | null = null;

  constructor(private readonly ensureOpen: () => void) {}

  private sorted(): StoredEntry[] {
    return [...this.entries.values()].sort((a, b) => byteOrder(a.source, b.source) || byteOrder(a.title, b.title));
  }

  /** Every entry in seq order, live objects: for the embedding sub-store's reindex, never handed out. */
  heldEntries(): StoredEntry[] {
    return [...this.entries.values()].sort((a, b) => a.seq - b.seq);
  }

  /** Bumps the book's version after the embedding sub-store replaced vectors (indexes rebuild). */
  bumpVersion(): void {
    this.bookVersion++;
  }

  async list(options: LoreListOptions = {}): Promise<LoreEntry[]> {
    this.ensureOpen();
    const held = options.accessibleTo === undefined ? null : new Set(options.accessibleTo);
    return this.sorted()
      .filter((entry) => (held === null || loreAccessible(entry.scopeLevel, entry.scopeTags, held)) && (options.source === undefined || entry.source === options.source))
      .slice(options.offset ?? 0, options.limit === undefined ? undefined : (options.offset ?? 0) + options.limit)
      .map(toEntry);
  }

  async get(ids: readonly string[]): Promise<LoreEntry[]> {
    this.ensureOpen();
    return ids.flatMap((id) => {
      const entry = this.entries.get(id);
      return entry === undefined ? [] : [toEntry(entry)];
    });
  }

  async count(): Promise<number> {
    this.ensureOpen();
    return this.entries.size;
  }

  private check(changes: LoreChangeSet): void {
    if (this.bookVersion !== changes.expectedVersion) {
      throw new MnemoError('CONFLICT', `The lore book changed while this import was being prepared (version ${this.bookVersion}, expected ${changes.expectedVersion}). Nothing was written; run the import again.`, {
        details: { found: this.bookVersion, expected: changes.expectedVersion },
      });
    }
    for (const id of [...changes.remove, ...changes.update.map((entry) => entry.id)]) {
      if (!this.entries.has(id)) throw new MnemoError('CONFLICT', `Lore entry ${id} does not exist. Nothing was written.`, { details: { id } });
    }
    const removed = new Set(changes.remove);
    const keys = new Set([...this.entries.values()].filter((entry) => !removed.has(entry.id)).map((entry) => keyOf(entry.source, entry.title)));
    for (const entry of changes.create) {
      const key = keyOf(entry.source, entry.title);
      if (keys.has(key) || this.entries.has(entry.id)) {
        throw new MnemoError('CONFLICT', `Lore entry '${entry.title}' of source '${entry.source}' already exists (entries are unique on source and title). Nothing was written.`, {
          details: { source: entry.source, title: entry.title },
        });
      }
      keys.add(key);
    }
  }

  async apply(changes: LoreChangeSet): Promise<LoreWriteResult> {
    this.ensureOpen();
    this.check(changes);
    const previousVersion = this.bookVersion;
    for (const id of changes.remove) this.entries.delete(id);
    for (const { vector, ...update } of changes.update) {
      const entry = this.entries.get(update.id) as StoredEntry;
      // Without a vector (a change of metadata only), the stored one and its model stay.
      this.entries.set(update.id, { ...entry, ...structuredClone(update), ...(vector === undefined ? {} : structuredClone(vector)) });
    }
    for (const entry of changes.create) {
      this.entries.set(entry.id, { ...structuredClone(entry), seq: ++this.seq });
    }
    if (changes.origin !== undefined) this.recordedOrigin = { ...changes.origin };
    const counts = { created: changes.create.length, updated: changes.update.length, removed: changes.remove.length };
    if (counts.created + counts.updated + counts.removed > 0) this.bookVersion++;
    return { previousVersion, version: this.bookVersion, ...counts };
  }

  async wipe(): Promise<LoreWriteResult> {
    this.ensureOpen();
    const previousVersion = this.bookVersion;
    const removed = this.entries.size;
    this.entries.clear();
    this.recordedOrigin = null;
    if (removed > 0) this.bookVersion++;
    return { previousVersion, version: this.bookVersion, created: 0, updated: 0, removed };
  }

  async scan(visit: (row: LoreIndexRow) => void): Promise<number> {
    this.ensureOpen();
    const rows = [...this.entries.values()].sort((a, b) => a.seq - b.seq);
    for (const row of rows) {
      visit({ id: row.id, scopeLevel: row.scopeLevel, scopeTags: [...row.scopeTags], content: row.content, metadata: structuredClone(row.metadata), embedding: row.embedding === null ? null : new Float32Array(row.embedding) });
    }
    return this.bookVersion;
  }

  async version(): Promise<number> {
    this.ensureOpen();
    return this.bookVersion;
  }

  async origin(): Promise<LoreOrigin | null> {
    this.ensureOpen();
    return this.recordedOrigin === null ? null : { ...this.recordedOrigin };
  }
}
