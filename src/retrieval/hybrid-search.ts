// The hybrid ranking pipeline: lexical and semantic arms, capped, fused (z-score or RRF), focus-boosted, reranked.
import type { ArmRank, Explanation } from '../core/types.js';
import type { Reranker } from '../seams/reranker.js';
import type { ScoreTotals, VectorMatch } from '../seams/vector-search.js';
import { capPerSource } from './cap-per-source.js';
import type { CorpusIndex, QueryFeedback, SlotFilter } from './corpus-index.js';
import { FOCUS_BOOST, FocusMatcher, matchHead } from './focus-boost.js';
import { RRF_K, reciprocalRankFusion } from './reciprocal-rank-fusion.js';
import { ScoreStatistics } from './score-statistics.js';

/** Everything one hybrid search needs. */
export interface HybridSearchInput {
  index: CorpusIndex;
  queryText: string;
  /** The embedded query, or null for lexical-only search. */
  queryVector: Float32Array | null;
  /** Applied to every arm before ranking. */
  accept?: SlotFilter;
  /**
   * True when `accept` says what the caller may see (a character's lore), not just what it asks for: every
   * statistic a score depends on (BM25's N, average length and document frequencies, the z-score means and
   * deviations) is then that of the accepted documents alone, so a hidden document changes no score or order.
   * False (default): the statistics are the whole corpus's (a save's, whatever the turn window or type asked).
   */
  statisticsOfAccepted?: boolean;
  k: number;
  /** Per-arm cap before fusion; 0 = no cap. */
  capPerSource: number;
  rrfK?: number;
  /** How the arms are merged: `rrf` (ranks, the seed's default) or `zscore` (standardised scores, weighted). */
  fusion?: FusionMode;
  /** Pseudo-relevance feedback for the lexical arm (off when absent). */
  feedback?: QueryFeedback;
  /** Arm weights for `zscore` fusion (default lexical 1, semantic 1); an arm weighted 0 is not run at all. */
  weights?: { lexical?: number; semantic?: number };
  focusTerms?: readonly string[];
  focusBoost?: number;
  reranker?: Reranker | null;
  rerankTop?: number;
  /** Reads the texts of candidate ids (for focus terms and reranking); called for the few candidates that need them. */
  loadTexts(ids: readonly string[]): Promise<Map<string, string>>;
  /** The semantic arm searched where the vectors live (the store's vector search), instead of the index's own vectors. */
  vectorArm?: VectorArm;
}

/**
 * The semantic arm done outside the index, by a store that keeps the vectors (bound to one save, its filter and
 * its neighbour context; see `VectorSearch`). The index then holds no vectors, only their length.
 */
export interface VectorArm {
  /**
   * The `limit` nearest document ids with their cosine similarity, best first, already filtered. When it compared
   * every permitted document (an exact search) it adds their scores to `statistics` (for z-score fusion).
   */
  search(queryVector: Float32Array, limit: number, statistics?: ScoreTotals): Promise<VectorMatch[]>;
  /** The cosine similarity of given documents (for z-score fusion, which scores a lexical candidate the arm missed exactly); those left out are scored at the arm's mean. */
  score(queryVector: Float32Array, ids: readonly string[]): Promise<Map<string, number>>;
}

/** The fusion methods. */
export const FUSION_MODES = ['rrf', 'zscore'] as const;
export type FusionMode = (typeof FUSION_MODES)[number];

/** A ranked id with its final score and why it ranked. */
export interface RankedId {
  id: string;
  score: number;
  explanation: Explanation;
}

function armRanks(index: CorpusIndex, results: { slot: number; score: number }[]): Map<string, ArmRank> {
  return new Map(results.map(({ slot, score }, position) => [index.idOf(slot), { rank: position + 1, score }]));
}

/**
 * Runs the seed's hybrid ranking over one corpus index. Deterministic: the same index and input always give
 * the same order.
 *
 * @example
 * ```ts
 * const ranked = await hybridSearch({ index, queryText: 'who guards the gate', queryVector: null, k: 5,
 *   capPerSource: 50, loadTexts: async () => new Map() });
 * ```
 */
