// Metadata fields of a reopened index: a filter reads only the pairs of the keys it tests, with the results of the original.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import type { JsonValue, MetadataClause } from '../src/core/types.js';
import { DocumentFields } from '../src/retrieval/document-fields.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

const SLOTS = 400;

/** Fields with keys that begin like others (part, party), a unique id per slot, missing keys and non-scalar values. */
function fieldsOf(slot: number, random: () => number): Record<string, JsonValue> | undefined {
  if (random() < 0.1) return undefined;
  const fields: Record<string, JsonValue> = { entryId: `c${slot}` };
  if (random() < 0.7) fields['part'] = Math.floor(random() * 4);
  if (random() < 0.4) fields['party'] = random() < 0.5 ? 'Mira' : 'Kaël';
  if (random() < 0.2) fields['notes'] = random() < 0.5 ? null : ['a', 'b'];
  if (random() < 0.3) fields['par'] = random() < 0.5;
  return fields;
}

const CLAUSES: MetadataClause[][] = [
  [{ key: 'part', values: ['1'] }],
  [{ key: 'part', values: ['0', '3'] }, { key: 'party', exists: false }],
  [{ key: 'party', values: ['"Kaël"'] }],
  [{ key: 'par', values: ['true'] }],
  [{ key: 'par', exists: true }],
  [{ key: 'notes', exists: true }],
  [{ key: 'notes', exists: false }, { key: 'part', exists: true }],
  [{ key: 'entryId', values: ['"c17"', '"c300"'] }],
  [{ key: 'pa', exists: true }],
  [{ key: 'pa', exists: false }],
  [{ key: 'part', values: ['9'] }],
  [{ key: 'nowhere', values: ['1'] }],
];

const permitted = (fields: DocumentFields, clauses: readonly MetadataClause[]) => {
  const filter = fields.filterFor(clauses);
  return Array.from({ length: SLOTS }, (_, slot) => (filter === undefined ? true : filter(slot)));
};

function reopened(original: DocumentFields): DocumentFields {
  const writer = new SnapshotWriter();
  original.writeState(writer, 'fields', SLOTS);
  const reader = SnapshotReader.open(bytesSnapshotFile(writer.finish({})));
  const copy = new DocumentFields();
  copy.readState(reader, 'fields', SLOTS);
  reader.done();
  return copy;
}

describe('DocumentFields of a persisted copy', () => {
  it('filters as the original does, before and after a write interns the pairs, for keys that begin like others', () => {
    const random = seededRandom(7);
    const original = new DocumentFields();
    for (let slot = 0; slot < SLOTS; slot++) original.set(slot, fieldsOf(slot, random));
    const expected = CLAUSES.map((clauses) => permitted(original, clauses));
    const copy = reopened(original);
    expect(CLAUSES.map((clauses) => permitted(copy, clauses))).toEqual(expected);
    // A write interns every pair name, keeping each pair's id: the filters are the same and the new slot is found.
    copy.set(SLOTS - 1, { part: 2, party: 'Mira' });
    original.set(SLOTS - 1, { part: 2, party: 'Mira' });
    expect(CLAUSES.map((clauses) => permitted(copy, clauses))).toEqual(CLAUSES.map((clauses) => permitted(original, clauses)));
    expect(copy.pairsOf(5)).toEqual(original.pairsOf(5));
  });
});

/** What `clauses` permit of a slot's fields, read straight from them (canonical JSON of scalars; other values only exist). */
function holds(fields: Record<string, JsonValue> | undefined, clauses: readonly MetadataClause[]): boolean {
  return clauses.every((clause) => {
    const value = fields?.[clause.key];
    if ('values' in clause) return value !== undefined && value !== null && typeof value !== 'object' && clause.values.includes(JSON.stringify(value));
    return (value !== undefined) === clause.exists;
  });
}

