// What a corpus index knows of each document's metadata fields, and the slot filter of `where` clauses over them.
import { canonicalMetadataValue } from '../core/metadata-filter.js';
import type { JsonValue, MetadataClause } from '../core/types.js';
import { grow, reserve } from './grow.js';
import { PairNames } from './pair-names.js';
import { SnapshotRejected } from './snapshot-format.js';
import type { LazyStrings, SnapshotReader, SnapshotWriter } from './snapshot-format.js';

/** Separates a pair's key from its canonical value (canonical JSON never holds a raw U+0000). */
const SEPARATOR = '\u0000';
/** Heap bytes of one pair of a persisted copy not interned yet (its string when read, its key id). */
const PAIR_BYTES = 120;

type SlotFilter = (slot: number) => boolean;

/**
 * Per-slot metadata fields of a corpus's documents, as (key, value) pair ids: a pair is a key with the canonical
 * JSON of its value (a string, number or boolean), or with no value for any other (null, arrays, objects: the key
 * is present, never equal to a filter value). Pairs are interned once per corpus (`PairNames`: their UTF-8 bytes
 * end to end, about 30 bytes a pair), so a slot costs 4 bytes a key.
 *
 * @example
 * ```ts
 * const fields = new DocumentFields();
 * fields.set(0, { speaker: 'Marta', quest: 'salt' });
 * fields.filterFor([{ key: 'speaker', values: ['"Marta"'] }])?.(0); // true
 * ```
 */
export class DocumentFields {
  private readonly pairNames = new PairNames();
  /** Each pair's key id. */
  private pairKeys = new Int32Array(64);
  private readonly keyIds = new Map<string, number>();
  private start = new Int32Array(65);
  private flat = new Int32Array(64);
  /** Slots set so far (one more than the last slot set). */
  private slots = 0;
  /**
   * The pair names of a persisted copy, not interned yet: a reopened index interns them when it is first written,
   * not when it opens; a filter reads only the pairs of the keys it tests (`pendingPairsOf`), so a field whose every
   * value differs (an id) costs nothing until a filter or a write names it.
   */
  private pending: LazyStrings | null = null;
  private pendingCount = 0;
  /** The per-slot pair ids of a persisted copy, read and checked on first use (`readSlots`), not at open. */
  private pendingSlots: (() => { start: Int32Array<ArrayBuffer>; flat: Int32Array<ArrayBuffer> }) | null = null;
  /** Bytes of those per-slot pair ids while not read (for `memoryBytes`). */
  private pendingBytes = 0;
  /** Of a persisted copy not interned yet: each filtered key's pairs, canonical value ('' for none) to pair id. */
  private pendingKeys = new Map<string, Map<string, number>>();

  /** Makes room for `slots` documents at once. */
  reserve(slots: number): void {
    this.readSlots();
    this.start = reserve(this.start, slots + 1);
  }

  /** Records a new document's fields (slots are set in order; a document without metadata has none). */
  set(slot: number, fields: Readonly<Record<string, JsonValue>> | undefined): void {
    this.intern();
    let position = this.start[slot] as number;
    const keys = fields === undefined ? [] : Object.keys(fields);
    this.flat = grow(this.flat, position + keys.length);
    this.start = grow(this.start, slot + 2);
    for (const key of keys) this.flat[position++] = this.pairId(key, canonicalMetadataValue((fields as Record<string, JsonValue>)[key]));
    this.start[slot + 1] = position;
    this.slots = Math.max(this.slots, slot + 1);
  }

  private pairId(key: string, canonical: string | null): number {
    const known = this.pairNames.size;
    const id = this.pairNames.intern(key, canonical);
    if (id === known) {
      let keyId = this.keyIds.get(key);
      if (keyId === undefined) {
        keyId = this.keyIds.size;
        this.keyIds.set(key, keyId);
      }
      this.pairKeys = grow(this.pairKeys, id + 1);
      this.pairKeys[id] = keyId;
    }
    return id;
  }

