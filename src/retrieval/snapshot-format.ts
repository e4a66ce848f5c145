// The byte layout of a persisted index: a checksummed header and block checksums, named typed-array sections read (and checked) where and when they are used.
import { isAscii } from 'node:buffer';
import { runSteps } from '../core/time-slice.js';
import { crc32, crcOfBlocks } from './crc32.js';
import type { Steps } from '../core/time-slice.js';
import type { SnapshotFile } from './snapshot-file.js';

/** A lone surrogate (UTF-8 cannot carry it: it would come back as U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The first 8 bytes of every snapshot. A change of layout or of what an index holds changes the last character
 * (2: metadata fields; 3: a checksum per block, sections read where and when used; 4: strings end at UTF-8
 * offsets, so one is read without the others; 5: the float32 vectors may be left out, read from the store; 6: the BM25
 * per-document term ids are u16 when the index has fewer than 65,536 terms; 7: the BM25 posting slots as LEB128 gaps,
 * bm25.postingGaps and bm25.postingByteEnds, in place of bm25.postingSlots). A section whose form its writer picks
 * from its values keeps the magic (the BM25 frequencies as u8 or u16, the per-slot integers at their narrowest
 * width, the ids as 16-byte UUIDs or strings): its kind or name is in the section table, and a reader that expects
 * another refuses the snapshot as corrupt, so it is rebuilt.
 */
const MAGIC = 'MNEMOIX7';
/** Snapshots of an earlier layout: refused as stale (the index is rebuilt and written again in this one). */
const OLDER_MAGIC = /^MNEMOIX[0-6]$/;
/** Magic (8), header length (u32), CRC-32 of the file length, the header and the block checksums (u32), file length (f64). */
const PREAMBLE = 24;
/**
 * Bytes under one CRC-32: a read checks the blocks it covers, so a query that needs a few rows of a section reads
 * and checks a few blocks of it, not the section (a disk page).
 */
const BLOCK_BYTES = 4096;
/** Blocks checksummed between two pauses of `finishSteps` (1 MiB: about a millisecond of native CRC-32). */
const CRC_STEP_BLOCKS = 256;
/**
 * Blocks read at once from which they are checked in one native CRC-32 pass over them all (against the CRC their
 * checksums combine to: see `crcOfBlocks`) rather than one call per block, whose cost is mostly the call's.
 */
const RUN_CHECK_BLOCKS = 16;
/** Bytes of a list's text read at once by `LazyStrings.indexesStartingWith` (64 blocks). */
const SCAN_BYTES = 64 * BLOCK_BYTES;
/** The padding after a section (up to 7 zero bytes, to the next 8-byte boundary). */
const ZEROS = new Uint8Array(8);

export type ArrayKind = 'i32' | 'u8' | 'u16' | 'f32' | 'f64' | 'i8';
/** A typed array a section holds. */
export type Section = Int32Array | Uint8Array | Uint16Array | Float32Array | Float64Array | Int8Array;
/** A section's kind, offset in the body, length in items and first block in the checksum table. */
type Entry = [ArrayKind, number, number, number];

const CONSTRUCTORS = {
  i32: Int32Array,
  u8: Uint8Array,
  u16: Uint16Array,
  f32: Float32Array,
  f64: Float64Array,
  i8: Int8Array,
} as const;

type ArrayOf<K extends ArrayKind> = InstanceType<(typeof CONSTRUCTORS)[K]>;

function kindOf(array: Section): ArrayKind {
  if (array instanceof Int32Array) return 'i32';
  if (array instanceof Uint8Array) return 'u8';
  if (array instanceof Uint16Array) return 'u16';
  if (array instanceof Float32Array) return 'f32';
  if (array instanceof Float64Array) return 'f64';
  return 'i8';
}

const align8 = (bytes: number): number => Math.ceil(bytes / 8) * 8;
const bytesOf = (array: Section | Uint32Array): Uint8Array => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

