// The hybrid ranking pipeline: lexical and semantic arms, capped, fused with RRF, focus-boosted, reranked.
import type { ArmRank, Explanation } from '../core/types.js';
import type { Reranker } from '../seams/reranker.js';
import { capPerSource } from './cap-per-source.js';
import type { CorpusIndex, QueryFeedback, SlotFilter } from './corpus-index.js';
import { FOCUS_BOOST, focusMatches } from './focus-boost.js';
import { RRF_K, reciprocalRankFusion } from './reciprocal-rank-fusion.js';

/** Everything one hybrid search needs. */
export interface HybridSearchInput {
  index: CorpusIndex;
  queryText: string;
  /** The embedded query, or null for lexical-only search. */
  queryVector: Float32Array | null;
  /** Applied to every arm before ranking. */
  accept?: SlotFilter;
  k: number;
  /** Per-arm cap before fusion; 0 = no cap. */
  capPerSource: number;
  rrfK?: number;
  /** How the arms are merged: `rrf` (ranks, the seed's default) or `zscore` (standardised scores, weighted). */
  fusion?: FusionMode;
  /** Pseudo-relevance feedback for the lexical arm (off when absent). */
  feedback?: QueryFeedback;
  /** Arm weights for `zscore` fusion (default lexical 1, semantic 1). */
  weights?: { lexical?: number; semantic?: number };
  focusTerms?: readonly string[];
  focusBoost?: number;
  reranker?: Reranker | null;
  rerankTop?: number;
  /** Reads the texts of candidate ids (for focus terms and reranking). */
  loadTexts(ids: readonly string[]): Promise<Map<string, string>>;
  /**
   * The semantic arm done elsewhere (a store that searches vectors itself, already filtered): the `limit`
   * nearest chunk ids with their cosine similarity, best first. Without it, the index's own vectors are searched.
   */
  searchVectors?(queryVector: Float32Array, limit: number): Promise<{ id: string; score: number }[]>;
  /**
   * With `searchVectors`: the cosine similarity of given chunks (for `zscore` fusion, which scores a candidate
   * missing from the semantic arm exactly). Chunks it leaves out are scored at the arm's mean.
   */
  scoreVectors?(queryVector: Float32Array, ids: readonly string[]): Promise<Map<string, number>>;
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

/** One arm's ranked list: chunk ids with the arm's own scores, best first. */
type ArmList = { id: string; score: number }[];

function armRanks(results: ArmList): Map<string, ArmRank> {
  return new Map(results.map(({ id, score }, position) => [id, { rank: position + 1, score }]));
}

function withIds(index: CorpusIndex, results: { slot: number; score: number }[]): ArmList {
  return results.map(({ slot, score }) => ({ id: index.idOf(slot), score }));
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
  const analyzed = index.analyze(input.queryText);
  const expanded = input.feedback === undefined ? { terms: analyzed, weights: undefined } : index.expandQuery(analyzed, input.feedback, input.accept);
  const queryTerms = expanded.terms;
  const lexical = withIds(index, index.lexical(queryTerms, armLimit, input.accept, expanded.weights));
  const queryVector = input.queryVector;
  const semantic = queryVector === null
    ? []
    : input.searchVectors !== undefined
      ? await input.searchVectors(queryVector, armLimit)
      : withIds(index, index.semantic(queryVector, armLimit, input.accept));
  const lexicalRanks = armRanks(lexical);
  const semanticRanks = armRanks(semantic);
  const lists = [lexical, semantic].filter((list) => list.length > 0).map((list) => capPerSource(list.map(({ id }) => id), input.capPerSource));
  let fused: [string, number][];
  if (input.fusion === 'zscore') {
    const lexicalExact = (id: string) => {
      const slot = index.slotOf(id);
      return slot === undefined ? undefined : index.bm25.scoreOf(queryTerms, slot, expanded.weights);
    };
    let semanticExact = (id: string): number | undefined => {
      const slot = index.slotOf(id);
      return queryVector === null || slot === undefined ? undefined : (index.semanticVectors.scoreOf(queryVector, slot) ?? undefined);
    };
    if (queryVector !== null && input.searchVectors !== undefined) {
      const found = new Set(semantic.map(({ id }) => id));
      const missing = cap(lexical, input.capPerSource).map(({ id }) => id).filter((id) => !found.has(id));
      const scores = missing.length > 0 && input.scoreVectors !== undefined ? await input.scoreVectors(queryVector, missing) : new Map<string, number>();
      semanticExact = (id) => scores.get(id);
    }
    fused = zScoreFusion(
      [{ kind: 'lexical' as const, results: lexical, exact: lexicalExact }, { kind: 'semantic' as const, results: semantic, exact: semanticExact }].filter((arm) => arm.results.length > 0),
      input.capPerSource,
      input.weights,
    );
  } else {
    fused = reciprocalRankFusion(lists, input.rrfK ?? RRF_K);
  }

  const focusTerms = input.focusTerms ?? [];
  const reranker = input.reranker ?? null;
  const rerankTop = Math.min(fused.length, input.rerankTop ?? Math.max(20, 2 * k));
  const needTexts = focusTerms.length > 0 ? fused.map(([id]) => id) : reranker !== null ? fused.slice(0, rerankTop).map(([id]) => id) : [];
  const texts = needTexts.length > 0 ? await input.loadTexts(needTexts) : new Map<string, string>();

  let ranked: RankedId[] = fused.map(([id, score]) => {
    const matches = focusMatches(texts.get(id) ?? '', focusTerms);
    const boost = matches.length > 0 ? (input.focusBoost ?? FOCUS_BOOST) : 0;
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

/** The first `limit` entries of an arm (all when 0). */
function cap(results: ArmList, limit: number): ArmList {
  return limit > 0 ? results.slice(0, limit) : results;
}

/** One arm's ranked results, for score fusion, and how to score a chunk the arm did not return. */
interface ArmResults {
  kind: 'lexical' | 'semantic';
  results: ArmList;
  /** The arm's exact score of a chunk (BM25, or cosine), or undefined when it cannot say. */
  exact(id: string): number | undefined;
}

/**
 * Score fusion: each arm's scores are standardised by the mean and deviation of that arm's own capped list;
 * a candidate missing from an arm is scored exactly in it (the chunk's BM25, or its cosine) and standardised
 * the same way (at the arm's mean when it cannot be scored). The fused score is the weighted sum. Ties keep
 * first appearance, as in RRF.
 */
function zScoreFusion(arms: ArmResults[], limit: number, weights: { lexical?: number; semantic?: number } = {}): [string, number][] {
  const order = new Map<string, number>();
  const capped = arms.map((arm) => ({ ...arm, results: cap(arm.results, limit) }));
  for (const arm of capped) for (const { id } of arm.results) if (!order.has(id)) order.set(id, order.size);
  const scorers = capped.map((arm) => {
    const scores = arm.results.map(({ score }) => score);
    const mean = scores.reduce((sum, score) => sum + score, 0) / Math.max(1, scores.length);
    const deviation = Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / Math.max(1, scores.length)) || 1;
    const known = new Map(arm.results.map(({ id, score }) => [id, score]));
    const weight = arm.kind === 'lexical' ? (weights.lexical ?? 1) : (weights.semantic ?? 1);
    return (id: string) => (weight * ((known.get(id) ?? arm.exact(id) ?? mean) - mean)) / deviation;
  });
  const fused: [string, number][] = [...order.keys()].map((id) => [id, scorers.reduce((sum, scorer) => sum + scorer(id), 0)]);
  fused.sort((a, b) => b[1] - a[1] || (order.get(a[0]) as number) - (order.get(b[0]) as number));
  return fused;
}
