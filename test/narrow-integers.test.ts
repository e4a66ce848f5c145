// Integer sections at their narrowest width: the kind each set of values gets, and the same values read back.
import { describe, expect, it } from 'vitest';
import { readWidened, writeNarrowest } from '../src/retrieval/narrow-integers.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotRejected, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

function written(values: Int32Array | Float64Array): SnapshotReader {
  const writer = new SnapshotWriter();
  writeNarrowest(writer, 'values', values);
  return SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 1 })));
}

describe('narrowest integer sections', () => {
  it.each([
    ['0..255', Int32Array.of(0, 17, 255), 'u8'],
    ['-1..127 (an absent id)', Int32Array.of(-1, 0, 127), 'i8'],
    ['0..65,535', Int32Array.of(0, 256, 65_535), 'u16'],
    ['-1 and 128', Int32Array.of(-1, 128), 'i32'],
    ['beyond u16', Int32Array.of(0, 65_536), 'i32'],
    ['none', new Int32Array(0), 'u8'],
  ] as const)('writes i32 values %s as %s and reads them back as i32', (_name, values, kind) => {
    const reader = written(values);
    expect(reader.kindOf('values')).toBe(kind);
    const read = readWidened(reader, 'values', 'i32');
    expect(read).toBeInstanceOf(Int32Array);
    expect([...read]).toEqual([...values]);
  });

  it.each([
    ['whole turn positions', Float64Array.of(0, 3, 250), 'u8'],
    ['whole numbers past u16', Float64Array.of(-5, 2 ** 31 - 1), 'i32'],
    ['a fraction', Float64Array.of(1, 2.5), 'f64'],
    ['NaN (no position)', Float64Array.of(1, Number.NaN), 'f64'],
    ['-0', Float64Array.of(1, -0), 'f64'],
    ['2^31', Float64Array.of(0, 2 ** 31), 'f64'],
  ] as const)('writes f64 values with %s as %s and reads back the same bits', (_name, values, kind) => {
    const reader = written(values);
    expect(reader.kindOf('values')).toBe(kind);
    const read = readWidened(reader, 'values', 'f64');
    expect(read).toBeInstanceOf(Float64Array);
    expect(Buffer.from(read.buffer, read.byteOffset, read.byteLength).equals(Buffer.from(values.buffer))).toBe(true);
  });

  it('refuses a section that is not integers or the kind asked for', () => {
    const writer = new SnapshotWriter();
    writer.array('values', Float32Array.of(1, 2));
    const reader = SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 1 })));
    expect(() => readWidened(reader, 'values', 'i32')).toThrow(SnapshotRejected);
    expect(() => readWidened(reader, 'absent', 'f64')).toThrow(SnapshotRejected);
  });
});