/** Why a snapshot could not be used (at open, or a section found corrupt at its first use): read back by the cache to say so once in the log. */
export class SnapshotRejected extends Error {}

/**
 * Collects the sections of a snapshot and lays them out as bytes.
 *
 * @example
 * ```ts
 * const writer = new SnapshotWriter();
 * writer.array('lengths', new Int32Array([3, 5]));
 * writer.strings('ids', ['a', 'b']);
 * const bytes = writer.finish({ version: 5 });
 * ```
 */
export class SnapshotWriter {
  private readonly sections: { name: string; kind: ArrayKind; bytes: Uint8Array; length: number }[] = [];

  /** Adds a typed array (its current view: only its `length` items are written). */
  array(name: string, array: Section): void {
    this.sections.push({ name, kind: kindOf(array), bytes: bytesOf(array), length: array.length });
  }

  /** Adds a list of strings (UTF-8, with the offset where each ends). Fails on a string that UTF-8 cannot carry (a lone surrogate). */
  strings(name: string, values: readonly string[]): void {
    const joined = values.join('');
    if (LONE_SURROGATE.test(joined)) throw new Error(`${name}: a string holds a lone surrogate`);
    const text = Buffer.from(joined, 'utf8');
    // ASCII (ids, most terms): UTF-8 offsets are the UTF-16 ones.
    const ascii = text.byteLength === joined.length;
    const ends = new Int32Array(values.length);
    let end = 0;
    values.forEach((value, index) => (ends[index] = end += ascii ? value.length : Buffer.byteLength(value, 'utf8')));
    this.array(`${name}.ends`, ends);
    this.array(`${name}.text`, new Uint8Array(text.buffer, text.byteOffset, text.byteLength));
  }

  /** The whole snapshot: preamble, header (`header` plus the section table), block checksums and the sections. */
  finish(header: Record<string, unknown>): Buffer {
    return Buffer.concat(runSteps(this.finishSteps(header)));
  }

  /**
   * The bytes `finish` makes, as pieces to write in order (the preamble and header, the block checksums, then
   * each section and its padding), checksummed in steps for `runStepsSliced`. The sections are not copied: the
   * pieces view the arrays given, so write them before those change.
   */
  *finishSteps(header: Record<string, unknown>): Steps<Uint8Array[]> {
    let blocks = 0;
    for (const section of this.sections) blocks += Math.ceil(section.bytes.byteLength / BLOCK_BYTES);
    const crcs = new Uint32Array(align8(blocks * 4) / 4);
    const table: Record<string, Entry> = {};
    let offset = crcs.byteLength;
    let block = 0;
    for (const section of this.sections) {
      table[section.name] = [section.kind, offset, section.length, block];
      const { bytes } = section;
      for (let at = 0; at < bytes.byteLength; at += BLOCK_BYTES) {
        if (block % CRC_STEP_BLOCKS === 0) yield;
        crcs[block++] = crc32(bytes.subarray(at, at + BLOCK_BYTES));
      }
      offset += align8(bytes.byteLength);
    }
    const json = Buffer.from(JSON.stringify({ ...header, blocks, sections: table }), 'utf8');
    const bodyStart = align8(PREAMBLE + json.byteLength);
    const head = Buffer.alloc(bodyStart);
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(json.byteLength, 8);
    head.writeDoubleLE(bodyStart + offset, 16);
    json.copy(head, PREAMBLE);
    const crcBytes = bytesOf(crcs);
    head.writeUInt32LE(crc32(crcBytes.subarray(0, blocks * 4), crc32(head.subarray(16, PREAMBLE + json.byteLength))), 12);
    const pieces: Uint8Array[] = [head, crcBytes];
    for (const { bytes } of this.sections) {
      const padding = ZEROS.subarray(0, align8(bytes.byteLength) - bytes.byteLength);
      for (const piece of [bytes, padding]) if (piece.byteLength > 0) pieces.push(piece);
    }
    return pieces;
  }
}

