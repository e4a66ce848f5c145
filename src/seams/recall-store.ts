// The recall sub-store seam: persistence of remembered entries (key, JSON value, metadata), scoped and expiring.
import type { JsonValue, Metadata } from '../core/types.js';
import type { WriteResult } from './write-result.js';

/** An entry ready to be written: validated, its value checked as JSON, its vector attached when there is one. */
export interface NewRecallEntry {
  /** The namespace (a memory declaration's name), or null for an unscoped entry. */
  scope: string | null;
  key: string;
  value: JsonValue;
  /** Free metadata; `scope`, when set, equals `scope` above. */
  metadata: Metadata;
  /** When it was written, in milliseconds since the epoch. */
  createdAt: number;
  /** When it stops being returned (milliseconds since the epoch), or null for never. */
  expiresAt: number | null;
  /** The vector of the entry's search text, or null. */
  embedding: Float32Array | null;
}

/** A stored entry. `seq` is its position: it is kept when the entry is replaced by one with the same scope and key. */
export interface StoredRecallEntry extends Omit<NewRecallEntry, 'embedding'> {
  seq: number;
}

/** What the search index and exact matching need of an entry. */
export interface RecallIndexRow {
  seq: number;
  scope: string | null;
  key: string;
  /** The value as it is searched: a string as it is, anything else as its JSON (see `renderValue`). */
  valueText: string;
  createdAt: number;
  expiresAt: number | null;
  embedding: Float32Array | null;
}

/** A write's effect on the recall store's version, with the positions it removed. */
export interface RecallWriteResult extends WriteResult {
  /** The seq of every entry the write removed (for a replacement: none; the seq is kept). */
  removedSeqs: number[];
}

/**
 * Where remembered entries live. An entry is identified by (scope, key): writing the same pair again replaces it in
 * place. Every write is one transaction and bumps one version number for the whole recall store, so in-memory
 * indexes know when another process wrote. "Live" means not expired at the `now` given (expiresAt >= now).
 */
export interface RecallStore {
  /** Writes an entry, replacing the one with the same scope and key (which keeps its seq). */
  put(entry: NewRecallEntry): Promise<RecallWriteResult & { seq: number; replaced: boolean }>;
  /** Reads entries by seq, in the order asked (unknown seqs are left out). */
  getEntries(seqs: readonly number[]): Promise<StoredRecallEntry[]>;
  /** The live entries whose key, lowercased, equals `foldedKey`, in one scope (or every scope for null). */
  findByFoldedKey(foldedKey: string, scope: string | null, now: number): Promise<StoredRecallEntry[]>;
  /**
   * Streams the live entries of one scope (null: every scope) in seq order to `visit` and returns the version read
   * before the rows.
   */
  scan(scope: string | null, now: number, visit: (row: RecallIndexRow) => void): Promise<number>;
  /** The recall store's version (0 before the first write). */
  version(): Promise<number>;
  /** The number of live entries in one scope, or in all of them. */
  count(scope: string | null, now: number): Promise<number>;
  /** Every scope with its number of live entries (null stands for unscoped entries), sorted by name. */
  listScopes(now: number): Promise<{ scope: string | null; entries: number }[]>;
  /** Deletes every entry of one scope (null: every entry); `removedSeqs` says which. */
  clear(scope: string | null): Promise<RecallWriteResult>;
  /**
   * Deletes the entries of one scope (null: the unscoped entries only) whose key is one of `keys` (exact, not
   * folded), expired or not; `removedSeqs` says which. Writes nothing when none matches.
   */
  deleteKeys(scope: string | null, keys: readonly string[]): Promise<RecallWriteResult>;
  /** Deletes the entries expired at `now` (expiresAt < now). Writes nothing when none has expired. */
  purgeExpired(now: number): Promise<RecallWriteResult>;
}
