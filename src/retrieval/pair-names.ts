// The interned (key, value) pair names of a corpus's metadata fields, as one UTF-8 arena with an integer hash table.
import { grow } from './grow.js';

/** Bytes of the separator between a pair's key and its canonical value (canonical JSON never holds a raw U+0000). */
const SEPARATOR = 0;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const EMPTY = -1;

/**
 * Pair names `${key}\u0000${canonical value}` (no value: nothing after the separator), each given the next id
 * when first interned. The names are held as their UTF-8 bytes end to end, with the offset where each ends (the
 * two sections `SnapshotWriter.strings` would make of them), and found by an open-addressing table of ids: about
 * 30 bytes a pair where a string and a map entry took about 100 (every chunk's `entryId` is a pair of its own).
 * A name UTF-8 cannot carry (a key with a lone surrogate) is kept as a string beside them and makes the list
 * unwritable (`writable`), as `SnapshotWriter.strings` refuses it.
 *
 * @example
 * ```ts
 * const names = new PairNames();
 * names.intern('speaker', '"Marta"'); // 0
 * names.find('speaker', '"Marta"'); // 0
 * names.nameAt(0); // 'speaker\u0000"Marta"'
 * ```
 */
export class PairNames {
  private text = new Uint8Array(1024);
  private ends = new Int32Array(64);
  /** Each name's hash, so the table grows without reading the names again. */
  private hashes = new Int32Array(64);
  /** Open addressing, linear probing: a name's id, or EMPTY; its length a power of two, at most half full. */
  private table = new Int32Array(128).fill(EMPTY);
  private count = 0;
  /** The bytes of the name last encoded (by `encode`), its length and hash. */
  private scratch = new Uint8Array(256);
  private encodedLength = 0;
  private encodedHash = 0;
  /** Names holding a lone surrogate, by name (their bytes hold U+FFFD for it), and their ids' names. */
  private lone: Map<string, number> | null = null;
  private loneNames: Map<number, string> | null = null;

  /** How many names are interned. */
  get size(): number {
    return this.count;
  }

  /** False when a name holds a lone surrogate (UTF-8 cannot carry it: the list cannot be persisted). */
  get writable(): boolean {
    return this.lone === null;
  }

  /** Bytes the names hold (arena, ends, hashes, table). */
  get memoryBytes(): number {
    return this.text.byteLength + this.ends.byteLength + this.hashes.byteLength + this.table.byteLength;
  }

  /** The id of the pair, or -1 when it was never interned. */
  find(key: string, canonical: string | null): number {
    if (!this.encode(key, canonical)) return this.lone?.get(joined(key, canonical)) ?? -1;
    return this.lookup();
  }

  /** The id of the pair, interning it (the next id) when new. */
  intern(key: string, canonical: string | null): number {
    if (!this.encode(key, canonical)) {
      const name = joined(key, canonical);
      const known = this.lone?.get(name);
      if (known !== undefined) return known;
      const id = this.append(false);
      (this.lone ??= new Map()).set(name, id);
      (this.loneNames ??= new Map()).set(id, name);
      return id;
    }
    const found = this.lookup();
    return found >= 0 ? found : this.append(true);
  }

  /** The name of pair `id` (0 <= id < size). */
  nameAt(id: number): string {
    const lone = this.loneNames?.get(id);
    if (lone !== undefined) return lone;
    const start = id === 0 ? 0 : (this.ends[id - 1] as number);
    return Buffer.from(this.text.buffer, this.text.byteOffset + start, (this.ends[id] as number) - start).toString('utf8');
  }

  /**
   * The names as `SnapshotWriter.strings` writes them: the UTF-8 offset where each ends and the bytes (views,
   * valid until the next `intern`).
   */
  sections(): { ends: Int32Array; text: Uint8Array } {
    return { ends: this.ends.subarray(0, this.count), text: this.text.subarray(0, this.count === 0 ? 0 : (this.ends[this.count - 1] as number)) };
  }