/**
 * Reads a snapshot written by `SnapshotWriter` from a file open for positional reads: checks its magic, length,
 * header and block checksums first (a half-written, foreign or corrupt header is refused at once), then reads each
 * section when asked, into the array that holds it, checking the blocks it reads. `array` and `strings` read a
 * section whole; `lazy` reads the blocks a caller needs when it needs them. A block whose checksum fails throws
 * SnapshotRejected wherever it is read (at open, or at a query's first use of it): its bytes are never used.
 * The file is closed once every section handed out lazily is read whole (`done` says no more is asked at
 * open), or when the reader and its sections are collected.
 *
 * @example
 * ```ts
 * const reader = SnapshotReader.open(bytesSnapshotFile(bytes));
 * reader.header['version']; // 5
 * reader.array('lengths', 'i32'); // Int32Array [3, 5]
 * reader.done();
 * ```
 */
export class SnapshotReader {
  /** Sections handed out lazily and not read whole yet (the file stays open for them). */
  private pending = 0;
  /** The buffer every section handed out views (see `arrayFor`); undefined until the first, null when it could not be made. */
  private arena: ArrayBuffer | null | undefined = undefined;
  /** Where each section handed out lies in the arena: its offset in the body, less the sections left out before it. */
  private readonly arenaOffsets = new Map<string, number>();
  /** Sections read apart from the others (see `readApart`): the arena leaves no room for them. */
  private readonly keptOut = new Set<string>();
  private opening = true;

  private constructor(
    readonly header: Record<string, unknown>,
    private readonly file: SnapshotFile,
    private readonly bodyStart: number,
    private readonly table: Record<string, Entry>,
    private readonly crcs: Uint32Array,
  ) {
    CLOSE_WHEN_COLLECTED.register(this, file, this);
  }

  /** Validates the preamble, header and block checksums of `file`; throws SnapshotRejected saying what is wrong (and closes it). */
  static open(file: SnapshotFile): SnapshotReader {
    try {
      return SnapshotReader.openHeader(file);
    } catch (error) {
      file.close();
      if (error instanceof SnapshotRejected) throw error;
      throw new SnapshotRejected(`it could not be read (${(error as Error).message})`);
    }
  }

