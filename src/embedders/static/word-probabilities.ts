// Where the smooth-inverse-frequency weights get p(w): GloVe's frequency rank (default) or counts you supply.
import { tokenize } from '../../retrieval/tokenize.js';
import { lookupRow } from './word-lookup.js';
import type { WordVectorTable } from './word-vector-table.js';

/** A word distribution the static embedder weights words by. */
export interface WordProbabilities {
  /** Names the distribution; it becomes part of the embedder's model id, since other weights give other vectors. */
  readonly id: string;
  /** p(w) for every row of the table; 0 where the distribution never saw the word (it then weighs fully). */
  forTable(table: WordVectorTable): Float64Array;
}

/**
 * p(w) from the word's frequency rank in the vectors' own training corpus, by Zipf's law:
 * p(rank r) = 1 / ((r + 1) · H(V)), with H(V) the V-th harmonic number of the source vocabulary.
 *
 * @example
 * ```ts
 * const embedder = await loadStaticEmbedder({ wordProbabilities: rankProbabilities() }); // the default
 * ```
 */
export function rankProbabilities(): WordProbabilities {
  return {
    id: 'rank',
    forTable(table) {
      let harmonic = 0;
      for (let rank = 1; rank <= table.vocabularySize; rank++) harmonic += 1 / rank;
      return Float64Array.from(table.ranks, (rank) => 1 / ((rank + 1) * harmonic));
    },
  };
}

/**
 * p(w) from word counts you supply, e.g. the save's own text (countWords). Words are matched as the embedder
 * matches tokens (exact, then without accents); the total includes words the table does not know.
 *
 * @example
 * ```ts
 * const probabilities = countProbabilities('save-run-1', countWords(texts));
 * ```
 */
export function countProbabilities(id: string, counts: Iterable<readonly [string, number]>): WordProbabilities {
  const entries = [...counts];
  return {
    id: `counts:${id}`,
    forTable(table) {
      const probabilities = new Float64Array(table.size);
      let total = 0;
      for (const [word, count] of entries) {
        if (!(count > 0)) continue;
        total += count;
        const row = lookupRow(table, word.normalize('NFC').toLowerCase());
        if (row >= 0) probabilities[row] = (probabilities[row] as number) + count;
      }
      if (total > 0) for (let row = 0; row < probabilities.length; row++) probabilities[row] = (probabilities[row] as number) / total;
      return probabilities;
    },
  };
}

/**
 * Counts the tokens of some texts with the shared tokenizer.
 *
 * @example
 * ```ts
 * countWords(['the key', 'the well']); // Map { 'the' => 2, 'key' => 1, 'well' => 1 }
 * ```
 */
export function countWords(texts: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) for (const token of tokenize(text)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