  /** The id of the name in `scratch`, or -1. */
  private lookup(): number {
    const { table, scratch, text, ends, hashes } = this;
    const length = this.encodedLength;
    const hash = this.encodedHash;
    const mask = table.length - 1;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const id = table[at] as number;
      if (id === EMPTY) return -1;
      if (hashes[id] !== hash) continue;
      const start = id === 0 ? 0 : (ends[id - 1] as number);
      if ((ends[id] as number) - start !== length) continue;
      let same = true;
      for (let index = 0; index < length && same; index++) same = text[start + index] === scratch[index];
      if (same) return id;
    }
  }

  /** Gives the name in `scratch` the next id (in the table too when `indexed`). */
  private append(indexed: boolean): number {
    const id = this.count++;
    const start = id === 0 ? 0 : (this.ends[id - 1] as number);
    const end = start + this.encodedLength;
    this.text = grow(this.text, end);
    this.text.set(this.scratch.subarray(0, this.encodedLength), start);
    this.ends = grow(this.ends, id + 1);
    this.ends[id] = end;
    this.hashes = grow(this.hashes, id + 1);
    this.hashes[id] = this.encodedHash;
    if (indexed) {
      if (2 * (this.count + 1) > this.table.length) this.rehash(this.table.length * 2);
      this.place(id, this.encodedHash);
    }
    return id;
  }

  private place(id: number, hash: number): void {
    const { table } = this;
    const mask = table.length - 1;
    let at = hash & mask;
    while (table[at] !== EMPTY) at = (at + 1) & mask;
    table[at] = id;
  }

  private rehash(length: number): void {
    this.table = new Int32Array(length).fill(EMPTY);
    for (let id = 0; id < this.count; id++) if (this.loneNames?.has(id) !== true) this.place(id, this.hashes[id] as number);
  }

  /**
   * Writes the UTF-8 bytes of `${key}\u0000${canonical ?? ''}` to `scratch`, with their length and FNV-1a hash;
   * false when the name holds a lone surrogate (its bytes then hold U+FFFD for it, as Buffer's encoding does).
   */
  private encode(key: string, canonical: string | null): boolean {
    const value = canonical ?? '';
    const most = 3 * (key.length + value.length) + 1;
    if (most > this.scratch.length) this.scratch = new Uint8Array(Math.max(most, 2 * this.scratch.length));
    let at = this.encodeString(key, 0);
    let carried = at >= 0;
    if (at < 0) at = ~at;
    this.scratch[at++] = SEPARATOR;
    let end = this.encodeString(value, at);
    if (end < 0) {
      carried = false;
      end = ~end;
    }
    const { scratch } = this;
    let hash = FNV_OFFSET;
    for (let index = 0; index < end; index++) hash = Math.imul(hash ^ (scratch[index] as number), FNV_PRIME);
    this.encodedLength = end;
    this.encodedHash = hash;
    return carried;
  }

  /** Writes the UTF-8 of `value` to `scratch` from `at`; the end, or its complement (~end) when it met a lone surrogate. */
  private encodeString(value: string, at: number): number {
    const { scratch } = this;
    let lone = false;
    for (let index = 0; index < value.length; index++) {
      let code = value.charCodeAt(index);
      if (code < 0x80) {
        scratch[at++] = code;
        continue;
      }
      if (code < 0x800) {
        scratch[at++] = 0xc0 | (code >> 6);
        scratch[at++] = 0x80 | (code & 0x3f);
        continue;
      }
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = index + 1 < value.length ? value.charCodeAt(index + 1) : 0;
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const point = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          index++;
          scratch[at++] = 0xf0 | (point >> 18);
          scratch[at++] = 0x80 | ((point >> 12) & 0x3f);
          scratch[at++] = 0x80 | ((point >> 6) & 0x3f);
          scratch[at++] = 0x80 | (point & 0x3f);
          continue;
        }
        lone = true;
        code = 0xfffd;
      }
      scratch[at++] = 0xe0 | (code >> 12);
      scratch[at++] = 0x80 | ((code >> 6) & 0x3f);
      scratch[at++] = 0x80 | (code & 0x3f);
    }
    return lone ? ~at : at;
  }
}

/** The name of a pair as a string. */
function joined(key: string, canonical: string | null): string {
  return `${key}\u0000${canonical ?? ''}`;
}
