// DocumentIds: ids held as 16 bytes while they are canonical UUIDs, as strings once one is not, written as writeIdList writes them.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { DocumentIds } from '../src/retrieval/document-ids.js';
import { writeIdList } from '../src/retrieval/id-list.js';
import { SnapshotWriter } from '../src/retrieval/snapshot-format.js';

/** `count` canonical UUIDs from a fixed seed. */
function uuids(count: number, seed = 3): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  });
}

/** The snapshot bytes of `write` (a writer's one list of ids). */
function bytesOf(write: (writer: SnapshotWriter) => void): Buffer {
  const writer = new SnapshotWriter();
  write(writer);
  return writer.finish({ version: 1 });
}

describe('DocumentIds', () => {
  it('gives back every UUID set, and writes the bytes writeIdList writes', () => {
    const list = uuids(300);
    const ids = new DocumentIds();
    ids.reserve(100);
    list.forEach((id, slot) => ids.set(slot, id));
    expect(ids.length).toBe(300);
    expect(ids.all()).toEqual(list);
    expect(ids.get(299)).toBe(list[299]);
    expect(ids.get(300)).toBeUndefined();
    // Overwritten in place.
    ids.set(7, list[8] as string);
    expect(ids.get(7)).toBe(list[8]);
    const expected = list.with(7, list[8] as string);
    expect(bytesOf((writer) => ids.writeState(writer, 'ids')).equals(bytesOf((writer) => writeIdList(writer, 'ids', expected)))).toBe(true);
  });

  it.each([
    ['an uppercase UUID', (id: string) => id.toUpperCase()],
    ['a caller id', () => 'chunk-7'],
  ] as const)('turns into strings at %s, keeping every id, and writes them as writeIdList does', (_name, change) => {
    const list = uuids(50);
    const ids = new DocumentIds();
    list.forEach((id, slot) => ids.set(slot, id));
    const odd = change(list[20] as string);
    // Over a UUID first (the bytes it began to write are not kept), then appended.
    ids.set(5, odd);
    ids.set(50, odd);
    ids.set(51, list[3] as string);
    const expected = [...list.with(5, odd), odd, list[3] as string];
    expect(ids.all()).toEqual(expected);
    expect(bytesOf((writer) => ids.writeState(writer, 'ids')).equals(bytesOf((writer) => writeIdList(writer, 'ids', expected)))).toBe(true);
  });

  it('holds the slots of a persisted copy unset until each is read, and the ids added after them', () => {
    const ids = DocumentIds.unset(3);
    expect(ids.length).toBe(3);
    expect(ids.get(1)).toBeUndefined();
    ids.set(1, 'b');
    ids.set(3, 'd');
    expect([ids.get(0), ids.get(1), ids.get(3), ids.length]).toEqual([undefined, 'b', 'd', 4]);
    expect(new DocumentIds().all()).toEqual([]);
    expect(bytesOf((writer) => new DocumentIds().writeState(writer, 'ids')).equals(bytesOf((writer) => writeIdList(writer, 'ids', [])))).toBe(true);
  });
});
