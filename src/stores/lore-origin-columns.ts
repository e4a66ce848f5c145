// The origin columns of `lore_book` (SQLite and PostgreSQL name them alike), read into a LoreOrigin.
import type { LoreOrigin, LoreReader } from '../seams/lore-store.js';

/** The origin columns of `lore_book`, as either adapter reads them (PostgreSQL gives BIGINT as text). */
export interface LoreOriginColumns {
  origin_reader: LoreReader | null;
  origin_location: string | null;
  origin_ref: string | null;
  origin_commit: string | null;
  origin_imported_at: number | string | null;
}

/** The columns to select, in the order `originValues` gives them. */
export const LORE_ORIGIN_COLUMNS = 'origin_reader, origin_location, origin_ref, origin_commit, origin_imported_at';

/**
 * The recorded origin, or null when none is (never imported, or wiped).
 *
 * @example
 * ```ts
 * toLoreOrigin(db.prepare(`SELECT ${LORE_ORIGIN_COLUMNS} FROM lore_book WHERE id = 1`).get());
 * ```
 */
export function toLoreOrigin(row: LoreOriginColumns | undefined): LoreOrigin | null {
  if (row === undefined || row.origin_reader === null) return null;
  return { reader: row.origin_reader, location: row.origin_location, ref: row.origin_ref, commit: row.origin_commit, importedAt: Number(row.origin_imported_at ?? 0) };
}

/** The values of an origin in the column order (all null to clear it). */
export function originValues(origin: LoreOrigin | null): (string | number | null)[] {
  return origin === null ? [null, null, null, null, null] : [origin.reader, origin.location, origin.ref, origin.commit, origin.importedAt];
}
