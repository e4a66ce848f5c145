// The LoreStore seam: persistence of the lore book (scoped world knowledge), one transaction per change set.
import type { Metadata } from '../core/types.js';

/** How widely a lore entry is known: by everyone, in a zone, in a district, or within a faction. */
export type ScopeLevel = 'continental' | 'regional' | 'local' | 'faction';

/** One piece of world knowledge, unique on (source, title). */
export interface LoreEntry {
  /** A UUID, stable across edits of the entry (per-save lore chunks point at it). */
  id: string;
  /** Where the entry was authored, e.g. `brackwater/regional.yaml`. */
  source: string;
  /** A human-readable label, unique within its source. Not indexed. */
  title: string;
  /** The knowledge itself: what is embedded and searched. */
  content: string;
  scopeLevel: ScopeLevel;
  /** Sorted, distinct tags. A non-continental entry reaches a character holding every one of them. */
  scopeTags: string[];
  /** Free keys a search can filter on (`where`), as authored (`{}` when none); never embedded or hashed. */
  metadata: Metadata;
  /** sha256 of the fields that matter for retrieval (content, scope level, tags); a change means re-embed. */
  contentHash: string;
  /** Which embedder made the stored vector (`provider/model/dimensions`), or null when there is none. */
  embeddingModel: string | null;
  createdAt: number;
  updatedAt: number;
}

/** An entry to create, with its vector when an embedder made one. */
export interface NewLoreEntry extends LoreEntry {
  embedding: Float32Array | null;
}

/**
 * New values for an existing entry (matched by id); source, title and createdAt never change. Without `vector`
 * (a change of metadata only), the stored vector and its embedding model stay as they are.
 */
export interface LoreEntryUpdate {
  id: string;
  content: string;
  scopeLevel: ScopeLevel;
  scopeTags: string[];
  metadata: Metadata;
  contentHash: string;
  vector?: { embeddingModel: string | null; embedding: Float32Array | null };
  updatedAt: number;
}

/** The readers an import can take its lore from: a folder, a git repository, or entries given in code. */
export type LoreReader = 'folder' | 'git' | 'entries';

/** Where lore was read: the reader, its location (a folder, or a git URL without credentials), ref and commit. */
export interface LoreOriginIdentity {
  reader: LoreReader;
  /** The folder (resolved) or the repository URL, never with credentials; null for entries given in code. */
  location: string | null;
  /** The ref asked for (branch, tag or commit) for git; null otherwise. */
  ref: string | null;
  /** The commit the ref resolved to for git; null otherwise. */
  commit: string | null;
}

/** Where the book's live lore came from, and when it was imported (ms since the epoch). */
export interface LoreOrigin extends LoreOriginIdentity {
  importedAt: number;
}

/** Everything one import writes, applied in one transaction. */
export interface LoreChangeSet {
  /** The book version the changes were planned against; another version means someone wrote in between. */
  expectedVersion: number;
  create: readonly NewLoreEntry[];
  update: readonly LoreEntryUpdate[];
  /** Ids of entries to delete. */
  remove: readonly string[];
  /** Where the lore came from, recorded in the same transaction (absent: the recorded origin stays as it is). */
  origin?: LoreOrigin;
}

/** The book's version before and after a write, and what the write did. */
export interface LoreWriteResult {
  previousVersion: number;
  version: number;
  created: number;
  updated: number;
  removed: number;
}

/** What the search index needs of an entry. */
export interface LoreIndexRow {
  id: string;
  scopeLevel: ScopeLevel;
  scopeTags: string[];
  content: string;
  metadata: Metadata;
  embedding: Float32Array | null;
}

/** Filters of a listing. */
export interface LoreListOptions {
  /** Only entries a character holding these tags may know (continental, or every tag held). */
  accessibleTo?: readonly string[];
  /** Only entries of this source. */
  source?: string;
  /** Entries to skip in (source, title) order (default 0). */
  offset?: number;
  /** At most this many entries (default: every one). */
  limit?: number;
}

/**
 * Where the lore book lives. Writes are whole: a change set lands entirely or not at all, and every write that
 * changes something bumps the book's version, so search indexes held in memory know when to refresh.
 * Adapters: `sqlite/`, `memory/`; each passes `runLoreContract`.
 */
export interface LoreStore {
  /** Entries ordered by (source, title), filtered in the store's own query. */
  list(options?: LoreListOptions): Promise<LoreEntry[]>;
  /** Entries by id, in the order asked (unknown ids are left out). */
  get(ids: readonly string[]): Promise<LoreEntry[]>;
  /** Number of entries. */
  count(): Promise<number>;
  /**
   * Applies creates, updates and deletes in one transaction. Fails with CONFLICT, writing nothing, when the book's
   * version is not `expectedVersion` or a create clashes with an existing (source, title).
   */
  apply(changes: LoreChangeSet): Promise<LoreWriteResult>;
  /** Deletes every entry and the recorded origin in one transaction. */
  wipe(): Promise<LoreWriteResult>;
  /** Where the live lore came from (recorded by the last import that wrote), or null (never imported, or wiped). */
  origin(): Promise<LoreOrigin | null>;
  /** Streams every entry in insertion order; returns the version read before the rows. */
  scan(visit: (row: LoreIndexRow) => void): Promise<number>;
  /** The book's current version (0 for a book never written). */
  version(): Promise<number>;
}
