// Addressed names: the question's words naming a speaker, left out of its lexical terms where the save's text uses them to address that speaker.

/** What the rule reads: who said each chunk, which chunks hold a term, and which are live. */
export interface AddressedNameSource {
  /** The chunk's speaker (0: none). */
  speakerOf(slot: number): number;
  /** False for a removed slot. */
  isAlive(slot: number): boolean;
  /** Visits every chunk holding the index term. */
  forEachPosting(term: string, visit: (slot: number) => void): void;
}

/**
 * The query's terms that name a speaker it names (`nameTerms`) and that the save mostly uses to speak to or of
 * them: among the live, accepted chunks holding the term, the share said by one of `speakers` is below `share`. A
 * transcript whose chunks carry their speaker ("(date) Ann said, ...") holds Ann's name mostly in Ann's own chunks,
 * and the term finds what she said; one whose chunks are the bare words holds it mostly in the chunks of those who
 * talk to her ("Thanks, Ann!"), and the term finds what was said to her, which is the opposite of what a question
 * about her asks. Those terms are left to the speaker signal. A term no chunk holds is kept (it scores nothing).
 * The cost is one pass over each name term's postings.
 *
 * @example
 * ```ts
 * const dropped = addressedNameTerms(source, ['ann', 'like'], new Set(['ann']), new Set([1]), 0.5);
 * // Set { 'ann' } when fewer than half of the chunks holding "ann" are Ann's
 * ```
 */
export function addressedNameTerms(source: AddressedNameSource, terms: readonly string[], nameTerms: ReadonlySet<string>, speakers: ReadonlySet<number>, share: number, accept?: (slot: number) => boolean): Set<string> {
  const dropped = new Set<string>();
  if (share <= 0 || speakers.size === 0) return dropped;
  for (const term of new Set(terms)) {
    if (!nameTerms.has(term)) continue;
    let theirs = 0;
    let holding = 0;
    source.forEachPosting(term, (slot) => {
      if (!source.isAlive(slot) || (accept !== undefined && !accept(slot))) return;
      holding++;
      if (speakers.has(source.speakerOf(slot))) theirs++;
    });
    if (holding > 0 && theirs < share * holding) dropped.add(term);
  }
  return dropped;
}
