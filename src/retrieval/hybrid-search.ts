// The hybrid ranking pipeline: lexical and semantic arms, capped, fused (z-score or RRF), focus-boosted, reranked.
import type { ArmRank, Contributions, Explanation } from '../core/types.js';
import type { Reranker } from '../seams/reranker.js';
import type { ScoreTotals, VectorMatch } from '../seams/vector-search.js';
import { capPerSource } from './cap-per-source.js';
import type { CorpusIndex, QueryFeedback, SlotFilter } from './corpus-index.js';
import type { Bm25Corpus } from './bm25.js';
import { FOCUS_BOOST, FocusMatcher, matchHead } from './focus-boost.js';
import { RRF_K, reciprocalRankFusion } from './reciprocal-rank-fusion.js';
import { ScoreStatistics } from './score-statistics.js';
import { MedianStatistics } from './median-statistics.js';
import type { SemanticNormaliser } from './median-statistics.js';
import { dateFit, queryDates } from './query-dates.js';
import { sceneScores } from './scene-scores.js';
import { sceneVectorScores } from './scene-vectors.js';
import type { GroupScores } from './group-scores.js';
import { speakerProfileScores } from './speaker-profile.js';
import { softAlignments, standardisedLifts } from './soft-match.js';
import { softTailOrder } from './soft-tail.js';
import type { SoftTailOptions } from './soft-tail.js';
import type { SoftMatchOptions } from './soft-match.js';
import { tokenize } from './tokenize.js';
import { lexicalArms } from './lexical-arms.js';
import { adaptiveFactor, lexicalCoverage } from './adaptive-weights.js';
import { withoutScaffolding } from './question-scaffolding.js';
import { scenePenalties } from './scene-diversity.js';
import type { SceneDiversityOptions } from './scene-diversity.js';
import type { WindowSumOptions } from './window-sum.js';
import { uncoveredTerms } from './coverage-pass.js';
import type { CoveragePassOptions } from './coverage-pass.js';
import { STATISTICS_HEAD } from './lexical-arms.js';
import { feedbackQueryVector } from './vector-feedback.js';
import { linkTerms, properNouns } from './entity-links.js';
import type { EntityLinkOptions } from './entity-links.js';
import type { VectorFeedbackOptions } from './vector-feedback.js';
import { asksQuestion, replyHandoffs } from './reply-handoff.js';
import type { ReplyHandoffOptions } from './reply-handoff.js';
import { lengthLifts, lengthPrior } from './length-signal.js';
import { speakerSemanticPart } from './speaker-semantic.js';
import { addressedNameTerms } from './addressed-names.js';
import { focusedSceneScore } from './scene-speaker-focus.js';
import type { LengthSignalOptions } from './length-signal.js';

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
  /**
   * Window sum (z-score fusion, with the lexical arm): a third arm scoring each document by the sum of the
   * lexical scores of the documents within `reach` places of it in the corpus's order, weighted `weight` (off when absent).
   */
  windowSum?: WindowSumOptions;
  /** Context signals of z-score fusion (each off when absent or 0): see `ContextSignalOptions`. */
  signals?: ContextSignalOptions;
  /**
   * Soft word matching (z-score fusion; off when absent, or when the index keeps no word rows): the fused head
   * rescored by word-level alignment with the query in static word vectors (see `softMatchScores`).
   */
  softMatch?: SoftMatchOptions;
  /**
   * The soft tail (z-score fusion, with soft matching; off when absent): the first `keep` hits as they are, the rest
   * reordered by soft matching over a wider head of the fused candidates (see `softTailOrder`).
   */
  softTail?: SoftTailOptions;
  /**
   * Query-adaptive arm weights (z-score fusion; off when absent or 0): the semantic arm's and soft matching's
   * weights times 1 + this x (1 - the query's lexical coverage, see `lexicalCoverage`).
   */
  adaptiveWeight?: number;
  /** Question scaffolding: words dropped from the query's terms (the lexical arms, the scene signal, soft matching), not from its vector. */
  scaffolding?: readonly string[];
  /** Scene diversity (z-score fusion; off when absent): the fused head re-picked, each further hit of a scene lowered by a step (see `scenePenalties`). */
  sceneDiversity?: SceneDiversityOptions;
  /**
   * The coverage pass (z-score fusion, with the lexical arm; off when absent): the query terms the fused head does
   * not hold are searched on their own and fused in as a further arm (see `uncoveredTerms`).
   */
  coveragePass?: CoveragePassOptions;
  /**
   * How z-score fusion standardises the semantic arm over every document it scored: by their mean and standard
   * deviation (`mean`, the default when absent) or by their median and scaled median absolute deviation (`median`,
   * see `MedianStatistics`; the moments still when the store's vector search gives only totals).
   */
  semanticNormaliser?: SemanticNormaliser;
  /**
   * Vector feedback (z-score fusion, the index's own vectors; off when absent): a second semantic arm searched
   * with the query vector moved toward the centroid of the fused head's vectors (see `feedbackQueryVector`), and
   * the fusion redone with it as a further arm.
   */
  vectorFeedback?: VectorFeedbackOptions;
  /**
   * Entity links (z-score fusion, with the lexical arm; off when absent): the proper nouns of the fused head's
   * texts that the query does not name are searched with BM25 and fused in as a further arm (see `linkTerms`).
   */
  entityLinks?: EntityLinkOptions;
  /**
   * Reply handoff (z-score fusion; off when absent): each of the fused head's chunks whose last sentence is a
   * question steps down by the weight, and the chunk after it (its reply) rises to the question's score (see `replyHandoffs`).
   */
  replyHandoff?: ReplyHandoffOptions;
  /** The length signal (z-score fusion; off when absent): the fused head rescored by the log of each chunk's indexed length (see `lengthLifts`). */
  lengthSignal?: LengthSignalOptions;
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

