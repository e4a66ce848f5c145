// readWordCounts: the word-count files the static embedder's SIF weights can be taken from, and what it refuses.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countProbabilities, readWordCounts, WordVectorTable } from '../src/embedders/static/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('readWordCounts', () => {
  it('reads a JSON array of {word, count} objects, of [word, count] pairs, or "word count" lines, in order', () => {
    const objects = readWordCounts(write('objects.json', JSON.stringify([{ word: 'you', count: 2134713 }, { word: 'I', count: 2038529 }])));
    expect(objects.counts).toEqual([['you', 2134713], ['I', 2038529]]);
    expect(readWordCounts(write('pairs.json', '[["the", 3], ["sea", 0.5]]')).counts).toEqual([['the', 3], ['sea', 0.5]]);
    const lines = readWordCounts(write('lines.txt', '# SUBTLEX-like\nthe 10\n\n  sea\t2  \r\nthe 1\n'));
    expect(lines.counts).toEqual([['the', 10], ['sea', 2], ['the', 1]]);
  });

  it('names the list by its file and content, so that other counts give another model id', () => {
    const first = readWordCounts(write('counts.txt', 'the 10\nsea 2\n'));
    expect(first.id).toMatch(/^counts\.txt-[0-9a-f]{8}$/);
    expect(readWordCounts(write('counts.txt', 'the 10\nsea 2\n')).id).toBe(first.id);
    expect(readWordCounts(write('counts.txt', 'the 10\nsea 3\n')).id).not.toBe(first.id);
  });

  it('gives p(w) through countProbabilities: a word the list counts often weighs less', () => {
    const table = new WordVectorTable({ source: 'fixture', dimensions: 2, vocabularySize: 3, words: ['the', 'sea', 'ocean'], ranks: Uint32Array.from([0, 1, 2]), scales: new Float32Array([1, 1, 1]), values: new Int8Array([1, 0, 0, 1, 1, 1]) });
    const { id, counts } = readWordCounts(write('weights.txt', 'THE 90\nsea 10\nunknown 100\n'));
    const probabilities = countProbabilities(id, counts).forTable(table);
    expect([...probabilities]).toEqual([0.45, 0.05, 0]);
  });

  it('refuses a missing file (NOT_FOUND) and malformed entries (INVALID_INPUT) naming the entry', () => {
    expect(() => readWordCounts(join(dir, 'absent.json'))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    for (const [name, text, message] of [
      ['negative.json', '[{"word": "the", "count": -1}]', 'entry 1 is {"word":"the","count":-1}'],
      ['shape.json', '[["the", 3], ["sea"]]', 'entry 2 is ["sea"]'],
      ['empty-word.json', '[["", 3]]', 'entry 1'],
      ['broken.json', '[{"word": ', 'the JSON does not parse'],
      ['line.txt', 'the 10\nsea two\n', 'line 2 is "sea two"'],
      ['three.txt', 'the 10 11\n', 'line 1'],
      ['blank.txt', '\n# nothing\n', 'the file holds no entry'],
    ] as const) {
      expect(() => readWordCounts(write(name, text))).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining(message) }));
    }
  });
});
