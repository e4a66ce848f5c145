// The per-save index: neighbour context vectors stay right through adds and removals; exact per-slot scores.
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createAnalyzer } from '../src/retrieval/analyzer.js';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import type { IndexDocument } from '../src/retrieval/corpus-index.js';
import { bytesSnapshotFile } from '../src/retrieval/snapshot-file.js';
import { SnapshotReader, SnapshotWriter } from '../src/retrieval/snapshot-format.js';
import { tokenize } from '../src/retrieval/tokenize.js';

const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return new Float32Array(values.map((value) => value / norm));
};
const row = (id: string, position: number, vector: Float32Array | null, text = `chunk ${id}`): IndexDocument => ({ id, position, kind: 'narrative', text, embedding: vector });

function contexts(index: CorpusIndex, ids: string[]) {
  return ids.map((id) => Array.from(index.semanticVectorOf(index.slotOf(id) as number) ?? []).map((value) => Number(value.toFixed(5))));
}

describe('CorpusIndex neighbour context', () => {
  const rows = [row('a', 1, unit(1, 0, 0)), row('b', 2, unit(0, 1, 0)), row('c', 3, null), row('d', 4, unit(0, 0, 1)), row('e', 5, unit(1, 1, 0))];

  it('mixes each vector with its neighbours with vectors, the same whether built at once or one by one', () => {
    const whole = new CorpusIndex(0, { neighbourWeight: 0.5 });
    whole.add(rows);
    const stepwise = new CorpusIndex(0, { neighbourWeight: 0.5 });
    for (const one of rows) stepwise.add([one]);
    expect(contexts(stepwise, ['a', 'b', 'd', 'e'])).toEqual(contexts(whole, ['a', 'b', 'd', 'e']));
    const [b] = contexts(whole, ['b']);
    const expected = unit(0.5, 1, 0.5);
    expect(b).toEqual(Array.from(expected).map((value) => Number(value.toFixed(5))));
  });

  it('after removals equals an index built without the removed chunks', () => {
    const index = new CorpusIndex(0, { neighbourWeight: 0.3 });
    index.add(rows);
    index.remove(['b', 'e']);
    const fresh = new CorpusIndex(0, { neighbourWeight: 0.3 });
    fresh.add(rows.filter((one) => one.position !== 2 && one.position !== 5));
    expect(contexts(index, ['a', 'd'])).toEqual(contexts(fresh, ['a', 'd']));
    index.add([row('f', 6, unit(0, 1, 1))]);
    fresh.add([row('f', 6, unit(0, 1, 1))]);
    expect(contexts(index, ['a', 'd', 'f'])).toEqual(contexts(fresh, ['a', 'd', 'f']));
  });

  it('searches own vectors when the weight is 0', () => {
    const index = new CorpusIndex(0);
    index.add(rows);
    expect(index.semantic(unit(0, 1, 0), 1).map(({ slot }) => index.idOf(slot))).toEqual(['b']);
  });
});

describe('exact per-slot scores', () => {
  it('match what the arms rank with', () => {
    const index = new CorpusIndex(0);
    index.add([row('a', 1, unit(1, 0), 'red door red'), row('b', 1, unit(0, 1), 'blue door'), row('c', 1, unit(1, 1), 'green field')]);
    const terms = index.analyze('red door');
    for (const { slot, score } of index.lexical(terms, 10)) expect(index.bm25.scoreOf(terms, slot)).toBeCloseTo(score, 12);
    expect(index.bm25.scoreOf(terms, index.slotOf('c') as number)).toBe(0);
    for (const { slot, score } of index.semantic(unit(1, 0), 10)) expect(index.vectors.scoreOf(unit(1, 0), slot)).toBeCloseTo(score, 6);
  });
});

describe('CorpusIndex term cache', () => {
  const texts = [
    'The doors opened; Kaël opened the door again.',
    'What was behind the doors? Nothing but dust.',
    'Opening doors, opening DOORS, and the dust settles',
    'the the the',
    '',
    'Dust and doors: Tindel walks through the opened gate.',
  ];
  const rows = texts.map((text, index) => row(`t${index}`, index, null, text));

  it('indexes word by word (term ids cached per token) exactly as the analyzer indexes whole texts', () => {
    for (const analyzer of [createAnalyzer(), createAnalyzer({ language: 'none' }), createAnalyzer({ stem: false })]) {
      const cached = new CorpusIndex(0, { analyzer });
      // A plain function (no termOf): the index analyzes each text whole, as before the cache.
      const whole = new CorpusIndex(0, { analyzer: (text) => analyzer(text) });
      cached.add(rows);
      whole.add(rows);
      for (const query of ['doors opened', 'dust', 'kaël gate', 'the']) {
        const terms = analyzer(query);
        expect(cached.lexical(terms, 10)).toEqual(whole.lexical(terms, 10));
        expect(cached.expandQuery(terms, { documents: 2, terms: 3, weight: 0.5 })).toEqual(whole.expandQuery(terms, { documents: 2, terms: 3, weight: 0.5 }));
      }
      expect(cached.bm25.averageLength).toBe(whole.bm25.averageLength);
    }
  });

  it('maps a text to the terms tokenize and termOf give, stop words dropped', () => {
    const analyzer = createAnalyzer();
    for (const text of texts) expect(analyzer(text)).toEqual(tokenize(text).flatMap((token) => analyzer.termOf?.(token) ?? []));
  });
});

