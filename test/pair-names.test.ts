// PairNames: interned pair names in one UTF-8 arena give the ids, names and sections a list of strings would.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { PairNames } from '../src/retrieval/pair-names.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotWriter } from '../src/retrieval/snapshot-format.js';

const joined = (key: string, canonical: string | null) => `${key}\u0000${canonical ?? ''}`;

describe('PairNames', () => {
  it('interns each name once, in order, finds it again and gives it back, ASCII or not', () => {
    const random = seededRandom(11);
    const names = new PairNames();
    const byName = new Map<string, number>();
    const keys = ['entryId', 'part', 'Kaël', 'emoji😀', 'p'];
    // Enough names for the table to grow several times; many repeat.
    for (let round = 0; round < 20_000; round++) {
      const key = keys[Math.floor(random() * keys.length)] as string;
      const roll = random();
      const canonical = roll < 0.1 ? null : roll < 0.5 ? JSON.stringify(Math.floor(random() * 50)) : JSON.stringify(`c${Math.floor(random() * 8000)}ü`);
      const name = joined(key, canonical);
      const expected = byName.get(name) ?? byName.size;
      byName.set(name, expected);
      expect(names.intern(key, canonical)).toBe(expected);
    }
    expect(names.size).toBe(byName.size);
    for (const [name, id] of byName) {
      const cut = name.lastIndexOf('\u0000');
      const canonical = cut === name.length - 1 ? null : name.slice(cut + 1);
      expect(names.find(name.slice(0, cut), canonical)).toBe(id);
      expect(names.nameAt(id)).toBe(name);
    }
    expect(names.find('entryId', '"never"')).toBe(-1);
    expect(names.find('entryI', 'd')).toBe(-1);
    expect(names.writable).toBe(true);
  });

  it('gives the sections SnapshotWriter.strings makes of the same names, byte for byte', () => {
    const list = [
      ['entryId', '"c1"'],
      ['part', '3'],
      ['Kaël', '"Mira"'],
      ['notes', null],
      ['emoji😀', '"x😀y"'],
      ['entryId', '"c2"'],
    ] as const;
    const names = new PairNames();
    for (const [key, canonical] of list) names.intern(key, canonical);
    const viaStrings = new SnapshotWriter();
    viaStrings.strings('pairs', list.map(([key, canonical]) => joined(key, canonical)));
    const viaArena = new SnapshotWriter();
    const { ends, text } = names.sections();
    viaArena.array('pairs.ends', ends);
    viaArena.array('pairs.text', text);
    const bytes = viaArena.finish({});
    expect(bytes.equals(viaStrings.finish({}))).toBe(true);
    expect(SnapshotReader.open(bytesSnapshotFile(bytes)).strings('pairs')).toEqual(list.map(([key, canonical]) => joined(key, canonical)));
  });

  it('keeps a name with a lone surrogate apart: found, given back, and the list said unwritable', () => {
    const names = new PairNames();
    expect(names.intern('a\uD800', '1')).toBe(0);
    // Its UTF-8 would be that of U+FFFD: a name that holds U+FFFD is another pair.
    expect(names.intern('a\uFFFD', '1')).toBe(1);
    expect(names.intern('a\uD800', '1')).toBe(0);
    expect(names.find('a\uD800', '1')).toBe(0);
    expect(names.find('a\uDC00', '1')).toBe(-1);
    expect(names.nameAt(0)).toBe('a\uD800\u00001');
    expect(names.nameAt(1)).toBe('a\uFFFD\u00001');
    expect(names.writable).toBe(false);
  });
});