/**
 * The context signals of z-score fusion, read from each document's speaker, scene and day (see `IndexDocument`).
 * They score the candidates the arms bring; they bring none of their own.
 */
export interface ContextSignalOptions {
  /** Added to the documents said by a speaker the query names (every word of the name among its words). */
  speakerBoost?: number;
  /** Weight of the scene signal: the z-score of the BM25 of the document's whole scene (its scene's chunks as one text). */
  sceneWeight?: number;
  /** Added, times the fit (1 within a day, 0.5 same month, 0.25 same year), to documents dated near a date the query names. */
  timeBoost?: number;
  /** Weight of the speaker profile signal: the z-score of the BM25 of everything the document's speaker said (see `speakerProfileScores`). */
  profileWeight?: number;
  /**
   * Weight of the scene vector signal: the z-score of the cosine of the query with the document's scene's centroid
   * (the mean of its chunks' own vectors; see `sceneVectorScores`). Only with the index's own vectors.
   */
  sceneVectorWeight?: number;
  /**
   * Weight of the speaker semantic part: the semantic arm's part of each candidate said by a speaker the query names,
   * counted again at this weight (see `speakerSemanticPart`).
   */
  speakerSemanticWeight?: number;
  /**
   * Addressed names: a query term naming a speaker it names is left out of its lexical terms when fewer than this
   * share of the chunks holding it were said by a named speaker (see `addressedNameTerms`); 0 keeps every term.
   */
  addressedNames?: number;
  /**
   * Scene speaker focus: when the query names a speaker, the scene signal's lift of a chunk said by another speaker
   * times 1 - this (0 off, 1 none of it; see `focusedSceneScore`).
   */
  sceneSpeakerFocus?: number;
  /**
   * Weight of the length prior: weight x (log(1 + the document's indexed length) - log(1 + the corpus's mean
   * length)), the document's own and the corpus's lengths only (see `lengthPrior`).
   */
  lengthPrior?: number;
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
  // z-score fusion standardises the semantic arm by the scores of every document it scored, the lexical and window arms by their head.
  const statistics = input.fusion === 'zscore' ? { semantic: input.semanticNormaliser === 'median' ? new MedianStatistics() : new ScoreStatistics() } : undefined;
  const window = runLexical && input.fusion === 'zscore' && input.windowSum !== undefined && input.windowSum.reach > 0 && input.windowSum.weight !== 0 ? input.windowSum : undefined;
  const scaffold = new Set((input.scaffolding ?? []).flatMap((word) => index.analyze(word)));
  const analyzed = withoutAddressedNames(input, withoutScaffolding(index.analyze(input.queryText), scaffold));
  const visible = input.statisticsOfAccepted === true && input.accept !== undefined ? input.accept : undefined;
  const corpus = visible === undefined ? undefined : index.bm25.corpusWithin(visible);
  const lexicalSide = runLexical ? lexicalArms({ bm25: index.bm25, order: index.order, terms: analyzed, limit: armLimit, accept: input.accept, corpus, feedback: input.feedback, window }) : undefined;
  const queryTerms = lexicalSide?.terms ?? analyzed;
  const lexical = lexicalSide?.results ?? [];
  const semantic = input.queryVector === null || !runSemantic ? [] : await semanticArm(input, armLimit, visible === undefined || input.vectorArm !== undefined ? statistics?.semantic : undefined);
  // The store's vector search scores what the filter permits exactly; the index's own scan approximates around all vectors.
  if (corpus !== undefined && statistics !== undefined && input.queryVector !== null && runSemantic && input.vectorArm === undefined) {
    index.exactSemanticStatistics(input.queryVector, corpus.mask, statistics.semantic);
  }
  const windowScores = lexicalSide?.window;
  const windowResults = windowScores?.results ?? [];
  const lexicalRanks = armRanks(index, lexical);
  const semanticRanks = armRanks(index, semantic);
  const windowRanks = windowScores === undefined ? undefined : armRanks(index, windowResults);
  let fused: { id: string; score: number; contributions?: Contributions }[];
  if (input.fusion === 'zscore') {
    const cap = input.capPerSource;
    const queryVector = input.queryVector;
    let semanticExact = (slot: number): number | null => (queryVector === null ? null : index.semanticScoreOf(queryVector, slot));
    // The vectors the fusion rescores the other arms' candidates with, read from the store at once (when kept there).
    if (queryVector !== null && input.vectorArm === undefined) index.readSemanticRows([...capped(lexical, cap), ...capped(windowResults, cap)].map(({ slot }) => slot));
    if (queryVector !== null && input.vectorArm !== undefined && semantic.length > 0) {
      // The store holds the vectors: the other arms' candidates the semantic arm did not return are scored there, at once.
      const found = new Set(semantic.map(({ slot }) => slot));
      const missing = [...new Set([...capped(lexical, cap), ...capped(windowResults, cap)].map(({ slot }) => slot))].filter((slot) => !found.has(slot));
      const scores = missing.length > 0 ? await input.vectorArm.score(queryVector, missing.map((slot) => index.idOf(slot))) : new Map<string, number>();
      semanticExact = (slot) => scores.get(index.idOf(slot)) ?? null;
    }
    const weights = input.weights ?? {};
    // A query whose rare words the save does not hold leans on meaning: the semantic arm and soft matching weigh more.
    const adaptive = (input.adaptiveWeight ?? 0) > 0 ? adaptiveFactor(input.adaptiveWeight as number, lexicalCoverage(index.bm25, analyzed, corpus)) : 1;
    const arms: FusionArm[] = [
      { kind: 'lexical', results: lexical, weight: weights.lexical ?? 1, statistics: lexicalSide?.statistics, exact: (slot) => index.bm25.scoreOf(queryTerms, slot, lexicalSide?.weights, corpus) },
      { kind: 'semantic', results: semantic, weight: (weights.semantic ?? 1) * adaptive, statistics: statistics?.semantic, exact: semanticExact },
      ...(windowScores === undefined || window === undefined ? [] : [{ kind: 'window' as const, results: windowResults, weight: window.weight, statistics: windowScores.statistics, exact: (slot: number) => windowScores.scoreOf(slot) }]),
      // The semantic arm's exact scores as they stand when fused (further arms' candidates are scored with it too).
      ...speakerSemanticArm(input, semantic, statistics?.semantic, (weights.semantic ?? 1) * adaptive, (slot) => semanticExact(slot)),
    ];
    const signals = contextSignals(input, analyzed);
    const softMatch = input.softMatch === undefined || adaptive === 1 ? input.softMatch : { ...input.softMatch, weight: input.softMatch.weight * adaptive };
    const active = arms.filter((arm) => arm.results.length > 0);
    let first = zScoreFusion(active, cap, signals);
    const coverage = runLexical ? await coverageArm(input, analyzed, first, armLimit, corpus, semanticExact) : undefined;
    if (coverage !== undefined) {
      semanticExact = coverage.semanticExact;
      first = zScoreFusion([...active.map((arm) => (arm.kind === 'semantic' ? { ...arm, exact: semanticExact } : arm)), coverage.arm], cap, signals);
    }
    const links = runLexical ? await entityLinkArm(input, queryTerms, first, armLimit, corpus, semanticExact) : undefined;
    if (links !== undefined) semanticExact = links.semanticExact;
    const arms2 = [...active.map((arm) => (arm.kind === 'semantic' ? { ...arm, exact: semanticExact } : arm)), ...(coverage === undefined ? [] : [coverage.arm]), ...(links === undefined ? [] : [links.arm])];
    if (links !== undefined) first = zScoreFusion(arms2, cap, signals);
    first = withVectorFeedback(input, first, arms2, armLimit, visible !== undefined, corpus?.mask, signals) ?? first;
    const softened = withSoftMatch(input, softMatch, scaffold, first);
    const scored = withSceneDiversity(input, await withReplyHandoff(input, withLengthSignal(input, softened.fused)));
    const ordered = softened.tail === null || input.softTail === undefined ? scored : softTailOrder(scored, softened.tail, input.softTail.keep);
    fused = ordered.map(({ slot, score, contributions }) => ({ id: index.idOf(slot), score, contributions }));
    // Every window score the fusion needs is read: the sums go back for the next query.
    windowScores?.release();
  } else {
    const lists = [lexical, semantic].filter((list) => list.length > 0).map((list) => capPerSource(list.map(({ slot }) => index.idOf(slot)), input.capPerSource));
    fused = reciprocalRankFusion(lists, input.rrfK ?? RRF_K).map(([id, score]) => ({ id, score }));
  }

