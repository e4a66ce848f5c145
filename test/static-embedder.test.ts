// The static embedder: the compact file (built once, rebuilt when corrupt), SIF sentence vectors, and their quality.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countProbabilities, countWords, forgetLoadedWordVectors, loadStaticEmbedder, loadWordVectors, stripDiacritics, topDirectionsOfModelId } from '../src/embedders/static/index.js';
import { convertWinkVectors } from '../src/embedders/static/convert-wink-vectors.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);
const norm = (vector: Float32Array) => Math.sqrt(cosine(vector, vector));

/** Writes a small file in the wink-embeddings layout: entries in the order given, each vector ending in [norm, rank]. */
function writeWinkFile(path: string, entries: { word: string; vector: number[] }[], dimensions: number): void {
  const ranked = entries.map((entry, rank) => ({ ...entry, rank }));
  const shuffled = [...ranked.filter((_, index) => index % 2 === 1), ...ranked.filter((_, index) => index % 2 === 0)];
  const vectors = Object.fromEntries(shuffled.map(({ word, vector, rank }) => [word, [...vector, Math.hypot(...vector), rank]]));
  const body = { precision: 8, l2NormIndex: dimensions, wordIndex: dimensions + 1, size: entries.length, dimensions, words: ranked.map((entry) => entry.word), vectors, unkVector: new Array(dimensions).fill(0) };
  writeFileSync(path, JSON.stringify(body));
}

const fixtureEntries = [
  { word: 'the', vector: [1, 1, 0, 0] },
  { word: ',', vector: [0.5, 0.5, 0.5, 0.5] },
  { word: 'key', vector: [1, 0.2, 0, 0] },
  { word: 'cross-country', vector: [0, 0, 1, 1] },
  { word: 'door', vector: [0.9, 0.3, 0.1, 0] },
  { word: 'café', vector: [0, 1, 0, 0.25] },
  { word: 'sea', vector: [0, 0, 1, 0.1] },
  { word: 'ocean', vector: [0, 0.1, 0.95, 0.2] },
  { word: 'kael', vector: [-0.5, 0, 0, 1] },
  { word: 'quote"word', vector: [0.3, -0.3, 0.3, -0.3] },
];