export async function hybridSearch(input: HybridSearchInput): Promise<RankedId[]> {
  const { index, k } = input;
  const armLimit = input.capPerSource > 0 ? input.capPerSource : index.bm25.slots;
  const { lexical: runLexical, semantic: runSemantic } = armsToRun(input);
  // z-score fusion standardises each arm by the scores of every document it scored, not just its capped head.
  const statistics = input.fusion === 'zscore' ? { lexical: new ScoreStatistics(), semantic: new ScoreStatistics() } : undefined;
  const analyzed = index.analyze(input.queryText);
  const visible = input.statisticsOfAccepted === true && input.accept !== undefined ? input.accept : undefined;
  const corpus = visible === undefined ? undefined : index.bm25.corpusWithin(visible);
  const expanded = !runLexical
    ? { terms: analyzed, weights: undefined, results: [] }
    : input.feedback === undefined
      ? { terms: analyzed, weights: undefined, results: index.lexical(analyzed, armLimit, input.accept, undefined, statistics?.lexical, corpus) }
      : index.lexicalWithFeedback(analyzed, armLimit, input.feedback, input.accept, statistics?.lexical, corpus);
  const queryTerms = expanded.terms;
  const lexical = expanded.results;
  const semantic = input.queryVector === null || !runSemantic ? [] : await semanticArm(input, armLimit, visible === undefined || input.vectorArm !== undefined ? statistics?.semantic : undefined);
  // The store's vector search scores what the filter permits exactly; the index's own scan approximates around all vectors.
  if (corpus !== undefined && statistics !== undefined && input.queryVector !== null && runSemantic && input.vectorArm === undefined) {
    index.exactSemanticStatistics(input.queryVector, corpus.mask, statistics.semantic);
  }
  const lexicalRanks = armRanks(index, lexical);
  const semanticRanks = armRanks(index, semantic);
  let fused: [string, number][];
  if (input.fusion === 'zscore') {
    const queryVector = input.queryVector;
    let semanticExact = (slot: number): number | null => (queryVector === null ? null : index.semanticScoreOf(queryVector, slot));
    if (queryVector !== null && input.vectorArm !== undefined) {
      // The store holds the vectors: the lexical candidates the semantic arm did not return are scored there, at once.
      const found = new Set(semantic.map(({ slot }) => slot));
      const missing = lexical.slice(0, input.capPerSource > 0 ? input.capPerSource : lexical.length).filter(({ slot }) => !found.has(slot));
      const scores = missing.length > 0 ? await input.vectorArm.score(queryVector, missing.map(({ slot }) => index.idOf(slot))) : new Map<string, number>();
      semanticExact = (slot) => scores.get(index.idOf(slot)) ?? null;
    }
    fused = zScoreFusion(
      [{ kind: 'lexical' as const, results: lexical }, { kind: 'semantic' as const, results: semantic }].filter((arm) => arm.results.length > 0),
      input.capPerSource,
      { lexical: (slot) => index.bm25.scoreOf(queryTerms, slot, expanded.weights, corpus), semantic: semanticExact },
      input.weights,
      statistics,
    ).map(([slot, score]) => [index.idOf(slot), score]);
  } else {
    const lists = [lexical, semantic].filter((list) => list.length > 0).map((list) => capPerSource(list.map(({ slot }) => index.idOf(slot)), input.capPerSource));
    fused = reciprocalRankFusion(lists, input.rrfK ?? RRF_K);
  }

  const focus = new FocusMatcher(input.focusTerms ?? []);
  const focusBoost = input.focusBoost ?? FOCUS_BOOST;
  const reranker = input.reranker ?? null;
  const rerankTop = Math.min(fused.length, input.rerankTop ?? Math.max(20, 2 * k));
  // Only the candidates that can still reach the hits (or the reranked head) once boosted are read and matched.
  const { matches: matched, texts } = !focus.empty
    ? await matchHead(focus, fused, focusBoost, Math.max(k, reranker !== null ? rerankTop : 0), input.loadTexts)
    : { matches: new Map<string, string[]>(), texts: reranker !== null && rerankTop > 0 ? await input.loadTexts(fused.slice(0, rerankTop).map(([id]) => id)) : new Map<string, string>() };

  let ranked: RankedId[] = fused.map(([id, score]) => {
    const matches = matched.get(id) ?? [];
    const boost = matches.length > 0 ? focusBoost : 0;
    return {
      id,
      score: score + boost,
      explanation: { lexical: lexicalRanks.get(id) ?? null, semantic: semanticRanks.get(id) ?? null, fused: score, boost, rerank: null, focusMatches: matches },
    };
  });
  ranked = ranked.map((hit, order) => ({ hit, order })).sort((a, b) => b.hit.score - a.hit.score || a.order - b.order).map(({ hit }) => hit);

  if (reranker !== null && ranked.length > 0) ranked = await rerankHead(ranked, rerankTop, input.queryText, reranker, texts);
  return ranked.slice(0, k);
}

/**
 * The semantic arm: the index's own vectors, or the store's search (`vectorArm`) mapped to the index's slots (a
 * document the index does not hold, written after it was read, is left out).
 */