  const focus = new FocusMatcher(input.focusTerms ?? []);
  const focusBoost = input.focusBoost ?? FOCUS_BOOST;
  const reranker = input.reranker ?? null;
  const rerankTop = Math.min(fused.length, input.rerankTop ?? Math.max(20, 2 * k));
  // Only the candidates that can still reach the hits (or the reranked head) once boosted are read and matched.
  const { matches: matched, texts } = !focus.empty
    ? await matchHead(focus, fused.map(({ id, score }) => [id, score] as const), focusBoost, Math.max(k, reranker !== null ? rerankTop : 0), input.loadTexts)
    : { matches: new Map<string, string[]>(), texts: reranker !== null && rerankTop > 0 ? await input.loadTexts(fused.slice(0, rerankTop).map(({ id }) => id)) : new Map<string, string>() };

  let ranked: RankedId[] = fused.map(({ id, score, contributions }) => {
    const found = matched.get(id) ?? [];
    const boost = found.length > 0 ? focusBoost : 0;
    const explanation: Explanation = { lexical: lexicalRanks.get(id) ?? null, semantic: semanticRanks.get(id) ?? null, fused: score, boost, rerank: null, focusMatches: found };
    if (windowRanks !== undefined) explanation.window = windowRanks.get(id) ?? null;
    if (contributions !== undefined) explanation.contributions = contributions;
    return { id, score: score + boost, explanation };
  });
  ranked = ranked.map((hit, order) => ({ hit, order })).sort((a, b) => b.hit.score - a.hit.score || a.order - b.order).map(({ hit }) => hit);

