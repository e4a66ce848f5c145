// The budget rule of the context builder: per-section shares first, then the leftover by priority; lines are whole or absent.
import { MnemoError } from '../core/errors.js';
import type { TokenCounter } from '../seams/token-counter.js';
import { CONTEXT_SECTIONS } from './context-types.js';
import type { ContextLine, ContextSection, ContextSectionName } from './context-types.js';

/** Each section's first-pass share of the budget. */
export const DEFAULT_SHARES: Readonly<Record<ContextSectionName, number>> = { mental_model: 0.15, beliefs: 0.2, facts: 0.15, memories: 0.3, lore_context: 0.2 };

/** A section's candidates, best first, and the order its kept lines are shown in. */
export interface SectionCandidates {
  lines: ContextLine[];
  /** Display order of the kept lines; ties (and the default) go best first. */
  display?: (a: ContextLine, b: ContextLine) => number;
}

/** The first-pass caps: floor(budget x share / sum of shares), so they never add up to more than the budget. */
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
  kept: ContextLine[];
  deferred: ContextLine[];
  tokens: number;
}

/**
 * Fits the sections into `budget` tokens. Pass 1: in priority order (mental_model, beliefs, facts, memories,
 * lore_context), each section takes its candidates best first while its text stays within its cap; a line that
 * does not fit is set aside and the next ones are still tried. Pass 2: the budget left over goes to the set-aside
 * lines, again in priority order and best first. A line is kept whole or left out (reported in `omitted`), and a
 * section's tokens are counted on its joined text in display order, so the counts are exact for the text returned.
 *
 * @example
 * ```ts
 * const sections = allocateBudget({ beliefs: { lines } }, 300, {}, counter);
 * sections.find((section) => section.name === 'beliefs')?.text;
 * ```
 */
export function allocateBudget(
  candidates: Partial<Record<ContextSectionName, SectionCandidates>>,
  budget: number,
  shares: Partial<Record<ContextSectionName, number>>,
  counter: TokenCounter,
): ContextSection[] {
  const caps = sectionCaps(budget, shares);
  const states = new Map<ContextSectionName, SectionState>(CONTEXT_SECTIONS.map((name) => [name, { kept: [], deferred: [], tokens: 0 }]));
  const rank = new Map<ContextLine, number>();
  for (const name of CONTEXT_SECTIONS) candidates[name]?.lines.forEach((line, index) => rank.set(line, index));
  const byRank = (a: ContextLine, b: ContextLine) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
  const ordered = (name: ContextSectionName, lines: ContextLine[]) => {
    const display = candidates[name]?.display;
    return [...lines].sort((a, b) => (display === undefined ? 0 : display(a, b)) || byRank(a, b));
  };
  const tokensWith = (name: ContextSectionName, state: SectionState, line: ContextLine) => counter.count(ordered(name, [...state.kept, line]).map((kept) => kept.text).join('\n'));

  let used = 0;
  for (const name of CONTEXT_SECTIONS) {
    const state = states.get(name) as SectionState;
    for (const line of candidates[name]?.lines ?? []) {
      const tokens = tokensWith(name, state, line);
      if (tokens <= caps[name]) {
        state.kept.push(line);
        state.tokens = tokens;
      } else {
        state.deferred.push(line);
      }
    }
    used += state.tokens;
  }
  for (const name of CONTEXT_SECTIONS) {
    const state = states.get(name) as SectionState;
    const stillOut: ContextLine[] = [];
    for (const line of state.deferred) {
      const tokens = tokensWith(name, state, line);
      if (used + tokens - state.tokens <= budget) {
        used += tokens - state.tokens;
        state.kept.push(line);
        state.tokens = tokens;
      } else {
        stillOut.push(line);
      }
    }
    state.deferred = stillOut;
  }
  return CONTEXT_SECTIONS.map((name) => {
    const state = states.get(name) as SectionState;
    const lines = ordered(name, state.kept);
    return { name, text: lines.map((line) => line.text).join('\n'), tokens: state.tokens, cap: caps[name], lines, omitted: state.deferred };
  });
}