async function semanticArm(input: HybridSearchInput, limit: number, statistics?: ScoreStatistics): Promise<{ slot: number; score: number }[]> {
  const { index, queryVector } = input;
  if (queryVector === null) return [];
  if (input.vectorArm === undefined) return index.semantic(queryVector, limit, input.accept, statistics);
  const matches = await input.vectorArm.search(queryVector, limit, statistics);
  const results: { slot: number; score: number }[] = [];
  for (const { id, score } of matches) {
    const slot = index.slotOf(id);
    if (slot !== undefined) results.push({ slot, score });
  }
  return results;
}

/**
 * Which arms a search runs: with z-score fusion, an arm weighted 0 adds nothing to any score, so it is skipped
 * (unless both are 0). RRF ignores weights.
 *
 * @example
 * ```ts
 * armsToRun({ fusion: 'zscore', weights: { semantic: 0 } }); // { lexical: true, semantic: false }
 * ```
 */
export function armsToRun(input: { fusion?: FusionMode; weights?: { lexical?: number; semantic?: number } }): { lexical: boolean; semantic: boolean } {
  if (input.fusion !== 'zscore') return { lexical: true, semantic: true };
  const lexical = (input.weights?.lexical ?? 1) !== 0;
  const semantic = (input.weights?.semantic ?? 1) !== 0;
  return lexical || semantic ? { lexical, semantic } : { lexical: true, semantic: true };
}

async function rerankHead(ranked: RankedId[], top: number, query: string, reranker: Reranker, texts: Map<string, string>): Promise<RankedId[]> {
  const head = ranked.slice(0, top);
  const scores = await reranker.rerank(query, head.map((hit) => texts.get(hit.id) ?? '')).catch(() => null);
  if (scores === null || scores.length !== head.length) return ranked;
  const rescored = head
    .map((hit, order) => ({ hit: { ...hit, score: scores[order] as number, explanation: { ...hit.explanation, rerank: scores[order] as number } }, order }))
    .sort((a, b) => b.hit.score - a.hit.score || a.order - b.order)
    .map(({ hit }) => hit);
  return [...rescored, ...ranked.slice(top)];
}

/** One arm's ranked results, for score fusion. */
interface ArmResults {
  kind: 'lexical' | 'semantic';
  results: { slot: number; score: number }[];
}

/**
 * Score fusion: each arm's scores are standardised by the mean and deviation of that arm's scores over every
 * document it scored (the lexical arm: the accepted documents matching a query term; the semantic arm: every
 * accepted document with a vector), so the standardisation does not depend on k or the cap (without those
 * statistics, the arm's capped list is used). The candidates are the capped lists; a candidate missing from an
 * arm is scored exactly in it by `exact` (the document's BM25, or its cosine; at the arm's mean when it has no
 * score there) and standardised the same way. The fused score is the weighted sum. Ties keep first appearance,
 * as in RRF.
 */
function zScoreFusion(
  arms: ArmResults[],
  cap: number,
  exact: Record<ArmResults['kind'], (slot: number) => number | null>,
  weights: { lexical?: number; semantic?: number } = {},
  statistics?: { lexical: ScoreStatistics; semantic: ScoreStatistics },
): [number, number][] {
  const order = new Map<number, number>();
  const capped = arms.map((arm) => ({ ...arm, results: cap > 0 ? arm.results.slice(0, cap) : arm.results }));
  for (const arm of capped) for (const { slot } of arm.results) if (!order.has(slot)) order.set(slot, order.size);
  const scorers = capped.map((arm) => {
    const whole = statistics?.[arm.kind];
    const scores = arm.results.map(({ score }) => score);
    const mean = whole !== undefined && whole.count > 0 ? whole.mean : scores.reduce((sum, score) => sum + score, 0) / Math.max(1, scores.length);
    const deviation =
      (whole !== undefined && whole.count > 0 ? whole.deviation : Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / Math.max(1, scores.length))) || 1;
    const known = new Map(arm.results.map(({ slot, score }) => [slot, score]));
    const weight = arm.kind === 'lexical' ? (weights.lexical ?? 1) : (weights.semantic ?? 1);
    const scoreOf = exact[arm.kind];
    return (slot: number) => (weight * ((known.get(slot) ?? scoreOf(slot) ?? mean) - mean)) / deviation;
  });
  const fused: [number, number][] = [...order.keys()].map((slot) => [slot, scorers.reduce((sum, scorer) => sum + scorer(slot), 0)]);
  fused.sort((a, b) => b[1] - a[1] || (order.get(a[0]) as number) - (order.get(b[0]) as number));
  return fused;
}
