// How a chunk's id is kept in its SQLite row: a UUID as Mnemo makes them (lowercase, canonical) as its 16 bytes, any other id as its text.

/** A canonical lowercase UUID (the ids `newId` makes) in SQL: GLOB is case-sensitive. */
const UUID_GLOB = [8, 4, 4, 4, 12].map((count) => '[0-9a-f]'.repeat(count)).join('-');

/**
 * The value a chunk row's `id` column holds for `id`: a canonical lowercase UUID (8-4-4-4-12 lowercase hex digits) as its 16 bytes (20 bytes less
 * in the row and again in the id index than its 36 characters), any other id (an import's, written by hand) as
 * its text. Such a text is never a canonical UUID, so the two forms never meet: every id has exactly one stored
 * form, and `chunkIdText` gives the id back.
 *
 * @example
 * ```ts
 * storedChunkId('3b241101-e2bb-4255-8caf-4136c566a962'); // Buffer of 16 bytes
 * storedChunkId('npc-note-7'); // 'npc-note-7'
 * ```
 */
export function storedChunkId(id: string): string | Buffer {
  if (id.length !== 36) return id;
  // Parsed by hand (a write stores 100k of them): the test of UUID above, and the bytes, in one pass.
  const bytes = Buffer.allocUnsafe(16);
  for (let index = 0, at = 0; index < 36; ) {
    if (index === 8 || index === 13 || index === 18 || index === 23) {
      if (id.charCodeAt(index) !== 45) return id;
      index++;
      continue;
    }
    const high = hexDigit(id.charCodeAt(index));
    const low = hexDigit(id.charCodeAt(index + 1));
    if (high < 0 || low < 0) return id;
    bytes[at++] = (high << 4) | low;
    index += 2;
  }
  return bytes;
}

/** The value of a lowercase hex digit's code, or -1. */
const hexDigit = (code: number): number => (code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1);

/**
 * SQL for the stored form of the text id `expression` (a bound parameter, a JSON array's `value`): the SQL twin of
 * `storedChunkId`, for statements that take many ids at once.
 *
 * @example
 * ```ts
 * `DELETE FROM chunks WHERE id IN (SELECT ${storedChunkIdSql('value')} FROM json_each(?))`
 * ```
 */
export function storedChunkIdSql(expression: string): string {
  return `CASE WHEN ${expression} GLOB '${UUID_GLOB}' THEN unhex(replace(${expression}, '-', '')) ELSE ${expression} END`;
}

/**
 * SQL for the text of the stored id in `column` (a UUID's 16 bytes as its canonical lowercase form; a text as it
 * is). Formatting in SQL costs about what reading the bytes into JavaScript would.
 *
 * @example
 * ```ts
 * `SELECT ${chunkIdText('id')} AS id, text FROM chunks WHERE save_id = ?`
 * ```
 */
export function chunkIdText(column: string): string {
  const hex = `lower(hex(${column}))`;
  return `(CASE WHEN typeof(${column}) = 'blob' THEN substr(${hex}, 1, 8) || '-' || substr(${hex}, 9, 4) || '-' || substr(${hex}, 13, 4) || '-' || substr(${hex}, 17, 4) || '-' || substr(${hex}, 21) ELSE ${column} END)`;
}
