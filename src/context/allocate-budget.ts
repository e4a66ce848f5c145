// The budget rule of the context builder: per-section shares first, then the leftover by priority; lines are whole or absent.
import { MnemoError } from '../core/errors.js';
import { TimeSlice } from '../core/time-slice.js';
import type { TokenCounter } from '../seams/token-counter.js';
import { TokenTally, countTokens } from '../token-counters/token-tally.js';
import { CONTEXT_SECTIONS } from './context-types.js';
import type { ContextLine, ContextSection, ContextSectionName } from './context-types.js';

/** Each section's first-pass share of the budget. */
export const DEFAULT_SHARES: Readonly<Record<ContextSectionName, number>> = { mental_model: 0.15, beliefs: 0.2, facts: 0.15, memories: 0.3, lore_context: 0.2 };

/** A candidate line: its text and source (its tokens are counted by the allocation, only as far as needed). */
export type LineCandidate = Pick<ContextLine, 'text' | 'source'>;

/** A section's candidates, best first, and the order its kept lines are shown in. */
export interface SectionCandidates {
  lines: readonly LineCandidate[];
  /** Display order of the kept lines; ties (and the default) go best first. */
  display?: (a: LineCandidate, b: LineCandidate) => number;
}

/**
 * The first-pass caps: floor(budget x share / sum of shares), so they never add up to more than the budget.
 *
 * @example
 * ```ts
 * sectionCaps(1000); // { mental_model: 150, beliefs: 200, facts: 150, memories: 300, lore_context: 200 }
 * sectionCaps(1000, { memories: 0.6 }).memories; // 461
 * ```
 */
export function sectionCaps(budget: number, shares: Partial<Record<ContextSectionName, number>> = {}): Record<ContextSectionName, number> {
  const merged = { ...DEFAULT_SHARES, ...shares };
  for (const name of CONTEXT_SECTIONS) {
    const share = merged[name];
    if (typeof share !== 'number' || !Number.isFinite(share) || share < 0) {
      throw new MnemoError('INVALID_INPUT', `shares.${name}: expected a number >= 0, got ${JSON.stringify(share)}. Shares are relative weights such as 0.2.`, { details: { field: `shares.${name}` } });
    }
  }
  const total = CONTEXT_SECTIONS.reduce((sum, name) => sum + merged[name], 0);
  if (total === 0) throw new MnemoError('INVALID_INPUT', 'shares: expected at least one share above 0, got all 0. Leave shares out to use the defaults.', { details: { field: 'shares' } });
  return Object.fromEntries(CONTEXT_SECTIONS.map((name) => [name, Math.floor((budget * merged[name]) / total)])) as Record<ContextSectionName, number>;
}

interface SectionState {
  kept: LineCandidate[];
  deferred: LineCandidate[];
  /** What the kept lines cost at most: their own tokens plus one separator between each two. */
  bound: number;
}

/**
 * Fits the sections into `budget` tokens. Pass 1: in priority order (mental_model, beliefs, facts, memories,
 * lore_context), each section takes its candidates best first while its text stays within its cap; a line that
 * does not fit is set aside and the next ones are still tried. Pass 2: the budget left over goes to the set-aside
 * lines, again in priority order and best first. A line is kept whole or left out (reported in `omitted`).
 *
 * Linear in the candidates' text: each line is counted once, and only as far as the room left (a line of 100,000
 * characters facing 300 tokens of room costs about 300 tokens of counting), resumed if it is tried again with more
 * room. A section's text costs at most its lines' tokens plus one per newline between them (true of BPE counters
 * and of the estimate: a newline can only merge into a neighbour), so lines are admitted on that bound; each
 * section's joined text is then counted once, so the reported `tokens` are exact for the text returned (and were
 * a counter to exceed the bound, the last lines admitted are left out until the budget holds). A line's own
 * `tokens` is exact for kept lines; for an omitted one, counting may have stopped once it could not fit (then it
 * is a lower bound, above the room it had). Counting gives the event loop back every few milliseconds.
 *
 * @example
 * ```ts
 * const sections = await allocateBudget({ beliefs: { lines } }, 300, {}, counter);
 * sections.find((section) => section.name === 'beliefs')?.text;
 * ```
 */