  private static openHeader(file: SnapshotFile): SnapshotReader {
    const preamble = Buffer.alloc(PREAMBLE);
    if (file.byteLength >= PREAMBLE) file.read(preamble, 0);
    const magic = preamble.toString('latin1', 0, 8);
    if (OLDER_MAGIC.test(magic)) throw new SnapshotRejected(`it is stale (an older layout, ${magic})`);
    if (file.byteLength < PREAMBLE || magic !== MAGIC) throw new SnapshotRejected('not an index snapshot of this format');
    const fileLength = preamble.readDoubleLE(16);
    if (fileLength !== file.byteLength) throw new SnapshotRejected(`truncated (${file.byteLength} of ${fileLength} bytes)`);
    const length = preamble.readUInt32LE(8);
    if (PREAMBLE + length > file.byteLength) throw new SnapshotRejected('header checksum mismatch (corrupt)');
    const json = Buffer.alloc(length);
    file.read(json, PREAMBLE);
    let crc = crc32(json, crc32(preamble.subarray(16)));
    let header: Record<string, unknown>;
    try {
      header = JSON.parse(json.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new SnapshotRejected('header checksum mismatch (corrupt)');
    }
    const blocks = header['blocks'];
    const bodyStart = align8(PREAMBLE + length);
    if (typeof blocks !== 'number' || !(blocks >= 0) || bodyStart + blocks * 4 > file.byteLength) throw new SnapshotRejected('header checksum mismatch (corrupt)');
    const crcs = new Uint32Array(blocks);
    file.read(bytesOf(crcs), bodyStart);
    crc = crc32(bytesOf(crcs), crc);
    if (crc !== preamble.readUInt32LE(12)) throw new SnapshotRejected('header checksum mismatch (corrupt)');
    return new SnapshotReader(header, file, bodyStart, header['sections'] as Record<string, Entry>, crcs);
  }

  /**
   * Says, before the first section is handed out, which sections are read apart from the others: only with
   * `readInto` (into memory of their own, such as a kernel's), or late if at all (a `deferred` read, a lazy list
   * of strings): the buffer the others view then leaves no room for them, and each gets an array of its own when
   * first read (room allocated and never used still counts towards V8's external memory, whose growth starts
   * garbage collections).
   *
   * @example
   * ```ts
   * reader.readApart(['contexts.bytes']);
   * reader.array('lengths', 'i32'); // a view of a buffer without room for contexts.bytes
   * ```
   */
  readApart(names: readonly string[]): void {
    if (this.arena !== undefined) throw new Error('readApart comes before the first section is read');
    for (const name of names) this.keptOut.add(name);
  }

  /** True when the snapshot holds a section of this name. */
  has(name: string): boolean {
    return this.table[name] !== undefined;
  }

  /**
   * The kind a section was written as (undefined: no such section), for a section whose width the writer chose
   * from its values (nothing is read).
   *
   * @example
   * ```ts
   * const kind = reader.kindOf('bm25.frequenciesFlat') === 'u8' ? 'u8' : 'u16';
   * ```
   */
  kindOf(name: string): ArrayKind | undefined {
    const kind = this.table[name]?.[0];
    return kind !== undefined && CONSTRUCTORS[kind] !== undefined ? kind : undefined;
  }

  /** A section as a typed array of `kind`, read whole and checked now. */
  array<K extends ArrayKind>(name: string, kind: K): ArrayOf<K> {
    const entry = this.entry(name, kind);
    const array = this.arrayFor(name, entry, kind);
    this.readBlocks(name, entry, bytesOf(array), 0, 0, this.blockCount(entry));
    return array;
  }

  /** Reads a section of `kind` whole into `target` (its length must be the section's), checked: no copy in between. */
  readInto(name: string, kind: ArrayKind, target: Section): void {
    const entry = this.entry(name, kind);
    if (target.length !== entry[2] || kindOf(target) !== kind) throw new SnapshotRejected(`section ${name} is not ${target.length} items long`);
    this.readBlocks(name, entry, bytesOf(target), 0, 0, this.blockCount(entry));
  }

  /** A section of `kind` read block by block as it is used (see LazySection); nothing is read yet. */
  lazy<K extends ArrayKind>(name: string, kind: K): LazySection<ArrayOf<K>> {
    const entry = this.entry(name, kind);
    if (!this.liesInBody(entry)) throw new SnapshotRejected(`section ${name} lies outside the file (corrupt)`);
    const blocks = this.blockCount(entry);
    if (blocks > 0) this.pending++;
    // Its array is made when first used: a section read apart (`readApart`) and never used costs nothing.
    const section: LazySection<ArrayOf<K>> = new LazySection(() => this.arrayFor(name, entry, kind), blocks, (first, end) => {
      this.readBlocks(name, entry, bytesOf(section.array), 0, first, end);
    }, () => this.release(), entry[2], CONSTRUCTORS[kind].BYTES_PER_ELEMENT);
    return section;
  }

  /** A list of strings written by `SnapshotWriter.strings`, read and checked now. */
  strings(name: string): string[] {
    return decodeStrings(this.array(`${name}.ends`, 'i32'), this.array(`${name}.text`, 'u8'));
  }

  /**
   * A list of strings read one by one as they are asked for (see LazyStrings); nothing is read yet. `textInFile`:
   * no array holds the text until `all` is asked for; each string is read from the file with the blocks holding it
   * (checked), for a list of which a process reads a few strings once each (ids: their caller keeps them).
   */
  lazyStringList(name: string, textInFile = false): LazyStrings {
    const ends = this.lazy(`${name}.ends`, 'i32');
    return new LazyStrings(ends, textInFile ? this.bytesInFile(`${name}.text`) : sectionText(this.lazy(`${name}.text`, 'u8')));
  }

  /**
   * A u8 section no array holds until `all` is asked for: `range` reads the blocks holding the bytes asked for
   * from the file (checked) and keeps only those until the next read of other blocks, for a section of which a
   * process reads a few pieces once each (in order, each block is read once).
   *
   * @example
   * ```ts
   * const bytes = reader.bytesInFile('ids.uuids');
   * bytes.range(16 * slot, 16 * slot + 16); // one id's 16 bytes, reading a block or two
   * ```
   */
  bytesInFile(name: string): FileBytes {
    const entry = this.entry(name, 'u8');
    if (!this.liesInBody(entry)) throw new SnapshotRejected(`section ${name} lies outside the file (corrupt)`);
    this.pending++;
    let whole: Uint8Array | null = null;
    let released = false;
    // The blocks read last (checked), kept until the next read of others: reads in order then read each block once.
    let last: { from: number; bytes: Uint8Array } | null = null;
    // The buffer they were read into, reused by the next read that fits in it (a scan of the section in windows
    // makes no garbage): what `range` returns holds until the next call.
    let buffer = new Uint8Array(0);
    return {
      length: entry[2],
      range: (start, end) => {
        if (whole !== null) return whole.subarray(start, end);
        if (last !== null && start >= last.from && end <= last.from + last.bytes.length) return last.bytes.subarray(start - last.from, end - last.from);
        const first = Math.floor(start / BLOCK_BYTES);
        const stop = Math.max(first + 1, Math.ceil(end / BLOCK_BYTES));
        const size = Math.min(stop * BLOCK_BYTES, entry[2]) - first * BLOCK_BYTES;
        if (size > buffer.length) buffer = new Uint8Array(Math.max(size, 2 * buffer.length));
        const bytes = buffer.subarray(0, size);
        last = null; // a read that fails leaves zeros in the buffer
        this.readBlocks(name, entry, bytes, first * BLOCK_BYTES, first, stop);
        last = { from: first * BLOCK_BYTES, bytes };
        return bytes.subarray(start - first * BLOCK_BYTES, end - first * BLOCK_BYTES);
      },
      all: () => {
        if (whole === null) {
          whole = this.array(name, 'u8');
          if (!released) this.release();
          released = true;
        }
        return whole;
      },
      release: () => {
        if (!released) this.release();
        released = true;
      },
    };
  }

  /** A list of strings read (and checked) when the returned function is first called; the file stays open until then. */
  lazyStrings(name: string): () => string[] {
    this.entry(`${name}.ends`, 'i32');
    this.entry(`${name}.text`, 'u8');
    return this.deferred(() => this.strings(name));
  }

  /**
   * Runs `read` (which reads sections of this snapshot whole, with `array` or `strings`) when the returned
   * function is first called, and hands back its result from then on; the file stays open until then. A read that
   * throws (a corrupt block: SnapshotRejected) is tried again at the next call, and throws again.
   *
   * @example
   * ```ts
   * const names = reader.deferred(() => reader.strings('names')); // nothing read yet
   * names(); // read and checked now
   * ```
   */
  deferred<T>(read: () => T): () => T {
    this.pending++;
    let result: { value: T } | null = null;
    return () => {
      if (result === null) {
        result = { value: read() };
        this.release();
      }
      return result.value;
    };
  }

  /** How many strings a list written by `SnapshotWriter.strings` holds (nothing is read). */
  stringCount(name: string): number {
    return this.entry(`${name}.ends`, 'i32')[2];
  }

  /** How many items a section of `kind` holds (nothing is read). */
  itemCount(name: string, kind: ArrayKind): number {
    return this.entry(name, kind)[2];
  }

  /** A number of the header, refusing the snapshot when it is absent. */
  number(name: string): number {
    const value = this.header[name];
    if (typeof value !== 'number') throw new SnapshotRejected(`header field ${name} missing`);
    return value;
  }

  /** Says nothing more is read at open: the file closes now if no section was handed out lazily, else once they are read whole. */
  done(): void {
    this.opening = false;
    if (this.pending === 0) this.close();
  }

  /** Closes the file now (a snapshot refused after it was opened); lazy sections not read whole fail on their next read. */
  close(): void {
    CLOSE_WHEN_COLLECTED.unregister(this);
    this.file.close();
  }

  private release(): void {
    this.pending--;
    if (this.pending === 0 && !this.opening) this.close();
  }

  private entry(name: string, kind: ArrayKind): Entry {
    const entry = this.table[name];
    if (entry === undefined || entry[0] !== kind) throw new SnapshotRejected(`section ${name} missing or not ${kind}`);
    return entry;
  }

  /**
   * The (zeroed) array a section is read into: a view of one buffer laid out as the file's body, made when the
   * first section is handed out. One allocation for every section instead of one each: each large one counts
   * towards V8's external memory, and crossing its limit starts a garbage collection, so forty separate arrays
   * (880 MB at 1M chunks) meant several full collections before the first answer. The buffer's pages are the
   * kernel's zero pages until written, so a section never read costs address space, not memory. Its views keep
   * the whole buffer alive: an index that replaces a section (a write grows it) holds the old one until it is
   * dropped (the cache persists a changed index as a compacted copy, which then replaces it). Sections named to
   * `readApart` have no room in it: each is an array of its own.
   */
  private arrayFor<K extends ArrayKind>(name: string, entry: Entry, kind: K): ArrayOf<K> {
    const Constructor = CONSTRUCTORS[kind];
    const length = entry[2];
    if (!this.liesInBody(entry)) throw new SnapshotRejected(`section ${name} lies outside the file (corrupt)`);
    if (this.arena === undefined) this.arena = this.makeArena();
    const offset = this.arenaOffsets.get(name);
    return (this.arena === null || offset === undefined ? new Constructor(length) : new Constructor(this.arena, offset, length)) as ArrayOf<K>;
  }

  /** True when a section's offset and length lie within the body. */
  private liesInBody(entry: Entry): boolean {
    const [kind, offset, length] = entry;
    const bodyBytes = this.file.byteLength - this.bodyStart;
    return Number.isInteger(length) && length >= 0 && Number.isInteger(offset) && offset >= 0 && offset % 8 === 0 && offset + length * CONSTRUCTORS[kind].BYTES_PER_ELEMENT <= bodyBytes;
  }

  /** The arena: room for every section in the body (but those kept out), in the body's order; null when it cannot be made. */
  private makeArena(): ArrayBuffer | null {
    let bytes = 0;
    const sections = Object.entries(this.table).filter(([name, entry]) => !this.keptOut.has(name) && CONSTRUCTORS[entry[0]] !== undefined && this.liesInBody(entry));
    for (const [name, [kind, , length]] of sections.sort((a, b) => a[1][1] - b[1][1])) {
      this.arenaOffsets.set(name, bytes);
      bytes += align8(length * CONSTRUCTORS[kind].BYTES_PER_ELEMENT);
    }
    try {
      return new ArrayBuffer(bytes);
    } catch {
      return null; // no room for one buffer this large: one array per section
    }
  }

  private blockCount(entry: Entry): number {
    return Math.ceil((entry[2] * CONSTRUCTORS[entry[0]].BYTES_PER_ELEMENT) / BLOCK_BYTES);
  }

  /**
   * Reads blocks [first, end) of a section into `bytes`, which holds the section's bytes from `base` on (0: the
   * whole section's), and checks each.
   */
  private readBlocks(name: string, entry: Entry, bytes: Uint8Array, base: number, first: number, end: number): void {
    if (end <= first) return;
    if (entry[3] + end > this.crcs.length) throw new SnapshotRejected(`section ${name} lies outside the checksums (corrupt)`);
    const sectionBytes = entry[2] * CONSTRUCTORS[entry[0]].BYTES_PER_ELEMENT;
    const from = first * BLOCK_BYTES - base;
    const to = Math.min(end * BLOCK_BYTES, sectionBytes) - base;
    try {
      this.file.read(bytes.subarray(from, to), this.bodyStart + entry[1] + base + from);
    } catch (error) {
      throw new SnapshotRejected(`section ${name} could not be read (${(error as Error).message})`);
    }
    // A run of blocks: one pass over all; only if it fails, block by block (to refuse the section at its bad block).
    const table = entry[3];
    if (end - first >= RUN_CHECK_BLOCKS && crc32(bytes.subarray(from, to)) === crcOfBlocks(this.crcs, table + first, table + end, BLOCK_BYTES, to + base - (end - 1) * BLOCK_BYTES)) return;
    for (let block = first; block < end; block++) {
      const at = block * BLOCK_BYTES - base;
      if (crc32(bytes.subarray(at, Math.min(at + BLOCK_BYTES, to))) !== this.crcs[entry[3] + block]) {
        bytes.fill(0, from, to);
        throw new SnapshotRejected(`section ${name}: checksum mismatch (corrupt)`);
      }
    }
  }
}

/** The strings of a list: `ends` their UTF-8 end offsets in `text`. */
function decodeStrings(ends: Int32Array, text: Uint8Array): string[] {
  const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  const values = new Array<string>(ends.length);
  // ASCII (ids, most terms): one decoding, then slices of it; otherwise one decoding per string.
  const ascii = isAscii(bytes);
  const joined = ascii ? bytes.toString('latin1') : '';
  let start = 0;
  for (let index = 0; index < ends.length; index++) {
    const end = ends[index] as number;
    values[index] = ascii ? joined.slice(start, end) : bytes.toString('utf8', start, end);
    start = end;
  }
  return values;
}

/**
 * A list of strings read on demand: `at(index)` reads (and checks) the blocks holding that string alone; `all()`
 * reads the rest. Throws SnapshotRejected when a block it reads is corrupt.
 *
 * @example
 * ```ts
 * const ids = reader.lazyStringList('ids');
 * ids.at(41); // the id of slot 41, reading a block or two
 * ```
 */
export class LazyStrings {
  constructor(
    private readonly ends: LazySection<Int32Array<ArrayBuffer>>,
    private readonly text: SectionBytes,
  ) {}