describe('DocumentFields.filterFor', () => {
  it('permits exactly the slots whose fields hold every clause, across the 32-slot words of its bits, and none past the last slot', () => {
    const random = seededRandom(11);
    const fields = new DocumentFields();
    const given = Array.from({ length: SLOTS }, (_, slot) => fieldsOf(slot, random));
    given.forEach((value, slot) => fields.set(slot, value));
    for (const clauses of CLAUSES) {
      expect(permitted(fields, clauses)).toEqual(given.map((value) => holds(value, clauses)));
      const filter = fields.filterFor(clauses);
      if (filter === undefined) continue;
      // Past the slots the filter was made for (the rest of the last word, and beyond): not permitted.
      for (const slot of [SLOTS, SLOTS + 15, SLOTS + 40, 2 ** 31 - 1, -1]) expect(filter(slot)).toBe(false);
    }
    expect(CLAUSES.some((clauses) => given.filter((value) => holds(value, clauses)).length > SLOTS / 4)).toBe(true);
  });
});

describe('LazyStrings.indexesStartingWith', () => {
  it('finds the strings that begin with a prefix by their bytes, UTF-8 or not', () => {
    const names = ['part\u00001', 'party\u0000"Mira"', 'par', '', 'Kaël\u0000x', 'part\u0000', 'Kaë'];
    const writer = new SnapshotWriter();
    writer.strings('names', names);
    const list = SnapshotReader.open(bytesSnapshotFile(writer.finish({}))).lazyStringList('names');
    expect(list.indexesStartingWith('part\u0000')).toEqual([0, 5]);
    expect(list.indexesStartingWith('par')).toEqual([0, 1, 2, 5]);
    expect(list.indexesStartingWith('Kaël')).toEqual([4]);
    expect(list.indexesStartingWith('')).toEqual(names.map((_, index) => index));
    expect(list.indexesStartingWith('none')).toEqual([]);
  });

  it('finds the same strings in a text read a window at a time from the file as in one read whole, across the windows', () => {
    const random = seededRandom(5);
    // About 1.2 MB of text: several of the scan's 256 KiB windows, strings across their edges, some long.
    const names = Array.from({ length: 40_000 }, (_, index) => {
      const key = ['part', 'party', 'par', 'Kaël'][Math.floor(random() * 4)] as string;
      return `${key}\u0000${'x'.repeat(random() < 0.01 ? 5_000 : Math.floor(random() * 30))}${index}`;
    });
    const writer = new SnapshotWriter();
    writer.strings('names', names);
    const bytes = writer.finish({});
    const inFile = SnapshotReader.open(bytesSnapshotFile(bytes)).lazyStringList('names', true);
    const inSection = SnapshotReader.open(bytesSnapshotFile(bytes)).lazyStringList('names');
    for (const prefix of ['part\u0000', 'par', 'Kaël\u0000', 'party\u0000x', '']) {
      const expected = names.flatMap((name, index) => (name.startsWith(prefix) ? [index] : []));
      expect(inFile.indexesStartingWith(prefix)).toEqual(expected);
      expect(inSection.indexesStartingWith(prefix)).toEqual(expected);
    }
    expect(inFile.at(39_999)).toBe(names[39_999]);
  });
});

describe('DocumentFields.writeState', () => {
  it('refuses a key UTF-8 cannot carry (a lone surrogate), as a list of strings does, and still filters on it', () => {
    const fields = new DocumentFields();
    fields.set(0, { 'odd\uD800': 'x', part: 1 });
    fields.set(1, { part: 1 });
    expect(fields.filterFor([{ key: 'odd\uD800', values: ['"x"'] }])?.(0)).toBe(true);
    expect(fields.filterFor([{ key: 'odd\uD800', values: ['"x"'] }])?.(1)).toBe(false);
    expect(fields.pairsOf(0)).toEqual([['odd\uD800', '"x"'], ['part', '1']]);
    expect(() => fields.writeState(new SnapshotWriter(), 'fields', 2)).toThrow('fields.pairs: a string holds a lone surrogate');
  });
});
