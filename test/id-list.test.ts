// Persisted id lists: canonical UUIDs as 16 bytes each, any other list as strings, both read back as written.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { readIdList, writeIdList } from '../src/retrieval/id-list.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotRejected, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

/** `count` canonical UUIDs (version 4 layout) from a fixed seed. */
function uuids(count: number, seed = 7): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  });
}

function written(ids: readonly string[]): { reader: SnapshotReader; bytes: number } {
  const writer = new SnapshotWriter();
  writeIdList(writer, 'ids', ids);
  const bytes = writer.finish({ version: 1 });
  return { reader: SnapshotReader.open(bytesSnapshotFile(bytes)), bytes: bytes.byteLength };
}

describe('persisted id lists', () => {
  it('writes canonical UUIDs as 16 bytes each and reads every one back, one at a time or all at once', () => {
    const ids = uuids(1000);
    const { reader } = written(ids);
    expect(reader.has('ids.uuids')).toBe(true);
    expect(reader.has('ids.ends')).toBe(false);
    expect(reader.itemCount('ids.uuids', 'u8')).toBe(16_000);
    const list = readIdList(reader, 'ids');
    expect(list.length).toBe(1000);
    for (const index of [0, 1, 255, 256, 511, 999]) expect(list.at(index)).toBe(ids[index]);
    expect(list.all()).toEqual(ids);
    expect(() => list.at(1000)).toThrow(RangeError);
  });

  it('is smaller than the same ids as strings', () => {
    const ids = uuids(1000);
    const asStrings = new SnapshotWriter();
    asStrings.strings('ids', ids);
    expect(written(ids).bytes).toBeLessThan(asStrings.finish({ version: 1 }).byteLength - 1000 * 20);
  });

  it.each([
    ['an uppercase UUID', (ids: string[]) => ids.with(3, (ids[3] as string).toUpperCase())],
    ['a UUID without hyphens', (ids: string[]) => ids.with(3, (ids[3] as string).replaceAll('-', ''))],
    ['a caller id', (ids: string[]) => [...ids, 'chunk-7']],
    ['no id', () => []],
  ] as const)('keeps a list with %s as strings, each read back exactly', (_name, change) => {
    const ids = change(uuids(20));
    const { reader } = written(ids);
    expect(reader.has('ids.uuids')).toBe(false);
    const list = readIdList(reader, 'ids');
    expect(list.all()).toEqual(ids);
    ids.forEach((id, index) => expect(list.at(index)).toBe(id));
  });

  it('refuses a UUID section that is not a whole number of ids', () => {
    const writer = new SnapshotWriter();
    writer.array('ids.uuids', new Uint8Array(15));
    const reader = SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 1 })));
    expect(() => readIdList(reader, 'ids')).toThrow(SnapshotRejected);
  });
});
