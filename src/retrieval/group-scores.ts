// BM25 of a query over groups of documents (a scene, a speaker's turns), each group read as one text, given to each member.
import type { Bm25Index } from './bm25.js';

/** The groups documents belong to: a group id per slot (0: none), and each group's live members and length. */
export interface DocumentGroups {
  /** How many group ids exist, plus one: the size of a per-group array. */
  readonly slots: number;
  /** Groups with at least one live (accepted) member. */
  readonly live: number;
  /** The mean length of a live group in terms. */
  readonly averageLength: number;
  groupOf(slot: number): number;
  membersOf(group: number): number;
  lengthOf(group: number): number;
}

/** The group score of each document for one query, with the mean and deviation over every document in a group. */
export interface GroupScores {
  /** The BM25 score of the slot's group (0 for a slot in no group or a group without a match). */
  scoreOf(slot: number): number;
  /** Whether the slot belongs to a group (a slot in none gets no signal). */
  inGroup(slot: number): boolean;
  mean: number;
  deviation: number;
}

/**
 * Scores every group as one document: for each query term, the term frequencies of the group's accepted
 * documents summed, over the group's length, against the live groups' average, with the idf of the term among
 * groups (Okapi BM25, the index's k1 and b). Made from the document postings at query time, so nothing is indexed
 * twice and a filter keeps what it refuses out of every group. The mean and deviation weigh each group by its live
 * members, as a per-document signal. Cost: one pass over the query terms' postings, and one over the groups.
 *
 * @example
 * ```ts
 * const scores = groupScores(index.bm25, groups, index.analyze('the lantern'), accept);
 * scores.scoreOf(slot); // the BM25 of the slot's group
 * ```
 */
export function groupScores(bm25: Bm25Index, groups: DocumentGroups, terms: readonly string[], accept?: (slot: number) => boolean): GroupScores {
  const { k1, b } = bm25.parameters;
  const average = groups.averageLength || 1;
  const scores = new Float64Array(groups.slots);
  const frequencies = new Float64Array(groups.slots);
  const touched: number[] = [];
  for (const term of new Set(terms)) {
    touched.length = 0;
    bm25.forEachPosting(term, (slot, frequency) => {
      if (accept !== undefined && !accept(slot)) return;
      const group = groups.groupOf(slot);
      if (group === 0) return;
      if (frequencies[group] === 0) touched.push(group);
      frequencies[group] = (frequencies[group] as number) + frequency;
    });
    if (touched.length === 0) continue;
    const idf = Math.log(1 + (groups.live - touched.length + 0.5) / (touched.length + 0.5));
    for (const group of touched) {
      const frequency = frequencies[group] as number;
      const norm = k1 * (1 - b + (b * groups.lengthOf(group)) / average);
      scores[group] = (scores[group] as number) + (idf * frequency * (k1 + 1)) / (frequency + norm);
      frequencies[group] = 0;
    }
  }
  let count = 0;
  let sum = 0;
  let sumOfSquares = 0;
  for (let group = 1; group < scores.length; group++) {
    const members = groups.membersOf(group);
    if (members === 0) continue;
    const score = scores[group] as number;
    count += members;
    sum += members * score;
    sumOfSquares += members * score * score;
  }
  const mean = sum / count;
  return {
    scoreOf: (slot) => scores[groups.groupOf(slot)] ?? 0,
    inGroup: (slot) => groups.groupOf(slot) > 0,
    mean,
    deviation: Math.sqrt(Math.max(0, sumOfSquares / count - mean * mean)),
  };
}