export async function allocateBudget(
  candidates: Partial<Record<ContextSectionName, SectionCandidates>>,
  budget: number,
  shares: Partial<Record<ContextSectionName, number>>,
  counter: TokenCounter,
  slice: TimeSlice = new TimeSlice(),
): Promise<ContextSection[]> {
  const caps = sectionCaps(budget, shares);
  const separator = counter.count('\n');
  const states = new Map<ContextSectionName, SectionState>(CONTEXT_SECTIONS.map((name) => [name, { kept: [], deferred: [], bound: 0 }]));
  const tallies = new Map<LineCandidate, TokenTally>();
  const tallyOf = (line: LineCandidate) => {
    let tally = tallies.get(line);
    if (tally === undefined) {
      tally = new TokenTally(counter, line.text);
      tallies.set(line, tally);
    }
    return tally;
  };
  /** Keeps `line` when it fits in `room` more tokens of the section's bound; returns what it added, or null when it did not fit. */
  const admit = async (state: SectionState, line: LineCandidate, room: number): Promise<number | null> => {
    const joining = state.kept.length > 0 ? separator : 0;
    const limit = room - joining;
    if (limit < 0) return null;
    const tokens = await tallyOf(line).upTo(limit, slice);
    if (tokens > limit) return null;
    state.kept.push(line);
    state.bound += joining + tokens;
    return joining + tokens;
  };

  let used = 0;
  for (const name of CONTEXT_SECTIONS) {
    const state = states.get(name) as SectionState;
    for (const line of candidates[name]?.lines ?? []) {
      if ((await admit(state, line, caps[name] - state.bound)) === null) state.deferred.push(line);
    }
    used += state.bound;
  }
  for (const name of CONTEXT_SECTIONS) {
    const state = states.get(name) as SectionState;
    const stillOut: LineCandidate[] = [];
    for (const line of state.deferred) {
      const added = await admit(state, line, budget - used);
      if (added === null) stillOut.push(line);
      else used += added;
    }
    state.deferred = stillOut;
  }
  return exactSections(candidates, states, caps, budget, counter, tallyOf, slice);
}

/**
 * The sections as returned: kept lines in display order, their joined text counted once. Should a counter charge
 * a joined text more than its lines and separators, the lines admitted last (lowest priority first) are left out
 * until the sections fit the budget again.
 */
async function exactSections(
  candidates: Partial<Record<ContextSectionName, SectionCandidates>>,
  states: Map<ContextSectionName, SectionState>,
  caps: Record<ContextSectionName, number>,
  budget: number,
  counter: TokenCounter,
  tallyOf: (line: LineCandidate) => TokenTally,
  slice: TimeSlice,
): Promise<ContextSection[]> {
  const rank = new Map<LineCandidate, number>();
  for (const name of CONTEXT_SECTIONS) candidates[name]?.lines.forEach((line, index) => rank.set(line, index));
  const ordered = (name: ContextSectionName, lines: readonly LineCandidate[]) => {
    const display = candidates[name]?.display;
    return [...lines].sort((a, b) => (display === undefined ? 0 : display(a, b)) || (rank.get(a) ?? 0) - (rank.get(b) ?? 0));
  };
  const texts = new Map<ContextSectionName, { lines: LineCandidate[]; text: string; tokens: number }>();
  const measure = async (name: ContextSectionName) => {
    const lines = ordered(name, (states.get(name) as SectionState).kept);
    const text = lines.map((line) => line.text).join('\n');
    texts.set(name, { lines, text, tokens: await countTokens(counter, text, slice) });
  };
  for (const name of CONTEXT_SECTIONS) await measure(name);
  const total = () => CONTEXT_SECTIONS.reduce((sum, name) => sum + (texts.get(name)?.tokens ?? 0), 0);
  for (const name of [...CONTEXT_SECTIONS].reverse()) {
    const state = states.get(name) as SectionState;
    while (total() > budget && state.kept.length > 0) {
      state.deferred.push(state.kept.pop() as LineCandidate);
      await measure(name);
    }
  }
  const withTokens = (line: LineCandidate): ContextLine => ({ text: line.text, tokens: tallyOf(line).total, source: line.source });
  return CONTEXT_SECTIONS.map((name) => {
    const state = states.get(name) as SectionState;
    const { lines, text, tokens } = texts.get(name) as { lines: LineCandidate[]; text: string; tokens: number };
    return { name, text, tokens, cap: caps[name], lines: lines.map(withTokens), omitted: state.deferred.map(withTokens) };
  });
}
