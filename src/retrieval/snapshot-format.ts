// The byte layout of a persisted index: a checksummed header, named typed-array sections 8-byte aligned, read back as views.
import * as zlib from 'node:zlib';
import { runSteps } from '../core/time-slice.js';
import type { Steps } from '../core/time-slice.js';

/** CRC-32 (zlib's, native from Node 20.15; a table-driven JS one before that gives the same number). */
const crc32: (data: Uint8Array, value?: number) => number = typeof zlib.crc32 === 'function' ? (data, value = 0) => zlib.crc32(data, value) : jsCrc32;

let crcTable: Int32Array | null = null;

/** CRC-32 of `data`, continuing from `value` (the CRC-32 of the bytes before it). */
function jsCrc32(data: Uint8Array, value = 0): number {
  if (crcTable === null) {
    crcTable = new Int32Array(256);
    for (let byte = 0; byte < 256; byte++) {
      let value = byte;
      for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
      crcTable[byte] = value;
    }
  }
  let crc = value ^ -1;
  for (let index = 0; index < data.length; index++) crc = (crcTable[(crc ^ (data[index] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** A lone surrogate (UTF-8 cannot carry it: it would come back as U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first 8 bytes of every snapshot. A change of layout or of what an index holds changes the last character (2: metadata fields). */
const MAGIC = 'MNEMOIX2';
/** Magic (8), header length (u32), CRC-32 of everything after byte 16 (u32), file length (f64). */
const PREAMBLE = 24;
/** Bytes checksummed between two pauses of `finishSteps` (about a millisecond of native CRC-32). */
const CRC_STEP_BYTES = 1 << 20;
/** The padding after a section (up to 7 zero bytes, to the next 8-byte boundary). */
const ZEROS = new Uint8Array(8);

type ArrayKind = 'i32' | 'u8' | 'u16' | 'f32' | 'f64' | 'i8';
type Section = Int32Array | Uint8Array | Uint16Array | Float32Array | Float64Array | Int8Array;

const CONSTRUCTORS = {
  i32: Int32Array,
  u8: Uint8Array,
  u16: Uint16Array,
  f32: Float32Array,
  f64: Float64Array,
  i8: Int8Array,
} as const;

function kindOf(array: Section): ArrayKind {
  if (array instanceof Int32Array) return 'i32';
  if (array instanceof Uint8Array) return 'u8';
  if (array instanceof Uint16Array) return 'u16';
  if (array instanceof Float32Array) return 'f32';
  if (array instanceof Float64Array) return 'f64';
  return 'i8';
}

/** Why a snapshot could not be used: read back by the cache to say so once in the log. */
export class SnapshotRejected extends Error {}

/**
 * Collects the sections of a snapshot and lays them out as bytes.
 *
 * @example
 * ```ts
 * const writer = new SnapshotWriter();
 * writer.array('lengths', new Int32Array([3, 5]));
 * writer.strings('ids', ['a', 'b']);
 * const bytes = writer.finish({ version: 4 });
 * ```
 */
export class SnapshotWriter {
  private readonly sections: { name: string; kind: ArrayKind; bytes: Uint8Array; length: number }[] = [];

  /** Adds a typed array (its current view: only its `length` items are written). */
  array(name: string, array: Section): void {
    this.sections.push({ name, kind: kindOf(array), bytes: new Uint8Array(array.buffer, array.byteOffset, array.byteLength), length: array.length });
  }

  /** Adds a list of strings (UTF-8, with their UTF-16 offsets). Fails on a string that UTF-8 cannot carry (a lone surrogate). */
  strings(name: string, values: readonly string[]): void {
    const joined = values.join('');
    if (LONE_SURROGATE.test(joined)) throw new SnapshotRejected(`${name}: a string holds a lone surrogate`);
    const ends = new Int32Array(values.length);
    let end = 0;
    values.forEach((value, index) => (ends[index] = end += value.length));
    this.array(`${name}.ends`, ends);
    this.array(`${name}.text`, new Uint8Array(Buffer.from(joined, 'utf8')));
  }

  /** The whole snapshot: preamble, header (`header` plus the section table) and the sections, checksummed. */
  finish(header: Record<string, unknown>): Buffer {
    return Buffer.concat(runSteps(this.finishSteps(header)));
  }

  /**
   * The bytes `finish` makes, as pieces to write in order (the preamble and header, then each section and its
   * padding), checksummed in steps for `runStepsSliced`. The sections are not copied: the pieces view the arrays
   * given, so write them before those change.
   */
  *finishSteps(header: Record<string, unknown>): Steps<Uint8Array[]> {
    const table: Record<string, [ArrayKind, number, number]> = {};
    let offset = 0;
    for (const section of this.sections) {
      table[section.name] = [section.kind, offset, section.length];
      offset += Math.ceil(section.bytes.byteLength / 8) * 8;
    }
    const json = Buffer.from(JSON.stringify({ ...header, sections: table }), 'utf8');
    const bodyStart = Math.ceil((PREAMBLE + json.byteLength) / 8) * 8;
    const head = Buffer.alloc(bodyStart);
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(json.byteLength, 8);
    head.writeDoubleLE(bodyStart + offset, 16);
    json.copy(head, PREAMBLE);
    const pieces: Uint8Array[] = [head];
    let crc = crc32(head.subarray(16));
    for (const section of this.sections) {
      const { bytes } = section;
      for (let at = 0; at < bytes.byteLength; at += CRC_STEP_BYTES) {
        yield;
        crc = crc32(bytes.subarray(at, at + CRC_STEP_BYTES), crc);
      }
      const padding = ZEROS.subarray(0, Math.ceil(bytes.byteLength / 8) * 8 - bytes.byteLength);
      crc = crc32(padding, crc);
      for (const piece of [bytes, padding]) if (piece.byteLength > 0) pieces.push(piece);
    }
    head.writeUInt32LE(crc, 12);
    return pieces;
  }
}

/**
 * Reads a snapshot written by `SnapshotWriter`: checks its magic, length and checksum first (a half-written or
 * corrupt file is refused whole), then hands out its sections as views of the bytes (no copy).
 *
 * @example
 * ```ts
 * const reader = SnapshotReader.open(readFileSync(path));
 * reader.header['version']; // 4
 * reader.array('lengths', 'i32'); // Int32Array [3, 5]
 * ```
 */
export class SnapshotReader {
  private constructor(
    readonly header: Record<string, unknown>,
    private readonly bytes: Buffer,
    private readonly bodyStart: number,
    private readonly table: Record<string, [ArrayKind, number, number]>,
  ) {}

  /** Validates `bytes` as a whole snapshot; throws SnapshotRejected saying what is wrong. */
  static open(given: Buffer): SnapshotReader {
    if (given.byteLength < PREAMBLE || given.toString('latin1', 0, 8) !== MAGIC) throw new SnapshotRejected('not an index snapshot of this format');
    if (given.readDoubleLE(16) !== given.byteLength) throw new SnapshotRejected(`truncated (${given.byteLength} of ${given.readDoubleLE(16)} bytes)`);
    if (crc32(given.subarray(16)) !== given.readUInt32LE(12)) throw new SnapshotRejected('checksum mismatch (corrupt)');
    // Views of 8-byte values need an 8-byte aligned start; a small file read into Node's pool may not have one.
    const bytes = given.byteOffset % 8 === 0 ? given : Buffer.from(new Uint8Array(given));
    const length = bytes.readUInt32LE(8);
    const header = JSON.parse(bytes.toString('utf8', PREAMBLE, PREAMBLE + length)) as Record<string, unknown>;
    const table = header['sections'] as Record<string, [ArrayKind, number, number]>;
    return new SnapshotReader(header, bytes, Math.ceil((PREAMBLE + length) / 8) * 8, table);
  }

  /** True when the snapshot holds a section of this name. */
  has(name: string): boolean {
    return this.table[name] !== undefined;
  }

  /** A section as a typed array of `kind`, viewing the snapshot's bytes. */
  array<K extends ArrayKind>(name: string, kind: K): InstanceType<(typeof CONSTRUCTORS)[K]> {
    const entry = this.table[name];
    if (entry === undefined || entry[0] !== kind) throw new SnapshotRejected(`section ${name} missing or not ${kind}`);
    const Constructor = CONSTRUCTORS[kind];
    return new Constructor(this.bytes.buffer as ArrayBuffer, this.bytes.byteOffset + this.bodyStart + entry[1], entry[2]) as InstanceType<(typeof CONSTRUCTORS)[K]>;
  }

  /** A list of strings written by `SnapshotWriter.strings`. */
  strings(name: string): string[] {
    const ends = this.array(`${name}.ends`, 'i32');
    const text = this.array(`${name}.text`, 'u8');
    const joined = Buffer.from(text.buffer as ArrayBuffer, text.byteOffset, text.byteLength).toString('utf8');
    const values = new Array<string>(ends.length);
    let start = 0;
    for (let index = 0; index < ends.length; index++) {
      const end = ends[index] as number;
      values[index] = joined.slice(start, end);
      start = end;
    }
    return values;
  }

  /** How many strings a list written by `SnapshotWriter.strings` holds (nothing is decoded). */
  stringCount(name: string): number {
    return this.array(`${name}.ends`, 'i32').length;
  }

  /** A number of the header, refusing the snapshot when it is absent. */
  number(name: string): number {
    const value = this.header[name];
    if (typeof value !== 'number') throw new SnapshotRejected(`header field ${name} missing`);
    return value;
  }
}