  if (reranker !== null && ranked.length > 0) ranked = await rerankHead(ranked, rerankTop, input.queryText, reranker, texts);
  return ranked.slice(0, k);
}

/**
 * The fusion redone with a further arm, the semantic arm searched again from the query vector moved toward the
 * fused head's centroid (`vectorFeedback`), weighted its weight times the semantic arm's; or undefined when it is off or cannot run (no query vector, no semantic arm, the
 * store's vector search, a head without vectors).
 */
function withVectorFeedback(input: HybridSearchInput, first: FusedSlot[], arms: FusionArm[], limit: number, exactStatistics: boolean, mask: Uint8Array | undefined, signals: readonly FusionSignal[]): FusedSlot[] | undefined {
  const options = input.vectorFeedback;
  const { index, queryVector } = input;
  const semantic = arms.find((arm) => arm.kind === 'semantic');
  if (options === undefined || queryVector === null || input.vectorArm !== undefined || first.length === 0 || semantic === undefined) return undefined;
  // semanticVectorOf may hand back one scratch buffer for every slot (neighbour context, vectors read from the store): each is copied.
  const head = first.slice(0, options.head).map(({ slot }) => index.semanticVectorOf(slot)?.slice() ?? null);
  const moved = feedbackQueryVector(queryVector, head, options.mix);
  if (moved === null) return undefined;
  const statistics = input.semanticNormaliser === 'median' ? new MedianStatistics() : new ScoreStatistics();
  const results = index.semantic(moved, limit, input.accept, exactStatistics ? undefined : statistics);
  if (exactStatistics && mask !== undefined) index.exactSemanticStatistics(moved, mask, statistics);
  const exact = (slot: number): number | null => index.semanticScoreOf(moved, slot);
  return zScoreFusion([...arms, { kind: 'vectorFeedback', results, weight: semantic.weight * options.weight, statistics, exact }], input.capPerSource, signals);
}

/**
 * The coverage pass's arm, when it is on and the fused head leaves some of the query's terms uncovered: BM25 over
 * those terms alone, weighted by the option's weight times the share of the query's idf they carry, standardised
 * over its head; with the semantic scorer that also knows its new candidates (read from the store at once).
 * The query's words naming a speaker are left to the speaker signal (a turn naming them is not one they said).
 */