  /** How many strings the list holds. */
  get length(): number {
    return this.ends.length;
  }

  /** The string at `index` (0 <= index < length). */
  at(index: number): string {
    this.ends.need(Math.max(0, index - 1), index + 1);
    const start = index === 0 ? 0 : (this.ends.array[index - 1] as number);
    const end = this.ends.array[index] as number;
    if (!(start <= end && end <= this.text.length)) throw new SnapshotRejected('string offsets out of range (corrupt)');
    const text = this.text.range(start, end);
    return Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8');
  }

  /** Every string, in order (reads all that is left). */
  all(): string[] {
    return decodeStrings(this.ends.needAll(), this.text.all());
  }

  /**
   * The indexes of the strings that begin with `prefix`, in order, found by comparing UTF-8 bytes (no string is
   * made of the others); reads all that is left. The text is read a window at a time (`SCAN_BYTES`): a list whose
   * text stays in the file (`lazyStringList(name, true)`) keeps none of it (1M metadata pairs: 16 MB that a filter
   * kept before), one held in a lazy section keeps all of it, as before.
   *
   * @example
   * ```ts
   * names.indexesStartingWith('group\u0000').map((index) => names.at(index));
   * ```
   */
  indexesStartingWith(prefix: string): number[] {
    const ends = this.ends.needAll();
    const length = this.text.length;
    const wanted = Buffer.from(prefix, 'utf8');
    const found: number[] = [];
    // The bytes [from, from + window.length) of the text.
    let window: Uint8Array = new Uint8Array(0);
    let from = 0;
    let start = 0;
    for (let index = 0; index < ends.length; index++) {
      const end = ends[index] as number;
      if (!(start <= end && end <= length)) throw new SnapshotRejected('string offsets out of range (corrupt)');
      if (end - start >= wanted.length) {
        if (start + wanted.length > from + window.length) {
          from = start;
          window = this.text.range(start, Math.min(length, Math.max(start + SCAN_BYTES, end)));
        }
        let same = true;
        for (let at = 0; at < wanted.length && same; at++) same = window[start - from + at] === wanted[at];
        if (same) found.push(index);
      }
      start = end;
    }
    return found;
  }
}

/** The bytes of a u8 section (the UTF-8 text of a list of strings): `range` reads (and checks) some, `all` all of them. */
export interface SectionBytes {
  /** Bytes in the section. */
  readonly length: number;
  /** Bytes [start, end) (0 <= start <= end <= length), read and checked; they may change at the next `range` (use or copy them first). */
  range(start: number, end: number): Uint8Array;
  /** The whole section, read and checked. */
  all(): Uint8Array;
}

/** The bytes of a section read from the file as asked for (`SnapshotReader.bytesInFile`). */
export interface FileBytes extends SectionBytes {
  /** Says no more bytes are asked for: the file may close (once nothing else is to be read from it). */
  release(): void;
}

/** The text of a list held in a lazy section (read into it block by block). */
function sectionText(section: LazySection<Uint8Array<ArrayBuffer>>): SectionBytes {
  return {
    length: section.length,
    range(start, end) {
      section.need(start, end);
      return section.array.subarray(start, end);
    },
    all: () => section.needAll(),
  };
}

/** Closes the file of a reader nobody holds any more (an index dropped before its lazy sections were read whole). */
const CLOSE_WHEN_COLLECTED = new FinalizationRegistry<SnapshotFile>((file) => file.close());

/**
 * A section read on demand: `array` holds the whole section (zeros where nothing is read yet); `need(from, to)`
 * reads and checks the blocks holding items [from, to) that are not read yet, before the caller reads them.
 * Throws SnapshotRejected when a block is corrupt (its items stay zero and are never handed out as data).
 *
 * @example
 * ```ts
 * const vectors = reader.lazy('vectors.data', 'f32');
 * vectors.need(slot * dims, (slot + 1) * dims);
 * vectors.array.subarray(slot * dims, (slot + 1) * dims); // the slot's vector
 * ```
 */
export class LazySection<A extends Section> {
  /** One flag per block: 1 once read and checked. */
  private readonly loaded: Uint8Array;
  private missing: number;
  private readonly itemsPerBlock: number;
  private made: A | null = null;

