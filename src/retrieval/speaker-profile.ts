// The speaker profile signal: BM25 of the query over each speaker's turns read as one text, given to each of their turns.
import type { Bm25Index } from './bm25.js';
import type { DocumentContext } from './document-context.js';
import { groupScores } from './group-scores.js';
import type { GroupScores } from './group-scores.js';

/**
 * Scores every speaker as one document: all the live, accepted chunks they said (`groupScores` over the speakers,
 * the idf of a term among speakers), so a turn is also scored by what its speaker says across the save about the
 * query's content ("what would Ann like?" finds Ann's turns when she is the one who talks of it). The speakers'
 * members and lengths are counted at query time (one pass over the slots, the filter applied), so a rewind or a
 * turn bound is exact. Null when fewer than two speakers have a chunk (nothing to tell apart).
 *
 * @example
 * ```ts
 * const profiles = speakerProfileScores(index.bm25, index.context, index.analyze('sailing'), accept);
 * profiles?.scoreOf(slot); // the BM25 of everything the slot's speaker said
 * ```
 */
export function speakerProfileScores(bm25: Bm25Index, context: DocumentContext, terms: readonly string[], accept?: (slot: number) => boolean): GroupScores | null {
  const slots = context.speakerSlots;
  if (slots < 3) return null;
  const members = new Int32Array(slots);
  const lengths = new Float64Array(slots);
  let live = 0;
  let total = 0;
  for (let slot = 0; slot < bm25.slots; slot++) {
    const speaker = context.speakerOf(slot);
    if (speaker === 0 || !bm25.isAlive(slot) || (accept !== undefined && !accept(slot))) continue;
    if (members[speaker] === 0) live++;
    members[speaker] = (members[speaker] as number) + 1;
    const length = bm25.lengthOf(slot);
    lengths[speaker] = (lengths[speaker] as number) + length;
    total += length;
  }
  if (live < 2) return null;
  const groups = {
    slots,
    live,
    averageLength: total / live,
    groupOf: (slot: number) => (members[context.speakerOf(slot)] === 0 ? 0 : context.speakerOf(slot)),
    membersOf: (speaker: number) => members[speaker] ?? 0,
    lengthOf: (speaker: number) => lengths[speaker] ?? 0,
  };
  return groupScores(bm25, groups, terms, accept);
}