describe('CorpusIndex slots by id', () => {
  it('finds live chunks only, whether asked before or after removals and re-adds', () => {
    const build = () => {
      const index = new CorpusIndex(0);
      index.add([row('a', 1, null), row('b', 2, null), row('c', 3, null)]);
      return index;
    };
    const early = build();
    expect(early.slotOf('b')).toBe(1);
    const late = build();
    for (const index of [early, late]) {
      index.removeAt(2, 'narrative');
      index.add([row('d', 4, null), row('b', 2, null)]);
      index.removeAfter(3);
    }
    for (const index of [early, late]) expect(['a', 'b', 'c', 'd'].map((id) => index.slotOf(id))).toEqual([0, 4, 2, undefined]);
  });
});

describe('CorpusIndex.idsOf', () => {
  it('gives the ids of the slots asked, in the order asked, fresh and read back from its file (UUIDs over several blocks, or other ids)', () => {
    for (const idOf of [() => randomUUID(), (seed: number) => `chunk-${seed}`]) {
      const documents = Array.from({ length: 700 }, (_, seed) => row(idOf(seed), seed, unit(1, seed % 5, seed % 3), `chunk ${seed % 9}`));
      const fresh = new CorpusIndex(0, { neighbourWeight: 0.5 });
      fresh.add(documents);
      const writer = new SnapshotWriter();
      const scalars = fresh.writeState(writer);
      const bytes = writer.finish({ key: 'k', identity: 'test', configuration: fresh.configuration, version: 1, ...scalars });
      const restored = CorpusIndex.readState(SnapshotReader.open(bytesSnapshotFile(bytes)), 1, { neighbourWeight: 0.5 });
      // Out of slot order, neighbours together, a slot twice, slots in different blocks of the ids (256 UUIDs a block).
      const slots = [600, 3, 599, 601, 3, 0, 699, 255, 256, 2];
      const expected = slots.map((slot) => documents[slot]?.id);
      expect(fresh.idsOf(slots)).toEqual(expected);
      expect(restored.idsOf(slots)).toEqual(expected);
      expect(restored.idsOf([])).toEqual([]);
    }
  });
});

describe('CorpusIndex insertion order', () => {
  // The order's chains are made on first use (until a removal, every slot in order): read early or late, through
  // removals and adds after, they are the same, and so is a copy read back from a snapshot.
  it('is the same made at the first read or kept from the first add, through removals and adds', () => {
    const neighbours = (index: CorpusIndex) => Array.from({ length: 10 }, (_, slot) => [index.neighbourOf(slot, -1), index.neighbourOf(slot, 1)]);
    const chains = (index: CorpusIndex) => {
      const { previous, next, dense } = index.order;
      return { previous: Array.from(previous.subarray(0, 8)), next: Array.from(next.subarray(0, 8)), dense };
    };
    const late = new CorpusIndex(0);
    const early = new CorpusIndex(0);
    const first = Array.from({ length: 6 }, (_, at) => row(`c${at}`, at, null));
    late.add(first);
    early.add(first);
    expect(early.order.dense).toBe(true);
    expect(neighbours(late)).toEqual(neighbours(early));
    expect(neighbours(late).slice(0, 7)).toEqual([[null, 1], [0, 2], [1, 3], [2, 4], [3, 5], [4, null], [null, null]]);
    late.add([row('c6', 6, null)]);
    early.add([row('c6', 6, null)]);
    expect(chains(late)).toEqual(chains(early));
    for (const index of [late, early]) {
      index.remove(['c2', 'c6']);
      index.add([row('c7', 7, null)]);
    }
    expect(neighbours(late)).toEqual(neighbours(early));
    expect(neighbours(late).slice(0, 8)).toEqual([[null, 1], [0, 3], [null, null], [1, 4], [3, 5], [4, 7], [null, null], [5, null]]);
    expect(chains(late)).toEqual(chains(early));
    expect(chains(late).dense).toBe(false);
    const writer = new SnapshotWriter();
    const scalars = late.writeState(writer);
    const read = CorpusIndex.readState(SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 1, ...scalars }))), 1, {});
    expect(neighbours(read)).toEqual(neighbours(late));
  });
});
