// A corpus index's document ids by slot: 16 bytes each while every one is a canonical UUID, else strings.
import { grow, reserve } from './grow.js';
import { UUID_BYTES, uuidText, writeIdList, writeUuidBytes } from './id-list.js';
import type { SnapshotWriter } from './snapshot-format.js';

/**
 * The id of each slot. Ids Mnemo makes are canonical lowercase UUIDs: held as their 16 bytes (as the index file
 * keeps them) instead of a string each (about 64 bytes with its place in an array: 1M chunks, 16 instead of 64
 * MB), and written as a view of those bytes; the first id of another form turns the list into strings for good
 * (every id has one form, as `writeIdList` writes). A slot never set reads as undefined (a persisted copy's ids
 * not read yet).
 *
 * @example
 * ```ts
 * const ids = new DocumentIds();
 * ids.set(0, '6f1c2e9a-0b7d-4c3e-9a55-2f0e8d1b7c44');
 * ids.get(0); // '6f1c2e9a-0b7d-4c3e-9a55-2f0e8d1b7c44'
 * ```
 */
export class DocumentIds {
  /** The UUIDs' bytes, 16 a slot (null once the ids are strings). */
  private bytes: Uint8Array | null = new Uint8Array(64 * UUID_BYTES);
  private texts: (string | undefined)[] | null = null;
  private count = 0;

  /** Ids held as strings from the start: `slots` slots not set yet (a persisted copy's, read as they are asked for). */
  static unset(slots: number): DocumentIds {
    const ids = new DocumentIds();
    ids.bytes = null;
    ids.texts = new Array<string | undefined>(slots);
    ids.count = slots;
    return ids;
  }

  /** The ids given, held as strings. */
  static of(list: readonly string[]): DocumentIds {
    const ids = DocumentIds.unset(0);
    ids.texts = [...list];
    ids.count = list.length;
    return ids;
  }

  /** One more than the last slot set. */
  get length(): number {
    return this.count;
  }

  /** Makes room for `slots` ids at once (a build that knows its size). */
  reserve(slots: number): void {
    if (this.bytes !== null) this.bytes = reserve(this.bytes, slots * UUID_BYTES);
  }

  /** The id of a slot (undefined: not set). */
  get(slot: number): string | undefined {
    if (this.bytes === null) return (this.texts as (string | undefined)[])[slot];
    if (!(slot >= 0 && slot < this.count)) return undefined;
    return uuidText(this.bytes, slot * UUID_BYTES);
  }

  /** Sets the id of a slot. */
  set(slot: number, id: string): void {
    if (this.bytes !== null && slot <= this.count) {
      this.bytes = grow(this.bytes, (slot + 1) * UUID_BYTES);
      // The slot's bytes hold nothing yet (or are replaced): a part written before the id proves not a UUID is not read.
      const before = slot < this.count ? this.bytes.slice(slot * UUID_BYTES, (slot + 1) * UUID_BYTES) : null;
      if (writeUuidBytes(id, this.bytes, slot * UUID_BYTES)) {
        this.count = Math.max(this.count, slot + 1);
        return;
      }
      if (before !== null) this.bytes.set(before, slot * UUID_BYTES);
    }
    if (this.bytes !== null) this.toTexts();
    (this.texts as (string | undefined)[])[slot] = id;
    this.count = Math.max(this.count, slot + 1);
  }

  /** Every id, in slot order. */
  all(): string[] {
    return Array.from({ length: this.count }, (_, slot) => this.get(slot) as string);
  }

  /** Writes the ids as `writeIdList` writes them (the UUIDs' bytes as a view: write before the next `set`). */
  writeState(writer: SnapshotWriter, name: string): void {
    if (this.bytes !== null && this.count > 0) writer.array(`${name}.uuids`, this.bytes.subarray(0, this.count * UUID_BYTES));
    else writeIdList(writer, name, this.all());
  }

  /** Turns the UUIDs into strings, for good (an id of another form came). */
  private toTexts(): void {
    this.texts = this.all();
    this.bytes = null;
  }
}
