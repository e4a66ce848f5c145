// A persisted index's document ids: canonical UUIDs as 16 raw bytes each, any other list as UTF-8 strings.
import { SnapshotRejected } from './snapshot-format.js';
import type { SectionBytes, SnapshotReader, SnapshotWriter } from './snapshot-format.js';

/** The form written as 16 bytes: lowercase hex, hyphenated 8-4-4-4-12 (what `crypto.randomUUID` makes). */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The bytes of one UUID. */
export const UUID_BYTES = 16;
/** Where the hyphens of a canonical UUID stand (after these many bytes). */
const HYPHEN_AFTER = [4, 6, 8, 10];
/** Each byte's two lowercase hex digits, as character codes. */
const HEX_CODES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0')).map((pair) => [pair.charCodeAt(0), pair.charCodeAt(1)] as const);
/** Where `uuidText` spells an id (one id at a time). */
const UUID_SCRATCH = Buffer.alloc(36);

/** A persisted list of ids, read one by one as they are asked for. */
export interface IdList {
  /** How many ids the list holds. */
  readonly length: number;
  /** The id at `index` (0 <= index < length), read from the file now. */
  at(index: number): string;
  /** Every id, in order. */
  all(): string[];
}

/**
 * Writes `ids` under `name`: as `${name}.uuids`, 16 bytes each, when every one is a canonical UUID (36 bytes of
 * text and a 4-byte offset saved per id), else as a list of strings (`SnapshotWriter.strings`). `readIdList`
 * reads either back as the same strings.
 *
 * @example
 * ```ts
 * writeIdList(writer, 'ids', ['6f1c2e9a-0b7d-4c3e-9a55-2f0e8d1b7c44']); // one 16-byte section
 * ```
 */
export function writeIdList(writer: SnapshotWriter, name: string, ids: readonly string[]): void {
  if (ids.length === 0 || !ids.every(isCanonicalUuid)) {
    writer.strings(name, ids);
    return;
  }
  const bytes = new Uint8Array(ids.length * UUID_BYTES);
  ids.forEach((id, index) => writeUuidBytes(id, bytes, index * UUID_BYTES));
  writer.array(`${name}.uuids`, bytes);
}

/**
 * True when `id` is a canonical UUID: lowercase hex, hyphenated 8-4-4-4-12 (the form kept as 16 bytes).
 *
 * @example
 * ```ts
 * isCanonicalUuid('6f1c2e9a-0b7d-4c3e-9a55-2f0e8d1b7c44'); // true
 * isCanonicalUuid('6F1C2E9A-0B7D-4C3E-9A55-2F0E8D1B7C44'); // false
 * ```
 */
export function isCanonicalUuid(id: string): boolean {
  return CANONICAL_UUID.test(id);
}

/**
 * Writes the 16 bytes of `id` to `bytes` from `start` when it is a canonical UUID (see `isCanonicalUuid`), and
 * says whether it is (when not, some of those bytes may be written).
 *
 * @example
 * ```ts
 * writeUuidBytes('6f1c2e9a-0b7d-4c3e-9a55-2f0e8d1b7c44', bytes, 16); // true, bytes[16] === 0x6f
 * ```
 */
export function writeUuidBytes(id: string, bytes: Uint8Array, start: number): boolean {
  if (id.length !== 36) return false;
  let at = start;
  for (let index = 0; index < 36; index += 2) {
    if (index === 8 || index === 13 || index === 18 || index === 23) {
      if (id.charCodeAt(index) !== 45) return false;
      index++;
    }
    const high = hexValue(id.charCodeAt(index));
    const low = hexValue(id.charCodeAt(index + 1));
    if ((high | low) < 0) return false;
    bytes[at++] = (high << 4) | low;
  }
  return true;
}

/**
 * The ids `writeIdList` wrote under `name`, read from the file as they are asked for (the caller keeps them).
 *
 * @example
 * ```ts
 * const ids = readIdList(reader, 'ids');
 * ids.at(41); // the id of slot 41, reading a block of the file
 * ```
 */
export function readIdList(reader: SnapshotReader, name: string): IdList {
  if (!reader.has(`${name}.uuids`)) return reader.lazyStringList(name, true);
  const bytes = reader.bytesInFile(`${name}.uuids`);
  if (bytes.length % UUID_BYTES !== 0) throw new SnapshotRejected(`section ${name}.uuids is not a whole number of ids (corrupt)`);
  return new UuidList(bytes);
}

/** Ids held as 16 bytes each, formatted as canonical UUIDs when read. */
class UuidList implements IdList {
  constructor(private readonly bytes: SectionBytes) {}

  get length(): number {
    return this.bytes.length / UUID_BYTES;
  }

  at(index: number): string {
    if (!(index >= 0 && index < this.length)) throw new RangeError(`id ${index} of ${this.length}`);
    return uuidText(this.bytes.range(index * UUID_BYTES, (index + 1) * UUID_BYTES), 0);
  }

  all(): string[] {
    const bytes = this.bytes.all();
    return Array.from({ length: this.length }, (_, index) => uuidText(bytes, index * UUID_BYTES));
  }
}

/**
 * The canonical text of the 16 bytes of `bytes` from `start`, made flat (one string, not a rope of its parts).
 *
 * @example
 * ```ts
 * uuidText(bytes, 16 * slot); // '6f1c2e9a-0b7d-4c3e-9a55-2f0e8d1b7c44'
 * ```
 */
export function uuidText(bytes: Uint8Array, start: number): string {
  let at = 0;
  let hyphen = 0;
  for (let index = 0; index < UUID_BYTES; index++) {
    if (index === HYPHEN_AFTER[hyphen]) {
      UUID_SCRATCH[at++] = 45;
      hyphen++;
    }
    const [high, low] = HEX_CODES[bytes[start + index] as number] as readonly [number, number];
    UUID_SCRATCH[at++] = high;
    UUID_SCRATCH[at++] = low;
  }
  return UUID_SCRATCH.toString('latin1', 0, 36);
}

/** The value of a lowercase hex digit's character code, or -1 for any other character. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}