async function coverageArm(
  input: HybridSearchInput,
  analyzed: readonly string[],
  fused: readonly FusedSlot[],
  limit: number,
  corpus: Bm25Corpus | undefined,
  semanticExact: (slot: number) => number | null,
): Promise<{ arm: FusionArm; semanticExact: (slot: number) => number | null } | undefined> {
  const options = input.coveragePass;
  if (options === undefined || fused.length === 0) return undefined;
  const { index } = input;
  const speakerTerms = new Set([...index.context.speakerWordsIn(new Set(tokenize(input.queryText)))].flatMap((word) => index.analyze(word)));
  const head = fused.slice(0, options.head).map(({ slot }) => slot);
  const { terms, share } = uncoveredTerms(index.bm25, analyzed, head, speakerTerms, corpus);
  if (terms.length === 0) return undefined;
  return termsArm(input, 'coverage', terms, options.weight * share, fused, limit, corpus, semanticExact);
}

/**
 * A further BM25 arm over `terms` alone (the coverage pass, entity links), weighted `weight`, standardised over its
 * head; with the semantic scorer that also knows its new candidates (read from the store at once). Undefined when
 * the terms find nothing.
 */
async function termsArm(
  input: HybridSearchInput,
  kind: 'coverage' | 'entityLinks',
  terms: readonly string[],
  weight: number,
  fused: readonly FusedSlot[],
  limit: number,
  corpus: Bm25Corpus | undefined,
  semanticExact: (slot: number) => number | null,
): Promise<{ arm: FusionArm; semanticExact: (slot: number) => number | null } | undefined> {
  const { index, queryVector } = input;
  const ranked = index.bm25.search(terms, Math.max(limit, STATISTICS_HEAD), input.accept, undefined, undefined, corpus);
  if (ranked.length === 0) return undefined;
  const statistics = new ScoreStatistics();
  for (const { score } of ranked.slice(0, STATISTICS_HEAD)) statistics.add(score);
  const results = ranked.slice(0, limit);
  const arm: FusionArm = { kind, results, weight, statistics, exact: (slot) => index.bm25.scoreOf(terms, slot, undefined, corpus) };
  if (queryVector === null) return { arm, semanticExact };
  const fresh = capped(results, input.capPerSource).map(({ slot }) => slot);
  if (input.vectorArm === undefined) {
    index.readSemanticRows(fresh);
    return { arm, semanticExact };
  }
  // The store holds the vectors: the new candidates the first fusion did not score are scored there, at once.
  const known = new Set(fused.map(({ slot }) => slot));
  const missing = [...new Set(fresh)].filter((slot) => !known.has(slot));
  const scores = missing.length > 0 ? await input.vectorArm.score(queryVector, missing.map((slot) => index.idOf(slot))) : new Map<string, number>();
  return { arm, semanticExact: (slot) => scores.get(index.idOf(slot)) ?? semanticExact(slot) };
}

/**
 * The entity link arm, when it is on and the fused head's texts name someone or something the query does not: BM25
 * over those names' terms (`linkTerms`), weighted by the option's weight, standardised over its head; with the
 * semantic scorer that also knows its new candidates (read from the store at once).
 */
async function entityLinkArm(
  input: HybridSearchInput,
  queryTerms: readonly string[],
  fused: readonly FusedSlot[],
  limit: number,
  corpus: Bm25Corpus | undefined,
  semanticExact: (slot: number) => number | null,
): Promise<{ arm: FusionArm; semanticExact: (slot: number) => number | null } | undefined> {
  const options = input.entityLinks;
  if (options === undefined || fused.length === 0) return undefined;
  const { index } = input;
  const ids = fused.slice(0, options.head).map(({ slot }) => index.idOf(slot));
  const texts = await input.loadTexts(ids);
  const nouns = ids.flatMap((id) => properNouns(texts.get(id) ?? ''));
  if (nouns.length === 0) return undefined;
  // A speaker's name links every turn that names them: left to the speaker signal.
  const speakerTerms = new Set([...index.context.speakerWordsIn(new Set(nouns.flatMap((noun) => tokenize(noun))))].flatMap((word) => index.analyze(word)));
  const terms = linkTerms(index.bm25, nouns, (word) => index.analyze(word), queryTerms, speakerTerms, options.terms, corpus);
  if (terms.length === 0) return undefined;
  return termsArm(input, 'entityLinks', terms, options.weight, fused, limit, corpus, semanticExact);
}

/**
 * The speaker semantic part (`signals.speakerSemanticWeight`) as a fusion arm, when it is on and the query names a
 * speaker: the semantic arm's results and exact scores of the named speakers' chunks (see `speakerSemanticPart`),
 * standardised by the semantic arm's statistics and weighted the option's weight times the semantic arm's weight; a
 * chunk it does not score adds 0. Without those statistics (no z-score fusion) it gives nothing.
 */
