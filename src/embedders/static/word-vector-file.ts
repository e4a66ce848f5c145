// The compact word-vector file: a checked header, then words, ranks, scales and int8 values, read in one go.
import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import { WordVectorTable } from './word-vector-table.js';
import type { WordVectorTableData } from './word-vector-table.js';

const MAGIC = 'MNEMOWV1';
/** Bumped whenever the layout or the conversion changes, so older files are rebuilt. */
export const WORD_VECTOR_FORMAT = 1;

/** What the header of a compact file says. */
export interface WordVectorFileHeader {
  format: number;
  source: string;
  dimensions: number;
  rows: number;
  vocabularySize: number;
  wordsBytes: number;
  /** sha256 of everything after the header, hex. */
  sha256: string;
}

const align4 = (value: number) => (value + 3) & ~3;

/**
 * Encodes a table into the compact file's bytes, little-endian.
 *
 * @example
 * ```ts
 * writeFileSync(path, encodeWordVectorFile(table));
 * ```
 */
export function encodeWordVectorFile(table: WordVectorTableData): Buffer {
  if (endianness() !== 'LE') throw new Error('compact word vectors are written on little-endian machines only');
  const rows = table.words.length;
  const words = Buffer.from(table.words.join('\n'), 'utf8');
  const wordsEnd = align4(words.length);
  const payload = Buffer.alloc(wordsEnd + rows * 4 + rows * 4 + rows * table.dimensions);
  words.copy(payload, 0);
  Buffer.from(table.ranks.buffer, table.ranks.byteOffset, rows * 4).copy(payload, wordsEnd);
  Buffer.from(table.scales.buffer, table.scales.byteOffset, rows * 4).copy(payload, wordsEnd + rows * 4);
  Buffer.from(table.values.buffer, table.values.byteOffset, rows * table.dimensions).copy(payload, wordsEnd + rows * 8);
  const header: WordVectorFileHeader = {
    format: WORD_VECTOR_FORMAT,
    source: table.source,
    dimensions: table.dimensions,
    rows,
    vocabularySize: table.vocabularySize,
    wordsBytes: words.length,
    sha256: createHash('sha256').update(payload).digest('hex'),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(align4(12 + headerBytes.length));
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headerBytes.length, 8);
  headerBytes.copy(prefix, 12);
  return Buffer.concat([prefix, payload]);
}

/** Why a file could not be read: the caller rebuilds it. */
export class CorruptWordVectorFile extends Error {}

/**
 * Decodes and verifies a compact file (magic, format, sizes, sha256). Throws CorruptWordVectorFile when any
 * check fails.
 *
 * @example
 * ```ts
 * const { table, header } = decodeWordVectorFile(readFileSync(path));
 * ```
 */
export function decodeWordVectorFile(bytes: Buffer): { table: WordVectorTable; header: WordVectorFileHeader } {
  if (bytes.length < 12 || bytes.toString('latin1', 0, 8) !== MAGIC) throw new CorruptWordVectorFile('not a Mnemo word-vector file');
  const headerLength = bytes.readUInt32LE(8);
  if (12 + headerLength > bytes.length) throw new CorruptWordVectorFile('truncated header');
  let header: WordVectorFileHeader;
  try {
    header = JSON.parse(bytes.toString('utf8', 12, 12 + headerLength)) as WordVectorFileHeader;
  } catch {
    throw new CorruptWordVectorFile('unreadable header');
  }
  if (header.format !== WORD_VECTOR_FORMAT) throw new CorruptWordVectorFile(`format ${header.format}, expected ${WORD_VECTOR_FORMAT}`);
  const { rows, dimensions } = header;
  const start = align4(12 + headerLength);
  const wordsEnd = align4(header.wordsBytes);
  const expected = start + wordsEnd + rows * 8 + rows * dimensions;
  if (bytes.length !== expected) throw new CorruptWordVectorFile(`size ${bytes.length}, expected ${expected}`);
  if (endianness() !== 'LE') throw new CorruptWordVectorFile('this machine is big-endian');
  const payload = new Uint8Array(bytes.length - start);
  payload.set(bytes.subarray(start));
  if (createHash('sha256').update(payload).digest('hex') !== header.sha256) throw new CorruptWordVectorFile('checksum mismatch');
  const words = rows === 0 ? [] : Buffer.from(payload.buffer, 0, header.wordsBytes).toString('utf8').split('\n');
  if (words.length !== rows) throw new CorruptWordVectorFile(`${words.length} words, expected ${rows}`);
  const data: WordVectorTableData = {
    source: header.source,
    dimensions,
    vocabularySize: header.vocabularySize,
    words,
    ranks: new Uint32Array(payload.buffer, wordsEnd, rows),
    scales: new Float32Array(payload.buffer, wordsEnd + rows * 4, rows),
    values: new Int8Array(payload.buffer, wordsEnd + rows * 8, rows * dimensions),
  };
  return { table: new WordVectorTable(data), header };
}
