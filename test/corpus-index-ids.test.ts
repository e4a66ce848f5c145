// CorpusIndex ids: UUIDs and other ids survive a persist, a reopen, writes after it and a second persist.
import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import type { IndexDocument } from '../src/retrieval/corpus-index.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

const row = (id: string, position: number): IndexDocument => ({ id, position, kind: 'narrative', text: `chunk ${position} of the gate`, embedding: null });
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

function persisted(index: CorpusIndex): CorpusIndex {
  const writer = new SnapshotWriter();
  const scalars = index.writeState(writer);
  const reader = SnapshotReader.open(bytesSnapshotFile(writer.finish({ ...scalars })));
  const copy = CorpusIndex.readState(reader, index.version, {});
  reader.done();
  return copy;
}

describe('CorpusIndex ids', () => {
  it.each([
    ['UUIDs', uuid],
    ['caller ids', (n: number) => `chunk-${n}`],
  ] as const)('keeps %s through a reopen, adds after it, a second persist and a reopen of that', (_name, idOf) => {
    const index = new CorpusIndex(1);
    index.add([row(idOf(0), 0), row(idOf(1), 1), row(idOf(2), 2)]);
    const reopened = persisted(index);
    expect(reopened.idOf(1)).toBe(idOf(1));
    // Added before the reopened copy's ids are read whole (the persist reads them).
    reopened.add([row(idOf(3), 3), row(idOf(4), 4)]);
    const again = persisted(reopened);
    for (const copy of [reopened, again]) {
      expect([0, 1, 2, 3, 4].map((slot) => copy.idOf(slot))).toEqual([0, 1, 2, 3, 4].map(idOf));
      expect(copy.slotOf(idOf(4))).toBe(4);
    }
    expect(again.remove([idOf(0), idOf(3)])).toBe(2);
    expect(again.slotOf(idOf(3))).toBeUndefined();
    expect(again.boundaryIds).toEqual([idOf(1), idOf(4)]);
  });
});