function speakerSemanticArm(input: HybridSearchInput, semantic: { slot: number; score: number }[], statistics: ScoreStatistics | undefined, semanticWeight: number, exact: (slot: number) => number | null): FusionArm[] {
  const weight = input.signals?.speakerSemanticWeight ?? 0;
  const { index } = input;
  if (weight <= 0 || semanticWeight <= 0 || statistics === undefined || statistics.count === 0 || semantic.length === 0) return [];
  const named = index.context.speakersNamedIn(new Set(tokenize(input.queryText)));
  const part = speakerSemanticPart({ speakerOf: (slot) => index.context.speakerOf(slot), semantic, exact }, named, input.accept);
  return part === null ? [] : [{ kind: 'speakerSemantic', results: part.results, weight: weight * semanticWeight, statistics, exact: part.scoreOf }];
}

/**
 * The query's analyzed terms without those naming a speaker it names that the save uses to address them
 * (`signals.addressedNames`, see `addressedNameTerms`); all of them when it is off, no speaker is named, or every
 * term would go.
 */
function withoutAddressedNames(input: HybridSearchInput, analyzed: string[]): string[] {
  const share = input.signals?.addressedNames ?? 0;
  if (share <= 0 || analyzed.length === 0) return analyzed;
  const { index } = input;
  const tokens = new Set(tokenize(input.queryText));
  const speakers = index.context.speakersNamedIn(tokens);
  if (speakers.size === 0) return analyzed;
  const nameTerms = new Set([...index.context.speakerWordsIn(tokens)].flatMap((word) => index.analyze(word)));
  const source = { speakerOf: (slot: number) => index.context.speakerOf(slot), isAlive: (slot: number) => index.bm25.isAlive(slot), forEachPosting: (term: string, visit: (slot: number) => void) => index.bm25.forEachPosting(term, visit) };
  const dropped = addressedNameTerms(source, analyzed, nameTerms, speakers, share, input.accept);
  const kept = analyzed.filter((term) => !dropped.has(term));
  return kept.length > 0 ? kept : analyzed;
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

/** One arm of score fusion: its ranked results (the candidates it brings), its weight and how it scores any slot. */
interface FusionArm {
  kind: keyof Contributions;
  results: { slot: number; score: number }[];
  weight: number;
  /** The scores of every document the arm scored (else its results stand for them). */
  statistics?: ScoreStatistics;
  /** The arm's score of a candidate it did not return (null: none, scored at the arm's mean). */
  exact(slot: number): number | null;
}

/** A context signal: what it adds to a candidate's fused score. */
interface FusionSignal {
  kind: keyof Contributions;
  score(slot: number): number;
}

/** A signal from a group's BM25 (scene, speaker profile): `weight` x the z-score of the document's group; 0 outside every group. */
function groupSignal(kind: 'scene' | 'profile' | 'sceneVector', weight: number, groups: GroupScores): FusionSignal {
  const deviation = groups.deviation || 1;
  return { kind, score: (slot) => (groups.inGroup(slot) ? (weight * (groups.scoreOf(slot) - groups.mean)) / deviation : 0) };
}

/** The context signals a search asks for that the index can give (a corpus without scenes gives no scene signal, ...). */
function contextSignals(input: HybridSearchInput, analyzed: readonly string[]): FusionSignal[] {
  const { index } = input;
  const options = input.signals ?? {};
  const signals: FusionSignal[] = [];
  const sceneWeight = options.sceneWeight ?? 0;
  const focus = options.sceneSpeakerFocus ?? 0;
  const speakerBoost = options.speakerBoost ?? 0;
  const profileWeight = options.profileWeight ?? 0;
  // The query's tokens, and the speakers they name, read once for the scene focus, the speaker signal and the profiles.
  const queryTokens = new Set(tokenize(input.queryText));
  const named = focus > 0 || speakerBoost > 0 ? index.context.speakersNamedIn(queryTokens) : new Set<number>();
  const scenes = sceneWeight > 0 ? sceneScores(index.bm25, index.context, analyzed, input.accept) : null;
  if (scenes !== null) {
    const scene = groupSignal('scene', sceneWeight, scenes);
    signals.push({ kind: 'scene', score: focusedSceneScore(scene.score, { speakerOf: (slot) => index.context.speakerOf(slot) }, named, focus) });
  }
  // The query's words naming a speaker are left to the speaker signal (every turn of theirs that names them would lift them).
  const speakerTerms = profileWeight > 0 ? new Set([...index.context.speakerWordsIn(queryTokens)].flatMap((word) => index.analyze(word))) : new Set<string>();
  const profiles = profileWeight > 0 ? speakerProfileScores(index.bm25, index.context, analyzed.filter((term) => !speakerTerms.has(term)), input.accept) : null;
  if (profiles !== null) signals.push(groupSignal('profile', profileWeight, profiles));
  if (speakerBoost > 0 && named.size > 0) signals.push({ kind: 'speaker', score: (slot) => (named.has(index.context.speakerOf(slot)) ? speakerBoost : 0) });
  const sceneVectorWeight = options.sceneVectorWeight ?? 0;
  const sceneVectors = sceneVectorWeight > 0 && input.vectorArm === undefined ? sceneVectorScores({ context: index.context, slots: index.bm25.slots, vectorOf: (slot) => index.vectors.vectorOf(slot) }, input.queryVector, input.accept) : null;
  if (sceneVectors !== null) signals.push(groupSignal('sceneVector', sceneVectorWeight, sceneVectors));
  const priorWeight = options.lengthPrior ?? 0;
  if (priorWeight > 0 && index.bm25.size > 0) {
    const average = index.bm25.averageLength;
    signals.push({ kind: 'length', score: (slot) => lengthPrior(index.bm25.lengthOf(slot), average, priorWeight) });
  }
  const timeBoost = options.timeBoost ?? 0;
  const dates = timeBoost > 0 && index.context.hasDays ? queryDates(input.queryText) : [];
  if (dates.length > 0) signals.push({ kind: 'time', score: (slot) => timeBoost * dateFit(index.context.dayOf(slot), dates) });
  return signals;
}

/**
 * Adds soft word matching to the first `head` fused candidates (what it adds kept as the `soft` contribution) and
 * sorts again, ties keeping the fused order; the candidates unchanged when it is off or gives nothing. With the soft
 * tail on and k past its kept head, the alignments are taken over its wider head at once (those of the first `head`
 * are the same values), and `tail` holds each wider head candidate's lift, z-scored over that head, by slot.
 */
function withSoftMatch(input: HybridSearchInput, options: SoftMatchOptions | undefined, scaffold: ReadonlySet<string>, fused: FusedSlot[]): { fused: FusedSlot[]; tail: Map<number, number> | null } {
  if (options === undefined || input.index.wordRows === null || fused.length === 0) return { fused, tail: null };
  // A search returning no more than the kept head cannot see the tail: it is not aligned.
  const tailHead = input.softTail === undefined || input.k <= input.softTail.keep ? 0 : Math.max(input.softTail.head, options.head);
  const slots = fused.slice(0, Math.max(options.head, tailHead)).map(({ slot }) => slot);
  const aligned = softAlignments(input.index, input.queryText, slots, options.reach, input.accept, scaffold);
  if (aligned === null) return { fused, tail: null };
  const lift = standardisedLifts(aligned, Math.min(options.head, aligned.length), options.weight);
  let tail: Map<number, number> | null = null;
  if (tailHead > 0) {
    const wide = standardisedLifts(aligned, aligned.length, options.weight);
    tail = new Map(slots.map((slot, place) => [slot, wide[place] as number]));
  }
  return { fused: withParts(fused, lift, 'soft'), tail };
}

/**
 * The length signal on the first `head` fused candidates (what it adds kept as the `length` contribution), sorted
 * again, ties keeping the fused order; unchanged when it is off.
 */
function withLengthSignal(input: HybridSearchInput, fused: FusedSlot[]): FusedSlot[] {
  const options = input.lengthSignal;
  if (options === undefined || fused.length < 2) return fused;
  const head = fused.slice(0, options.head);
  return withParts(fused, lengthLifts(head.map(({ slot }) => input.index.bm25.lengthOf(slot)), options.weight), 'length');
}

/**
 * Reply handoff on the fused candidates (what it changes kept as the `handoff` contribution), sorted again, ties
 * keeping the fused order: the head's texts are read, and each that ends with a question steps down while the chunk
 * after it in the save's order, in the same scene, rises to its score (when a candidate). Unchanged when it is off
 * or no head chunk asks.
 */
async function withReplyHandoff(input: HybridSearchInput, fused: FusedSlot[]): Promise<FusedSlot[]> {
  const options = input.replyHandoff;
  if (options === undefined || fused.length === 0) return fused;
  const { index } = input;
  const context = index.context;
  const ids = fused.slice(0, options.head).map(({ slot }) => index.idOf(slot));
  const texts = await input.loadTexts(ids);
  const asking = new Set<number>();
  fused.slice(0, options.head).forEach(({ slot }, place) => {
    if (asksQuestion(texts.get(ids[place] as string) ?? '')) asking.add(slot);
  });
  if (asking.size === 0) return fused;
  // The reply is the next live chunk, unless it opens another scene.
  const replyOf = (slot: number): number | null => {
    const next = index.neighbourOf(slot, 1);
    if (next === null) return null;
    const scene = context.sceneOf(slot);
    return scene !== 0 && context.sceneOf(next) !== scene ? null : next;
  };
  return withParts(fused, replyHandoffs(fused, (slot) => asking.has(slot), replyOf, options), 'handoff');
}

/**
 * Lowers each further hit of a scene among the first `head` fused candidates by the step (what it takes kept as the
 * negative `diversity` contribution) and sorts again, ties keeping the fused order; unchanged when it is off or
 * the corpus has no scenes. The head is a fixed number, not k, so a query asked with k = 10 returns the first 10
 * of the ranking asked with k = 100.
 */
function withSceneDiversity(input: HybridSearchInput, fused: FusedSlot[]): FusedSlot[] {
  const options = input.sceneDiversity;
  const context = input.index.context;
  if (options === undefined || context.liveScenes === 0 || fused.length < 2) return fused;
  const penalties = scenePenalties(fused, (slot) => context.sceneOf(slot), options);
  return withParts(fused, Array.from(penalties, (penalty) => -penalty), 'diversity');
}

/**
 * Adds `parts[position]` to the score of the candidate at that position (the first `parts.length`; 0 adds nothing)
 * and to its `kind` contribution, then sorts again, ties keeping the order: how every rescoring of the fused head
 * lands. A part adds to what the contribution holds already (the length prior and the length signal are both
 * `length`), so the contributions still sum to the score. The candidates unchanged when every part is 0.
 */
function withParts(fused: FusedSlot[], parts: ArrayLike<number>, kind: keyof Contributions): FusedSlot[] {
  let changed = false;
  for (let position = 0; position < parts.length && position < fused.length; position++) {
    const part = parts[position] as number;
    if (part === 0) continue;
    const candidate = fused[position] as FusedSlot;
    candidate.contributions[kind] = (candidate.contributions[kind] ?? 0) + part;
    candidate.score += part;
    changed = true;
  }
  return changed ? byScoreStable(fused) : fused;
}

/** The candidates sorted by score, highest first, ties keeping their order (a stable sort of the rescored head). */
function byScoreStable(fused: FusedSlot[]): FusedSlot[] {
  return fused.map((candidate, order) => ({ candidate, order })).sort((a, b) => b.candidate.score - a.candidate.score || a.order - b.order).map(({ candidate }) => candidate);
}

/** A fused candidate: its slot, its score and each part of it. */
interface FusedSlot {
  slot: number;
  score: number;
  contributions: Contributions;
}

function capped<T>(list: readonly T[], cap: number): readonly T[] {
  return cap > 0 ? list.slice(0, cap) : list;
}

/**
 * Score fusion: each arm's scores are standardised by the mean and deviation of its statistics (the semantic arm:
 * every accepted document with a vector; the lexical and window arms: their best `STATISTICS_HEAD` scores, see
 * lexical-arms.ts), so the standardisation does not depend on k or the cap (without statistics, the arm's capped
 * list is used). The
 * candidates are the capped lists; a candidate missing from an arm is scored exactly in it (the document's BM25,
 * its cosine, its window sum; at the arm's mean when it has no score there) and standardised the same way. The
 * fused score is the weighted sum, plus what each context signal adds; each part is kept (`contributions`, a
 * signal only when it added something). Ties keep first appearance, as in RRF.
 */
function zScoreFusion(arms: FusionArm[], cap: number, signals: readonly FusionSignal[] = []): FusedSlot[] {
  const order = new Map<number, number>();
  const heads = arms.map((arm) => ({ ...arm, results: capped(arm.results, cap) }));
  for (const arm of heads) for (const { slot } of arm.results) if (!order.has(slot)) order.set(slot, order.size);
  const scorers = heads.map((arm) => {
    const whole = arm.statistics;
    const scores = arm.results.map(({ score }) => score);
    const mean = whole !== undefined && whole.count > 0 ? whole.mean : scores.reduce((sum, score) => sum + score, 0) / Math.max(1, scores.length);
    const deviation =
      (whole !== undefined && whole.count > 0 ? whole.deviation : Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / Math.max(1, scores.length))) || 1;
    const known = new Map(arm.results.map(({ slot, score }) => [slot, score]));
    return { kind: arm.kind, score: (slot: number) => (arm.weight * ((known.get(slot) ?? arm.exact(slot) ?? mean) - mean)) / deviation };
  });
  const fused = [...order.keys()].map((slot) => {
    const contributions: Contributions = {};
    let score = 0;
    for (const scorer of scorers) {
      const part = scorer.score(slot);
      contributions[scorer.kind] = part;
      score += part;
    }
    for (const signal of signals) {
      const part = signal.score(slot);
      if (part === 0) continue;
      contributions[signal.kind] = part;
      score += part;
    }
    return { slot, score, contributions };
  });
  fused.sort((a, b) => b.score - a.score || (order.get(a.slot) as number) - (order.get(b.slot) as number));
  return fused;
}
