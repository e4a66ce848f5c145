// The snapshot layout: sections read whole or a block at a time, each block checked as it is read, nothing else read.
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import type { SnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotRejected, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

/** A file over `bytes` that records the byte ranges read and whether it was closed. */
function recordingFile(bytes: Uint8Array): SnapshotFile & { reads: [number, number][]; closed: boolean } {
  const inner = bytesSnapshotFile(bytes);
  const file = {
    reads: [] as [number, number][],
    closed: false,
    byteLength: inner.byteLength,
    read(target: Uint8Array, position: number) {
      file.reads.push([position, position + target.byteLength]);
      inner.read(target, position);
    },
    close() {
      file.closed = true;
    },
  };
  return file;
}

function snapshot(): Buffer {
  const writer = new SnapshotWriter();
  writer.array('small', new Int32Array([3, 5, 8]));
  writer.array('rows', Float32Array.from({ length: 10_000 }, (_, index) => index / 7));
  writer.strings('names', ['Mira', 'Kaël', '']);
  return writer.finish({ version: 4 });
}

describe('snapshot layout', () => {
  it('reads a lazy section a block at a time, only the blocks asked for, and closes the file once all is read', () => {
    const file = recordingFile(snapshot());
    const reader = SnapshotReader.open(file);
    expect(reader.header['version']).toBe(4);
    expect([...reader.array('small', 'i32')]).toEqual([3, 5, 8]);
    const names = reader.lazyStrings('names');
    const rows = reader.lazy('rows', 'f32');
    reader.done();
    const before = file.reads.length;
    rows.need(5000, 5010);
    expect(file.reads.slice(before).map(([from, to]) => to - from)).toEqual([4096]);
    expect(rows.array[5003]).toBe(Math.fround(5003 / 7));
    expect(rows.array[0]).toBe(0);
    rows.need(5001, 5002);
    expect(file.reads.length).toBe(before + 1);
    expect(rows.complete).toBe(false);
    expect([...rows.needAll()]).toEqual(Array.from({ length: 10_000 }, (_, index) => Math.fround(index / 7)));
    expect(file.closed).toBe(false);
    expect(names()).toEqual(['Mira', 'Kaël', '']);
    expect(file.closed).toBe(true);
  });

  it('reads one string of a list without the others, UTF-8 or not, and the whole list alike', () => {
    const writer = new SnapshotWriter();
    const ascii = Array.from({ length: 3000 }, (_, index) => `chunk-${index}`);
    const mixed = ['Kaël', 'Mira', '', 'æsir 🐉', 'ash'];
    writer.strings('ascii', ascii);
    writer.strings('mixed', mixed);
    const file = recordingFile(writer.finish({}));
    const reader = SnapshotReader.open(file);
    const ids = reader.lazyStringList('ascii');
    const before = file.reads.length;
    expect(ids.at(2500)).toBe('chunk-2500');
    expect(file.reads.slice(before).every(([from, to]) => to - from <= 4096)).toBe(true);
    expect(ids.all()).toEqual(ascii);
    const names = reader.lazyStringList('mixed');
    expect(mixed.map((_, index) => names.at(index))).toEqual(mixed);
    expect(names.all()).toEqual(mixed);
    expect(reader.strings('mixed')).toEqual(mixed);
  });

  it('refuses a corrupt block where it is read, leaving its items unread, and a corrupt header at open', () => {
    const bytes = snapshot();
    const reader = SnapshotReader.open(bytesSnapshotFile(bytes));
    const sections = reader.header['sections'] as Record<string, [string, number, number]>;
    const bodyStart = Math.ceil((24 + bytes.readUInt32LE(8)) / 8) * 8;
    const damaged = Buffer.from(bytes);
    const at = bodyStart + (sections['rows'] as [string, number, number])[1] + 3 * 4096 + 100;
    damaged[at] = (damaged[at] as number) ^ 1;
    const rows = SnapshotReader.open(bytesSnapshotFile(damaged)).lazy('rows', 'f32');
    rows.need(0, 1024);
    expect(rows.array[1000]).toBe(Math.fround(1000 / 7));
    expect(() => rows.need(3 * 1024, 3 * 1024 + 1)).toThrow(SnapshotRejected);
    expect(() => rows.need(3 * 1024 + 30, 3 * 1024 + 31)).toThrow(/rows: checksum mismatch/);
    expect(rows.array[3 * 1024 + 30]).toBe(0);
    const header = Buffer.from(bytes);
    header[30] = (header[30] as number) ^ 1;
    expect(() => SnapshotReader.open(bytesSnapshotFile(header))).toThrow(/header checksum mismatch/);
    expect(() => SnapshotReader.open(bytesSnapshotFile(bytes.subarray(0, bytes.length - 1)))).toThrow(/truncated/);
  });

  it('checks a run of blocks read at once in one pass, and still refuses it for one bad block in the run', () => {
    const writer = new SnapshotWriter();
    writer.array('large', Int32Array.from({ length: 100_003 }, (_, index) => Math.imul(index, 2654435761)));
    const bytes = writer.finish({ version: 4 });
    const expected = Int32Array.from({ length: 100_003 }, (_, index) => Math.imul(index, 2654435761));
    expect(SnapshotReader.open(bytesSnapshotFile(bytes)).array('large', 'i32')).toEqual(expected);
    const lazy = SnapshotReader.open(bytesSnapshotFile(bytes)).lazy('large', 'i32');
    lazy.need(5000, 60_000);
    expect(lazy.array.subarray(5000, 60_000)).toEqual(expected.subarray(5000, 60_000));
    const sections = SnapshotReader.open(bytesSnapshotFile(bytes)).header['sections'] as Record<string, [string, number, number]>;
    const bodyStart = Math.ceil((24 + bytes.readUInt32LE(8)) / 8) * 8;
    for (const at of [0, 50 * 4096 + 7, 100_003 * 4 - 1]) {
      const damaged = Buffer.from(bytes);
      const position = bodyStart + (sections['large'] as [string, number, number])[1] + at;
      damaged[position] = (damaged[position] as number) ^ 0x10;
      expect(() => SnapshotReader.open(bytesSnapshotFile(damaged)).array('large', 'i32')).toThrow(/large: checksum mismatch/);
    }
  });

  it('hands out every section as a view of one buffer, and refuses a section the table places outside the file', () => {
    const bytes = snapshot();
    const reader = SnapshotReader.open(bytesSnapshotFile(bytes));
    const small = reader.array('small', 'i32');
    const rows = reader.lazy('rows', 'f32');
    expect(rows.array.buffer).toBe(small.buffer);
    expect(small.buffer.byteLength).toBeLessThan(bytes.byteLength);
    expect([...small]).toEqual([3, 5, 8]);
    expect(rows.needAll()[9999]).toBe(Math.fround(9999 / 7));
    expect(reader.strings('names')).toEqual(['Mira', 'Kaël', '']);
    // A header whose checksum holds but whose table makes 'rows' run past the end (a foreign or buggy writer).
    const length = bytes.readUInt32LE(8);
    const json = JSON.parse(bytes.toString('utf8', 24, 24 + length)) as { sections: Record<string, [string, number, number, number]> };
    const rowsEntry = json.sections['rows'] as [string, number, number, number];
    const moved = JSON.stringify({ ...json, sections: { ...json.sections, rows: [rowsEntry[0], rowsEntry[1], 99_999, rowsEntry[3]] } });
    expect(Buffer.byteLength(moved)).toBe(length);
    const forged = Buffer.from(bytes);
    forged.write(moved, 24, 'utf8');
    const bodyStart = Math.ceil((24 + length) / 8) * 8;
    const blocks = (json as unknown as { blocks: number }).blocks;
    const crc = zlib.crc32(forged.subarray(bodyStart, bodyStart + blocks * 4), zlib.crc32(forged.subarray(24, 24 + length), zlib.crc32(forged.subarray(16, 24))));
    forged.writeUInt32LE(crc, 12);
    const foreign = SnapshotReader.open(bytesSnapshotFile(forged));
    expect([...foreign.array('small', 'i32')]).toEqual([3, 5, 8]);
    expect(() => foreign.lazy('rows', 'f32')).toThrow(/rows lies outside the file/);
  });

  it('leaves no room in that buffer for a section read only into memory of its own', () => {
    const bytes = snapshot();
    const whole = SnapshotReader.open(bytesSnapshotFile(bytes)).array('small', 'i32').buffer.byteLength;
    const reader = SnapshotReader.open(bytesSnapshotFile(bytes));
    reader.readApart(['rows']);
    const small = reader.array('small', 'i32');
    expect(whole - small.buffer.byteLength).toBe(40_000);
    const rows = new Float32Array(10_000);
    reader.readInto('rows', 'f32', rows);
    expect(rows[9999]).toBe(Math.fround(9999 / 7));
    expect(reader.strings('names')).toEqual(['Mira', 'Kaël', '']);
    expect([...small]).toEqual([3, 5, 8]);
    expect(() => reader.readApart(['names.text'])).toThrow(/before the first section/);
    // A lazy section read apart has an array of its own, made at its first use.
    const late = SnapshotReader.open(bytesSnapshotFile(bytes));
    late.readApart(['rows', 'names.ends', 'names.text']);
    const names = late.lazyStringList('names');
    const lateRows = late.lazy('rows', 'f32');
    expect(late.array('small', 'i32').buffer.byteLength).toBe(16);
    expect(names.length).toBe(3);
    expect(names.at(1)).toBe('Kaël');
    lateRows.need(9999, 10_000);
    expect(lateRows.array.buffer.byteLength).toBe(40_000);
    expect(lateRows.array[9999]).toBe(Math.fround(9999 / 7));
  });

  it('reads a string of a list whose text no array holds from the blocks holding it, checked, and the whole text on all()', () => {
    const values = Array.from({ length: 3000 }, (_, index) => `id-${index}-${'é'.repeat(index % 7)}`);
    const writer = new SnapshotWriter();
    writer.strings('ids', values);
    const bytes = writer.finish({ version: 4 });
    const file = recordingFile(bytes);
    const reader = SnapshotReader.open(file);
    reader.readApart(['ids.ends', 'ids.text']);
    const ids = reader.lazyStringList('ids', true);
    reader.done();
    expect(ids.length).toBe(3000);
    file.reads.length = 0;
    for (const index of [0, 1, 1500, 2999]) expect(ids.at(index)).toBe(values[index]);
    // Each string's blocks only: a block of the ends and a block or two of the text each.
    expect(file.reads.length).toBeLessThanOrEqual(4 * 3);
    expect(file.reads.every(([from, to]) => to - from <= 2 * 4096)).toBe(true);
    expect(ids.all()).toEqual(values);
    expect(file.closed).toBe(true);
    const sections = reader.header['sections'] as Record<string, [string, number, number]>;
    const bodyStart = Math.ceil((24 + bytes.readUInt32LE(8)) / 8) * 8;
    const damaged = Buffer.from(bytes);
    const at = bodyStart + (sections['ids.text'] as [string, number, number])[1] + 4096 + 5;
    damaged[at] = (damaged[at] as number) ^ 1;
    const bad = SnapshotReader.open(bytesSnapshotFile(damaged)).lazyStringList('ids', true);
    expect(bad.at(0)).toBe(values[0]);
    let threw = 0;
    for (let index = 0; index < 3000; index++) {
      try {
        expect(bad.at(index)).toBe(values[index]);
      } catch (error) {
        expect(error).toBeInstanceOf(SnapshotRejected);
        threw++;
      }
    }
    // Only the strings with a byte in the damaged block are refused (a block holds a few hundred).
    expect(threw).toBeGreaterThan(0);
    expect(threw).toBeLessThan(500);
  });

  it('reads pieces of a section no array holds each block once when asked in order, and refuses a damaged block after a good one', () => {
    const bytes = Uint8Array.from({ length: 3 * 4096 }, (_, index) => (index * 31) % 251);
    const writer = new SnapshotWriter();
    writer.array('uuids', bytes);
    const written = writer.finish({ version: 4 });
    const file = recordingFile(written);
    const reader = SnapshotReader.open(file);
    reader.readApart(['uuids']);
    const section = reader.bytesInFile('uuids');
    reader.done();
    file.reads.length = 0;
    // Three pieces of the first block, then one of the second: two reads, each of one block.
    for (const start of [32, 0, 4080]) expect([...section.range(start, start + 16)]).toEqual([...bytes.subarray(start, start + 16)]);
    expect(file.reads.length).toBe(1);
    expect([...section.range(4096, 4112)]).toEqual([...bytes.subarray(4096, 4112)]);
    expect(file.reads.length).toBe(2);
    // The first block again: read again (only the last read is kept), and checked again.
    expect([...section.range(16, 32)]).toEqual([...bytes.subarray(16, 32)]);
    expect(file.reads.length).toBe(3);
    expect(file.reads.every(([from, to]) => to - from === 4096)).toBe(true);
    const sections = reader.header['sections'] as Record<string, [string, number, number]>;
    const bodyStart = Math.ceil((24 + written.readUInt32LE(8)) / 8) * 8;
    const damaged = Buffer.from(written);
    const at = bodyStart + (sections['uuids'] as [string, number, number])[1] + 4096 + 100;
    damaged[at] = (damaged[at] as number) ^ 1;
    const bad = SnapshotReader.open(bytesSnapshotFile(damaged)).bytesInFile('uuids');
    expect([...bad.range(0, 16)]).toEqual([...bytes.subarray(0, 16)]);
    expect(() => bad.range(4096, 4112)).toThrow(SnapshotRejected);
    // The good block read before is still handed out; the damaged one never is.
    expect([...bad.range(8192, 8208)]).toEqual([...bytes.subarray(8192, 8208)]);
    expect(() => bad.range(4200, 4216)).toThrow(SnapshotRejected);
  });

  it('reads pieces of a section no array holds into one buffer reused by the reads that fit, each piece right when handed out, and after a damaged read', () => {
    const bytes = Uint8Array.from({ length: 5 * 4096 }, (_, index) => (index * 37) % 253);
    const writer = new SnapshotWriter();
    writer.array('uuids', bytes);
    const written = writer.finish({ version: 4 });
    const expectPiece = (section: ReturnType<SnapshotReader['bytesInFile']>, start: number, end: number) => expect([...section.range(start, end)]).toEqual([...bytes.subarray(start, end)]);
    const section = SnapshotReader.open(bytesSnapshotFile(written)).bytesInFile('uuids');
    // Two blocks, then one (into the same buffer), then three (a larger one), then pieces of blocks read before.
    for (const [start, end] of [[0, 8192], [12_288, 12_300], [4096, 16_384], [10, 20], [20_000, 20_480], [8190, 8200]] as const) expectPiece(section, start, end);
    const sections = SnapshotReader.open(bytesSnapshotFile(written)).header['sections'] as Record<string, [string, number, number]>;
    const bodyStart = Math.ceil((24 + written.readUInt32LE(8)) / 8) * 8;
    const damaged = Buffer.from(written);
    const at = bodyStart + (sections['uuids'] as [string, number, number])[1] + 2 * 4096 + 7;
    damaged[at] = (damaged[at] as number) ^ 1;
    const bad = SnapshotReader.open(bytesSnapshotFile(damaged)).bytesInFile('uuids');
    expectPiece(bad, 0, 8192);
    expect(() => bad.range(4096, 12_288)).toThrow(SnapshotRejected);
    // The failed read zeroed the buffer the first read had been kept in: those blocks are read again, not handed out as zeros.
    expectPiece(bad, 0, 16);
    expectPiece(bad, 4096, 4200);
  });

  it('defers a whole read to its first call, keeping the file open until then', () => {
    const file = recordingFile(snapshot());
    const reader = SnapshotReader.open(file);
    const small = reader.deferred(() => [...reader.array('small', 'i32')]);
    reader.done();
    expect(file.closed).toBe(false);
    const before = file.reads.length;
    expect(small()).toEqual([3, 5, 8]);
    expect(file.reads.length).toBe(before + 1);
    expect(file.closed).toBe(true);
    expect(small()).toEqual([3, 5, 8]);
    expect(file.reads.length).toBe(before + 1);
  });
});
