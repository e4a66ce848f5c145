// Reply handoff: a fused head's chunk that ends with a question steps down, and the chunk answering it takes its place.
import { optionalWeightAndHead } from './weight-and-head.js';

/** Reply handoff settings (see `QueryOptions.replyHandoff`). */
export interface ReplyHandoffOptions {
  /** Subtracted from the score of each head chunk whose last sentence is a question. */
  weight: number;
  /** How many of the fused ranking's first candidates are read (a fixed number, so k does not change the order). */
  head: number;
}

/** The head when a caller gives only a weight. */
export const REPLY_HANDOFF_HEAD = 50;
/** The longest head reply handoff may read (its cost is the head's texts). */
export const MAX_REPLY_HANDOFF_HEAD = 200;

/**
 * Checks reply handoff settings as a caller gives them (`{ weight, head? }`; null: off; undefined: `defaults`),
 * filling the head left out (50); a clear INVALID_INPUT for anything else. Weight 0 is off.
 *
 * @example
 * ```ts
 * optionalReplyHandoff({ weight: 0.5 }, null); // { weight: 0.5, head: 50 }
 * ```
 */
export function optionalReplyHandoff(value: unknown, defaults: ReplyHandoffOptions | null): ReplyHandoffOptions | undefined {
  return optionalWeightAndHead(value, defaults, { field: 'replyHandoff', defaultHead: REPLY_HANDOFF_HEAD, maxHead: MAX_REPLY_HANDOFF_HEAD });
}

/** The marks that end a sentence; the question marks among them (Latin, full-width, Arabic). */
const SENTENCE_END = /[.!?。！？؟…]/gu;
const QUESTION = new Set(['?', '？', '؟']);

/**
 * True when the text's last sentence is a question: the last mark ending a sentence (`.`, `!`, `?`, `…`, their
 * full-width forms, the Arabic question mark) is a question mark, whatever follows it (a closing quotation mark, a
 * bracket, an emoticon). A text with no such mark asks nothing.
 *
 * @example
 * ```ts
 * asksQuestion('We went camping. Have you been?'); // true
 * asksQuestion('Did you? We did.'); // false
 * ```
 */
export function asksQuestion(text: string): boolean {
  let last = '';
  for (const [mark] of text.matchAll(SENTENCE_END)) last = mark;
  return QUESTION.has(last);
}

/** A ranked candidate as reply handoff reads it. */
export interface HandoffCandidate {
  slot: number;
  score: number;
}

/**
 * What reply handoff adds to each candidate's score (0 for most; in the candidates' order). Each of the first
 * `head` candidates that `asks` loses `weight`; its reply (`replyOf`: the chunk after it, when that is a candidate
 * too) is raised to at least the question's score before the step. A chunk both a reply and a question takes the
 * raise, then the step. A question's words find it, but in a conversation the answer is what follows. The result
 * depends only on the head and the candidates, never on k.
 *
 * @example
 * ```ts
 * replyHandoffs([{ slot: 1, score: 3 }, { slot: 5, score: 2 }, { slot: 2, score: 1 }], (slot) => slot === 1, (slot) => slot + 1, { weight: 0.5, head: 50 });
 * // [-0.5, 0, 2]: slot 1 asks and steps down; its reply, slot 2, rises to 3
 * ```
 */
export function replyHandoffs(candidates: readonly HandoffCandidate[], asks: (slot: number) => boolean, replyOf: (slot: number) => number | null, options: ReplyHandoffOptions): Float64Array {
  const changes = new Float64Array(candidates.length);
  const size = Math.min(options.head, candidates.length);
  const position = new Map<number, number>();
  candidates.forEach(({ slot }, place) => position.set(slot, place));
  const raised = new Float64Array(candidates.length).fill(Number.NEGATIVE_INFINITY);
  const stepped = new Uint8Array(candidates.length);
  for (let place = 0; place < size; place++) {
    const { slot, score } = candidates[place] as HandoffCandidate;
    if (!asks(slot)) continue;
    stepped[place] = 1;
    const reply = replyOf(slot);
    const replyPlace = reply === null ? undefined : position.get(reply);
    if (replyPlace !== undefined && replyPlace !== place && score > (raised[replyPlace] as number)) raised[replyPlace] = score;
  }
  for (let place = 0; place < candidates.length; place++) {
    const score = (candidates[place] as HandoffCandidate).score;
    const lift = Math.max(0, (raised[place] as number) - score);
    changes[place] = lift - (stepped[place] === 1 ? options.weight : 0);
  }
  return changes;
}
