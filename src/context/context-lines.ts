// The candidate lines of each context section, best first, each with its source and a short source tag.
import { oneLine, shortId } from '../core/one-line.js';
import type { Fact, MentalModel } from '../core/living-types.js';
import type { Hit } from '../core/types.js';
import type { BeliefView } from '../living/living-memory.js';
import type { LoreHit } from '../lore/lore-book.js';
import type { Analyzer } from '../retrieval/corpus-index.js';
import type { LineCandidate } from './allocate-budget.js';
import type { ContextSource } from './context-types.js';

/** How lines are written: whether they end with a source tag. (Their tokens are counted by the budget, as far as it needs.) */
export interface LineStyle {
  sourceTags: boolean;
}

function line(style: LineStyle, body: string, tag: string, source: ContextSource): LineCandidate {
  return { text: `- ${oneLine(body)}${style.sourceTags ? ` [${tag}]` : ''}`, source };
}

/** How many of the message's terms a text holds (distinct analyzed terms): the relevance of beliefs and facts. */
export function termOverlap(analyzer: Analyzer, messageTerms: ReadonlySet<string>, text: string): number {
  if (messageTerms.size === 0) return 0;
  return new Set(analyzer(text).filter((term) => messageTerms.has(term))).size;
}

/** Mental models, in the order of their subjects (the character first). */
export function modelLines(style: LineStyle, models: readonly MentalModel[]): LineCandidate[] {
  return models.map((model) =>
    line(style, `${model.subject === '' ? 'The world' : model.subject}: ${model.summary}`, `model ${model.modelId}, turn ${model.updatedTurnId}`, {
      kind: 'mental_model',
      modelId: model.modelId,
      subject: model.subject,
      updatedTurnId: model.updatedTurnId,
      stale: model.stale,
    }),
  );
}

/**
 * Beliefs, best first: most message terms, then the subject's order (the character first), then more sources,
 * then the most recently updated, then the lower id. Each line shows the trend and the number of facts behind it.
 */
export function beliefLines(style: LineStyle, beliefs: readonly BeliefView[], subjectOrder: readonly string[], relevance: (text: string) => number): LineCandidate[] {
  const order = (subject: string) => {
    const index = subjectOrder.indexOf(subject.toLowerCase());
    return index === -1 ? subjectOrder.length : index;
  };
  const scored = beliefs.map((belief) => ({ belief, relevance: relevance(belief.statement) }));
  scored.sort((a, b) =>
    b.relevance - a.relevance
    || order(a.belief.subject) - order(b.belief.subject)
    || b.belief.proofCount - a.belief.proofCount
    || b.belief.updatedTurnId - a.belief.updatedTurnId
    || (a.belief.beliefId ?? 0) - (b.belief.beliefId ?? 0));
  return scored.map(({ belief }) =>
    line(style, `${belief.statement} (${belief.trend}, ${belief.proofCount} fact${belief.proofCount === 1 ? '' : 's'})`, `belief ${belief.beliefId}`, {
      kind: 'belief',
      beliefId: belief.beliefId,
      subject: belief.subject,
      trend: belief.trend,
      proofCount: belief.proofCount,
      updatedTurnId: belief.updatedTurnId,
      factIds: belief.sources.map((source) => source.factId),
    }),
  );
}

/** Facts, best first: most message terms, then the most recent turn, then the higher id. Shown in turn order. */
export function factLines(style: LineStyle, facts: readonly Fact[], relevance: (text: string) => number): LineCandidate[] {
  const scored = facts.map((fact) => ({ fact, relevance: relevance(fact.statement) }));
  scored.sort((a, b) => b.relevance - a.relevance || (b.fact.turnId ?? 0) - (a.fact.turnId ?? 0) || (b.fact.factId ?? 0) - (a.fact.factId ?? 0));
  return scored.map(({ fact }) => line(style, `[turn ${fact.turnId}] ${fact.statement}`, `fact ${fact.factId}`, { kind: 'fact', factId: fact.factId, turnId: fact.turnId }));
}

/** Narrative hits, in the query's order (best first). Shown in turn order. */
export function memoryLines(style: LineStyle, hits: readonly Hit[]): LineCandidate[] {
  return hits.map((hit) =>
    line(style, `[turn ${hit.turnId}] ${hit.text}`, `chunk ${shortId(hit.id)}`, { kind: 'chunk', chunkId: hit.id, turnId: hit.turnId, chunkType: hit.chunkType, score: hit.score }),
  );
}

/** Lore hits, in the search's order (best first), each as "title: content". */
export function loreLines(style: LineStyle, hits: readonly LoreHit[]): LineCandidate[] {
  return hits.map((hit) =>
    line(style, `${hit.title}: ${hit.content}`, `lore ${shortId(hit.entryId)}`, { kind: 'lore', entryId: hit.entryId, title: hit.title, scopeLevel: hit.scopeLevel, score: hit.score }),
  );
}

/** Display order by turn (then best first): for facts and memories, which read as a story. */
export function byTurn(a: LineCandidate, b: LineCandidate): number {
  const turn = (line: LineCandidate) => (line.source.kind === 'fact' || line.source.kind === 'chunk' ? (line.source.turnId ?? 0) : 0);
  return turn(a) - turn(b);
}
