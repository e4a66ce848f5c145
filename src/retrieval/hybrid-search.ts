// The hybrid ranking pipeline: lexical and semantic arms, capped, fused with RRF, focus-boosted, reranked.
import type { ArmRank, Explanation } from '../core/types.js';
import type { Reranker } from '../seams/reranker.js';
import { capPerSource } from './cap-per-source.js';
import type { CorpusIndex, SlotFilter } from './corpus-index.js';
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
}

/** A ranked id with its final score and why it ranked. */
export interface RankedId {
  id: string;
  score: number;
  explanation: Explanation;
}

function armRanks(results: { id: string; score: number }[]): Map<string, ArmRank> {
  return new Map(results.map(({ id, score }, position) => [id, { rank: position + 1, score }]));
}

function withIds(index: CorpusIndex, results: { slot: number; score: number }[]): { id: string; score: number }[] {
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
  const lexical = withIds(index, index.lexical(index.analyze(input.queryText), armLimit, input.accept));
  const semantic = input.queryVector === null
    ? []
    : input.searchVectors !== undefined
      ? await input.searchVectors(input.queryVector, armLimit)
      : withIds(index, index.semantic(input.queryVector, armLimit, input.accept));
  const lexicalRanks = armRanks(lexical);
  const semanticRanks = armRanks(semantic);
  const lists = [lexical, semantic].filter((list) => list.length > 0).map((list) => capPerSource(list.map(({ id }) => id), input.capPerSource));
  const fused = reciprocalRankFusion(lists, input.rrfK ?? RRF_K);

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
