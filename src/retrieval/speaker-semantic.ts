// The speaker semantic part: the semantic arm counted again, at a weight, for the chunks said by a speaker the query names.

/** What the part needs: who said each chunk, and the semantic arm's results and exact scores. */
export interface SpeakerSemanticSource {
  /** The chunk's speaker (0: none). */
  speakerOf(slot: number): number;
  /** The semantic arm's results (its capped candidates), best first. */
  readonly semantic: readonly { slot: number; score: number }[];
  /** The semantic arm's exact score of a candidate it did not return, or null. */
  exact(slot: number): number | null;
}

/** The part as a fusion arm: its results, and its score of any candidate (null: not theirs, it adds nothing). */
export interface SpeakerSemanticPart {
  /** The semantic arm's results said by a named speaker, in its order. */
  results: { slot: number; score: number }[];
  /** The semantic score of a chunk said by a named speaker and accepted, else null. */
  scoreOf(slot: number): number | null;
}

/**
 * The semantic arm's scores of the chunks said by one of `speakers` (the speakers the query names) and accepted,
 * nobody else's: fused at a weight with the semantic arm's own statistics, it makes meaning count more for the named
 * person's turns. A question about what someone would like, or does, is answered by that person's own turns about
 * the topic, which share its meaning more often than its words; the speaker signal's constant lift does not change
 * their order among themselves, this does. It brings no candidate of its own and computes no new similarity (a
 * candidate the semantic arm scores exactly is scored the same). Null when no speaker is named or none of the
 * semantic arm's results is theirs.
 *
 * @example
 * ```ts
 * const part = speakerSemanticPart({ speakerOf: (slot) => context.speakerOf(slot), semantic, exact }, named, accept);
 * part?.results; // the semantic arm's results that a named speaker said
 * ```
 */
export function speakerSemanticPart(source: SpeakerSemanticSource, speakers: ReadonlySet<number>, accept?: (slot: number) => boolean): SpeakerSemanticPart | null {
  if (speakers.size === 0) return null;
  const theirs = (slot: number): boolean => speakers.has(source.speakerOf(slot)) && (accept === undefined || accept(slot));
  const results = source.semantic.filter(({ slot }) => theirs(slot));
  if (results.length === 0) return null;
  return { results, scoreOf: (slot) => (theirs(slot) ? source.exact(slot) : null) };
}