describe('compact word vectors', () => {
  const source = join(dir, 'fixture.json');
  writeWinkFile(source, fixtureEntries, 4);

  it('streams the JSON, keeps the most frequent whole words by rank whatever the file order, and quantises to int8', async () => {
    const data = await convertWinkVectors(source, { topWords: 5, source: 'fixture' });
    expect(data.words).toEqual(['the', 'key', 'door', 'café', 'sea']);
    expect([...data.ranks]).toEqual([0, 2, 4, 5, 6]);
    expect(data.vocabularySize).toBe(10);
    const door = [...data.values.subarray(2 * 4, 3 * 4)].map((value) => value * (data.scales[2] as number));
    door.forEach((value, index) => expect(value).toBeCloseTo([0.9, 0.3, 0.1, 0][index] as number, 2));
    const all = await convertWinkVectors(source, { topWords: 100, source: 'fixture' });
    expect(all.words).toContain('kael');
    expect(all.words).not.toContain('quote"word');
    expect(all.words).not.toContain(',');
    expect(all.words).not.toContain('cross-country');
  });

  it('writes the compact file once, reads it back, and rebuilds it when it is corrupt, truncated or missing', async () => {
    const cacheDir = join(dir, 'cache-a');
    forgetLoadedWordVectors();
    const first = await loadWordVectors({ sourcePath: source, cacheDir });
    expect(first.built).toBe(true);
    expect(first.file).not.toBeNull();
    forgetLoadedWordVectors();
    const second = await loadWordVectors({ sourcePath: source, cacheDir });
    expect(second.built).toBe(false);
    expect(second.table.words).toEqual(first.table.words);
    expect([...second.table.values]).toEqual([...first.table.values]);

    const file = first.file as string;
    const bytes = readFileSync(file);
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 0xff;
    writeFileSync(file, bytes);
    forgetLoadedWordVectors();
    const repaired = await loadWordVectors({ sourcePath: source, cacheDir });
    expect(repaired.built).toBe(true);
    expect([...repaired.table.values]).toEqual([...first.table.values]);

    writeFileSync(file, readFileSync(file).subarray(0, 40));
    forgetLoadedWordVectors();
    expect((await loadWordVectors({ sourcePath: source, cacheDir })).built).toBe(true);
    writeFileSync(file, 'not a vector file');
    forgetLoadedWordVectors();
    expect((await loadWordVectors({ sourcePath: source, cacheDir })).built).toBe(true);
    forgetLoadedWordVectors();
    expect((await loadWordVectors({ sourcePath: source, cacheDir })).built).toBe(false);
  });

  it('keeps the table in memory when no cache folder is writable', async () => {
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, 'x');
    forgetLoadedWordVectors();
    const loaded = await loadWordVectors({ sourcePath: source, cacheDir: join(blocked, 'sub') });
    expect(loaded.file).toBeNull();
    expect(loaded.table.size).toBe(7);
  });

  it('refuses a file that is not a wink-embeddings file with a clear error', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"words": []}');
    await expect(convertWinkVectors(bad, { topWords: 5, source: 'bad' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('static embedder on a small table', () => {
  const source = join(dir, 'small.json');
  writeWinkFile(source, fixtureEntries, 4);
  const load = (options = {}) => loadStaticEmbedder({ sourcePath: source, cacheDir: join(dir, 'cache-b'), ...options });

  it('lowercases, folds accents when the exact word is unknown, and skips unknown words', async () => {
    const embedder = await load();
    const [plain, upper, accented, withUnknown] = await embedder.embed(['the key', 'THE KEY', 'the kaël', 'the key zzqx']);
    expect([...(upper as Float32Array)]).toEqual([...(plain as Float32Array)]);
    expect([...(withUnknown as Float32Array)]).toEqual([...(plain as Float32Array)]);
    const [kael] = await embedder.embed(['the kael']);
    expect([...(accented as Float32Array)]).toEqual([...(kael as Float32Array)]);
    expect(embedder.rowsOf('café cafe')).toEqual([embedder.table.rowOf('café')]);
    expect(stripDiacritics('naïve')).toBe('naive');
  });

  it('gives the zero vector (no semantic signal) to a text with no known word, and unit vectors otherwise', async () => {
    const embedder = await load();
    const [nothing, something] = await embedder.embed(['zzqx wvvp 42', 'the sea']);
    expect([...(nothing as Float32Array)].every((value) => value === 0)).toBe(true);
    expect(norm(something as Float32Array)).toBeCloseTo(1, 5);
  });

  it('weights words by SIF: the most frequent word barely moves the vector (a plain mean would give 0.58 here)', async () => {
    const embedder = await load();
    const [sea, seaThe] = await embedder.embed(['sea', 'sea the']);
    expect(cosine(sea as Float32Array, seaThe as Float32Array)).toBeGreaterThan(0.9);
  });

  it('takes p(w) from supplied counts: a new model id, and the common component removed', async () => {
    const counts = countWords(['the sea the sea the key', 'the door']);
    expect(counts.get('the')).toBe(4);
    const embedder = await load({ wordProbabilities: countProbabilities('save-1', counts) });
    expect(embedder.modelId).toContain('sif-counts:save-1');
    const rank = await load();
    expect(rank.modelId).not.toBe(embedder.modelId);
    const [a] = await embedder.embed(['the key door']);
    expect(norm(a as Float32Array)).toBeCloseTo(1, 5);
    const [again] = await embedder.embed(['the key door']);
    expect([...(again as Float32Array)]).toEqual([...(a as Float32Array)]);
  });
});

describe('static embedder on the GloVe vectors', () => {
  it('loads 100,000 words at 100 dimensions under a stable model id', async () => {
    const embedder = await loadStaticEmbedder();
    expect(embedder).toMatchObject({ provider: 'static', modelId: 'glove-sg-100d-top100k-sif-rank', dimensions: 100, cacheable: false });
    expect(embedder.table.size).toBe(100_000);
  });

  it('gives the same vector to the same text on every load', async () => {
    const text = 'Kaël hides the silver key under the third stone of the well.';
    const [first] = await (await loadStaticEmbedder()).embed([text]);
    forgetLoadedWordVectors();
    const [second] = await (await loadStaticEmbedder()).embed([text]);
    expect(Buffer.from((second as Float32Array).buffer).equals(Buffer.from((first as Float32Array).buffer))).toBe(true);
  });

  it('scores paraphrases well above unrelated pairs', async () => {
    const embedder = await loadStaticEmbedder();
    const paraphrases: [string, string][] = [
      ['The keeper lit the lamp at the top of the lighthouse.', 'At the top of the lighthouse, the warden turned on the light.'],
      ['She paid the merchant three gold coins for the sword.', 'The trader sold her the blade for three pieces of gold.'],
      ['The ship sank in the storm near the rocky coast.', 'A vessel went down during a tempest off the rocky shore.'],
      ['The king died and his son took the throne.', 'After the monarch passed away, the prince became ruler.'],
      ['The doctor gave the sick child some medicine.', 'The physician treated the ill boy with a drug.'],
    ];
    const unrelated: [string, string][] = [
      ['The keeper lit the lamp at the top of the lighthouse.', 'She paid the merchant three gold coins for the sword.'],
      ['A recipe for bread needs flour, water and yeast.', 'The election results were announced on Tuesday.'],
      ['The cat slept on the warm windowsill.', 'Interest rates rose sharply last quarter.'],
      ['He repaired the broken engine of the truck.', 'The choir sang a hymn in the cathedral.'],
      ['The ship sank in the storm near the rocky coast.', 'The doctor gave the sick child some medicine.'],
    ];
    const score = async ([a, b]: [string, string]) => {
      const [x, y] = await embedder.embed([a, b]);
      return cosine(x as Float32Array, y as Float32Array);
    };
    const close = await Promise.all(paraphrases.map(score));
    const far = await Promise.all(unrelated.map(score));
    expect(Math.min(...close)).toBeGreaterThan(0.75);
    expect(Math.max(...far)).toBeLessThan(0.6);
    expect(Math.min(...close) - Math.max(...far)).toBeGreaterThan(0.15);
  });
});

describe('static embedder with all-but-the-top', () => {
  it('is off by default; topDirections n names itself in the model id and changes the vectors, the same on every load', async () => {
    const text = 'Kaël hides the silver key under the third stone of the well.';
    const plain = await loadStaticEmbedder();
    const processed = await loadStaticEmbedder({ topDirections: 1 });
    expect(processed.modelId).toBe('glove-sg-100d-top100k-sif-rank-abtt1');
    expect(topDirectionsOfModelId(processed.modelId)).toBe(1);
    expect(topDirectionsOfModelId(plain.modelId)).toBe(0);
    const [before] = await plain.embed([text]);
    const [after] = await processed.embed([text]);
    expect(norm(after as Float32Array)).toBeCloseTo(1, 5);
    expect(cosine(before as Float32Array, after as Float32Array)).toBeLessThan(0.999);
    const [again] = await (await loadStaticEmbedder({ topDirections: 1 })).embed([text]);
    expect(Buffer.from((again as Float32Array).buffer).equals(Buffer.from((after as Float32Array).buffer))).toBe(true);
    const [nothing] = await processed.embed(['zzqx']);
    expect((nothing as Float32Array).every((value) => value === 0)).toBe(true);
  });

  it('refuses a count that is not a whole number below the dimensions, naming the field', async () => {
    await expect(loadStaticEmbedder({ topDirections: 100 })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/topDirections: expected a whole number from 0 \(off\) to 99, got 100/) });
    await expect(loadStaticEmbedder({ topDirections: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