  /** A slot's fields as canonical (key, value) pairs, for a compacted copy (`setPairs`). */
  pairsOf(slot: number): [string, string | null][] {
    this.intern();
    const pairs: [string, string | null][] = [];
    for (let at = this.start[slot] as number; at < (this.start[slot + 1] as number); at++) {
      const name = this.pairNames.nameAt(this.flat[at] as number);
      const cut = name.lastIndexOf(SEPARATOR);
      pairs.push([name.slice(0, cut), cut === name.length - 1 ? null : name.slice(cut + 1)]);
    }
    return pairs;
  }

  /** Records a slot's fields given as canonical pairs (see `pairsOf`). */
  setPairs(slot: number, pairs: readonly [string, string | null][]): void {
    this.intern();
    let position = this.start[slot] as number;
    this.flat = grow(this.flat, position + pairs.length);
    this.start = grow(this.start, slot + 2);
    for (const [key, canonical] of pairs) this.flat[position++] = this.pairId(key, canonical);
    this.start[slot + 1] = position;
    this.slots = Math.max(this.slots, slot + 1);
  }

  /**
   * The slot filter of `where` clauses (every one must hold), or undefined for none. A value the corpus never
   * holds matches nothing; `exists: false` on a key it never holds matches everything. One pass over the slots'
   * fields per query; then O(1) per slot.
   */
  filterFor(clauses: readonly MetadataClause[] | undefined): SlotFilter | undefined {
    if (clauses === undefined || clauses.length === 0) return undefined;
    this.readSlots();
    const tests: { pairs: Set<number> | null; key: number; wanted: boolean }[] = [];
    for (const clause of clauses) {
      const pending = this.pending === null ? null : this.pendingPairsOf(clause.key);
      if ('values' in clause) {
        const pairs = new Set(clause.values.map((value) => (pending === null ? this.pairNames.find(clause.key, value) : (pending.get(value) ?? -1))).filter((pair) => pair >= 0));
        if (pairs.size === 0) return () => false;
        tests.push({ pairs, key: -1, wanted: true });
      } else {
        const key = pending === null ? this.keyIds.get(clause.key) : pending.size > 0 ? -1 : undefined;
        if (key === undefined) {
          if (clause.exists) return () => false;
          continue;
        }
        // Not interned yet: the key's pairs stand for it.
        tests.push({ pairs: pending === null ? null : new Set(pending.values()), key, wanted: clause.exists });
      }
    }
    if (tests.length === 0) return undefined;
    // Resolved once per query into one bit per slot (slots added later: not permitted), so each arm's test is a read:
    // a bit, not a byte, so that a filtered query's garbage is an eighth (1M slots: 125 KiB, not 1 MB, a query).
    const { start, flat, pairKeys } = this;
    const permitted = new Int32Array((this.slots + 31) >>> 5);
    for (let slot = 0; slot < this.slots; slot++) {
      const from = start[slot] as number;
      const to = start[slot + 1] as number;
      let keep = 1;
      for (let index = 0; index < tests.length && keep === 1; index++) {
        const test = tests[index] as (typeof tests)[number];
        let found = false;
        for (let at = from; at < to && !found; at++) {
          const pair = flat[at] as number;
          found = test.pairs === null ? pairKeys[pair] === test.key : test.pairs.has(pair);
        }
        if (found !== test.wanted) keep = 0;
      }
      if (keep === 1) permitted[slot >>> 5] = (permitted[slot >>> 5] as number) | (1 << (slot & 31));
    }
    const words = permitted.length;
    return (slot) => slot >>> 5 < words && ((permitted[slot >>> 5] as number) & (1 << (slot & 31))) !== 0;
  }

  /** About how many bytes the fields hold. */
  get memoryBytes(): number {
    return this.start.byteLength + this.flat.byteLength + this.pendingBytes + this.pairNames.memoryBytes + this.pairKeys.byteLength + this.pendingCount * PAIR_BYTES;
  }