  /** `allocate` makes the (zeroed) array of the section's `length` items of `itemBytes` bytes when `array` is first asked for. */
  constructor(
    private readonly allocate: () => A,
    blocks: number,
    private readonly readBlocks: (first: number, end: number) => void,
    private readonly onComplete: () => void,
    /** Items in the section. */
    readonly length: number,
    itemBytes: number,
  ) {
    this.loaded = new Uint8Array(blocks);
    this.missing = blocks;
    this.itemsPerBlock = BLOCK_BYTES / itemBytes;
  }

  /** The whole section (zeros where nothing is read yet), made when first asked for. */
  get array(): A {
    this.made ??= this.allocate();
    return this.made;
  }

  /** True once every block is read (`need` then does nothing). */
  get complete(): boolean {
    return this.missing === 0;
  }

  /** Reads the blocks holding items [from, to) that are not read yet. */
  need(from: number, to: number): void {
    if (this.missing === 0 || to <= from) return;
    const first = Math.floor(from / this.itemsPerBlock);
    const end = Math.min(this.loaded.length, Math.ceil(to / this.itemsPerBlock));
    for (let block = first; block < end; block++) {
      if (this.loaded[block] === 1) continue;
      let stop = block + 1;
      while (stop < end && this.loaded[stop] === 0) stop++;
      this.readBlocks(block, stop);
      this.loaded.fill(1, block, stop);
      this.missing -= stop - block;
      block = stop - 1;
    }
    if (this.missing === 0) this.onComplete();
  }

  /** Reads every block not read yet (before the section is changed or written out). */
  needAll(): A {
    this.need(0, this.length);
    return this.array;
  }
}