  /** Writes the per-slot pair ids and the pair names (see IndexSnapshot). */
  writeState(writer: SnapshotWriter, prefix: string, slots: number): void {
    this.intern();
    this.start = grow(this.start, slots + 1);
    writer.array(`${prefix}.start`, this.start.subarray(0, slots + 1));
    writer.array(`${prefix}.flat`, this.flat.subarray(0, this.start[slots] as number));
    // The sections `writer.strings` makes of the names, viewing the arena (no copy); a lone surrogate fails as there.
    if (!this.pairNames.writable) throw new Error(`${prefix}.pairs: a string holds a lone surrogate`);
    const names = this.pairNames.sections();
    writer.array(`${prefix}.pairs.ends`, names.ends);
    writer.array(`${prefix}.pairs.text`, names.text);
  }

  /**
   * The sections `readState` reads only on first use (for `SnapshotReader.readApart`: none is read at open).
   *
   * @example
   * ```ts
   * reader.readApart(DocumentFields.sectionsReadOnUse('fields'));
   * ```
   */
  static sectionsReadOnUse(prefix: string): string[] {
    return [`${prefix}.start`, `${prefix}.flat`, `${prefix}.pairs.ends`, `${prefix}.pairs.text`];
  }

  /**
   * Reads what `writeState` wrote into this (empty) instance, on first use: the per-slot pair ids when the fields
   * are first filtered, read or written (`readSlots`: read and checked then), the pair names as a filter or a write
   * needs them (see `pending`). Only their lengths are checked now (a query without `where` never needs them).
   */
  readState(reader: SnapshotReader, prefix: string, slots: number): void {
    const flatLength = reader.itemCount(`${prefix}.flat`, 'i32');
    if (reader.itemCount(`${prefix}.start`, 'i32') !== slots + 1) throw new SnapshotRejected('field sections disagree with the ids');
    const count = reader.stringCount(`${prefix}.pairs`);
    this.pendingSlots = reader.deferred(() => {
      const start = reader.array(`${prefix}.start`, 'i32');
      const flat = reader.array(`${prefix}.flat`, 'i32');
      if (start[slots] !== flat.length) throw new SnapshotRejected('field sections disagree with the ids');
      for (let at = 0; at < flat.length; at++) {
        const pair = flat[at] as number;
        if (pair < 0 || pair >= count) throw new SnapshotRejected('field pair ids out of range');
      }
      return { start, flat };
    });
    this.slots = slots;
    // Their text stays in the file until interned: a filter reads the pairs of its keys (a scan keeps none of the
    // rest, 16 MB at 1M pairs); a write reads them whole.
    this.pending = reader.lazyStringList(`${prefix}.pairs`, true);
    this.pendingCount = count;
    this.pendingBytes = (slots + 1 + flatLength) * 4;
  }

  /** Reads (and checks) the per-slot pair ids of a persisted copy, once, before they are first used. */
  private readSlots(): void {
    const pending = this.pendingSlots;
    if (pending === null) return;
    const { start, flat } = pending();
    this.pendingSlots = null;
    this.pendingBytes = 0;
    this.start = start;
    this.flat = flat;
  }

  /**
   * The pairs of one key in a persisted copy not interned yet (canonical value, '' for none, to pair id: a pair's id
   * is its place in the names), read once per key and kept until the names are interned.
   */
  private pendingPairsOf(key: string): Map<string, number> {
    let pairs = this.pendingKeys.get(key);
    if (pairs === undefined) {
      const names = this.pending as LazyStrings;
      pairs = new Map();
      for (const id of names.indexesStartingWith(`${key}${SEPARATOR}`)) {
        const name = names.at(id);
        // The key is what comes before the last separator (a canonical value holds none).
        if (name.lastIndexOf(SEPARATOR) === key.length) pairs.set(name.slice(key.length + 1), id);
      }
      this.pendingKeys.set(key, pairs);
    }
    return pairs;
  }

  /** Interns the pair names of a persisted copy, once (in their order, so each keeps its id). */
  private intern(): void {
    this.readSlots();
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    this.pendingCount = 0;
    this.pendingKeys.clear();
    for (const name of pending.all()) {
      const cut = name.lastIndexOf(SEPARATOR);
      this.pairId(cut < 0 ? name : name.slice(0, cut), cut < 0 || cut === name.length - 1 ? null : name.slice(cut + 1));
    }
  }
}
