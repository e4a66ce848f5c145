// Turns a search's options into one checked, complete request: every option validated, every gap filled from the corpus's defaults.
import { MnemoError } from '../core/errors.js';
import type { QueryOptions } from '../core/types.js';
import { optionalCapPerSource, optionalFeedback, optionalNumber, optionalRerankTop, requireFocusTerms, requireK, requireQueryText } from '../core/validate.js';
import { createAnalyzer } from './analyzer.js';
import type { Analyzer, QueryFeedback } from './corpus-index.js';
import { FOCUS_BOOST, FOCUS_BOOST_ZSCORE } from './focus-boost.js';
import type { ContextSignalOptions, FusionMode } from './hybrid-search.js';
import { RRF_K } from './reciprocal-rank-fusion.js';
import { CORPUS_DEFAULTS } from './retrieval-defaults.js';
import type { CorpusName } from './retrieval-defaults.js';
import { optionalAdaptiveWeight } from './adaptive-weights.js';
import { optionalScaffolding } from './question-scaffolding.js';
import { optionalSceneDiversity } from './scene-diversity.js';
import type { SceneDiversityOptions } from './scene-diversity.js';
import { optionalCoveragePass } from './coverage-pass.js';
import type { CoveragePassOptions } from './coverage-pass.js';
import { optionalVectorFeedback } from './vector-feedback.js';
import { optionalEntityLinks } from './entity-links.js';
import { optionalReplyHandoff } from './reply-handoff.js';
import { optionalLengthSignal } from './length-signal.js';
import type { LengthSignalOptions } from './length-signal.js';
import type { ReplyHandoffOptions } from './reply-handoff.js';
import type { EntityLinkOptions } from './entity-links.js';
import type { VectorFeedbackOptions } from './vector-feedback.js';
import { optionalSemanticNormaliser } from './median-statistics.js';
import type { SemanticNormaliser } from './median-statistics.js';
import { optionalSoftMatch } from './soft-match.js';
import type { SoftMatchOptions } from './soft-match.js';
import { optionalSoftTail } from './soft-tail.js';
import type { SoftTailOptions } from './soft-tail.js';
import { tokenize } from './tokenize.js';
import { optionalSceneSpeakerFocus } from './scene-speaker-focus.js';
import type { WindowSumOptions } from './window-sum.js';

/** The widest window sum a search may ask for (its cost grows with the reach: each match adds to 2 x reach neighbours). */
export const MAX_WINDOW_REACH = 20;

/** The options that mean the same in every corpus (filters are each corpus's own: turns and types, tags). */
export const SEARCH_OPTION_KEYS = ['k', 'capPerSource', 'rrfK', 'fusion', 'weights', 'feedback', 'windowSum', 'speakerBoost', 'sceneWeight', 'timeBoost', 'profileWeight', 'sceneVectorWeight', 'lengthPrior', 'speakerSemanticWeight', 'addressedNames', 'sceneSpeakerFocus', 'softMatch', 'softTail', 'adaptiveWeights', 'scaffolding', 'sceneDiversity', 'coveragePass', 'semanticNormaliser', 'vectorFeedback', 'entityLinks', 'replyHandoff', 'lengthSignal', 'focusTerms', 'focusBoost', 'rerank', 'rerankTop'] as const;

/** A search's ranking options, as a caller gives them (see `QueryOptions` for each). */
export type SearchOptions = Pick<QueryOptions, (typeof SEARCH_OPTION_KEYS)[number]>;

/** A search, checked and complete: what the pipeline (`searchCorpus`) runs. */
export interface SearchRequest {
  corpus: CorpusName;
  queryText: string;
  /** Hits asked for. */
  k: number;
  /** Hits the hybrid search ranks and returns (k, or more for a corpus that chooses among them). */
  ranked: number;
  /** Per-arm cap before fusion; 0 = no cap. */
  capPerSource: number;
  rrfK: number;
  fusion: FusionMode;
  weights: { lexical?: number; semantic?: number };
  /** Pseudo-relevance feedback for the lexical arm, or undefined when off. */
  feedback: QueryFeedback | undefined;
  /** The window-sum arm, or undefined when off (see `QueryOptions.windowSum`). */
  windowSum: WindowSumOptions | undefined;
  /** The context signals (speaker, scene, time, speaker profile, scene vector); a signal left at 0 is off. */
  signals: Required<ContextSignalOptions>;
  /** Soft word matching, or undefined when off (see `QueryOptions.softMatch`). */
  softMatch: SoftMatchOptions | undefined;
  /** The soft tail, or undefined when off (see `QueryOptions.softTail`). */
  softTail: SoftTailOptions | undefined;
  /** Query-adaptive arm weights (0: off; see `QueryOptions.adaptiveWeights`). */
  adaptiveWeight: number;
  /** Question scaffolding dropped from the query's terms, or undefined when off (see `QueryOptions.scaffolding`). */
  scaffolding: readonly string[] | undefined;
  /** Scene diversity, or undefined when off (see `QueryOptions.sceneDiversity`). */
  sceneDiversity: SceneDiversityOptions | undefined;
  /** The coverage pass, or undefined when off (see `QueryOptions.coveragePass`). */
  coveragePass: CoveragePassOptions | undefined;
  /** How the semantic arm is standardised (see `QueryOptions.semanticNormaliser`). */
  semanticNormaliser: SemanticNormaliser;
  /** Vector feedback, or undefined when off (see `QueryOptions.vectorFeedback`). */
  vectorFeedback: VectorFeedbackOptions | undefined;
  /** Entity links, or undefined when off (see `QueryOptions.entityLinks`). */
  entityLinks: EntityLinkOptions | undefined;
  /** Reply handoff, or undefined when off (see `QueryOptions.replyHandoff`). */
  replyHandoff: ReplyHandoffOptions | undefined;
  /** The length signal, or undefined when off (see `QueryOptions.lengthSignal`). */
  lengthSignal: LengthSignalOptions | undefined;
  /** Non-blank focus terms. */
  focusTerms: string[];
  focusBoost: number;
  /** False when the caller turned the reranker off for this search. */
  rerank: boolean;
  rerankTop: number | undefined;
}

/**
 * Picks the ranking options out of a wider options object (a memory's `queryDefaults` holds filters too, which
 * mean nothing to a corpus without turns), leaving out those not given.
 *
 * @example
 * ```ts
 * searchOptionsOf({ k: 3, excludeChunkType: 'lore' }); // { k: 3 }
 * ```
 */
export function searchOptionsOf(options: QueryOptions): SearchOptions {
  return Object.fromEntries(SEARCH_OPTION_KEYS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]));
}

/**
 * Validates a search's query text and ranking options (a clear INVALID_INPUT for the first bad one) and fills
 * every option left out from the corpus's defaults (`CORPUS_DEFAULTS`). Nothing is read or embedded.
 *
 * @example
 * ```ts
 * resolveSearchRequest('lore', 'who guards the gate?', { k: 3 });
 * // { corpus: 'lore', k: 3, ranked: 3, capPerSource: 50, fusion: 'zscore', feedback: undefined, ... }
 * ```
 */
export function resolveSearchRequest(corpus: CorpusName, text: unknown, options: SearchOptions = {}): SearchRequest {
  const defaults = CORPUS_DEFAULTS[corpus];
  const queryText = requireQueryText(text);
  const k = requireK(options.k ?? defaults.k);
  const capPerSource = optionalCapPerSource(options.capPerSource) ?? defaults.capPerSource(k);
  const rrfK = optionalNumber(options.rrfK, 'rrfK', 0) ?? RRF_K;
  const fusion = options.fusion ?? defaults.fusion;
  if (fusion !== 'rrf' && fusion !== 'zscore') throw new MnemoError('INVALID_INPUT', `fusion: expected "rrf" or "zscore", got ${JSON.stringify(fusion)}.`, { details: { field: 'fusion' } });
  const focusBoost = optionalNumber(options.focusBoost, 'focusBoost', 0) ?? (fusion === 'zscore' ? FOCUS_BOOST_ZSCORE : FOCUS_BOOST);
  const weights = { lexical: optionalNumber(options.weights?.lexical, 'weights.lexical', 0), semantic: optionalNumber(options.weights?.semantic, 'weights.semantic', 0) };
  const rerankTop = optionalRerankTop(options.rerankTop);
  const focusTerms = requireFocusTerms(options.focusTerms);
  const feedback = options.feedback === undefined ? (defaults.feedback ?? undefined) : (optionalFeedback(options.feedback) ?? undefined);
  const windowSum = optionalWindowSum(options.windowSum === undefined ? defaults.windowSum : options.windowSum);
  const signal = (field: 'speakerBoost' | 'sceneWeight' | 'timeBoost' | 'profileWeight' | 'sceneVectorWeight' | 'lengthPrior' | 'speakerSemanticWeight' | 'addressedNames') => (options[field] === null ? 0 : (optionalNumber(options[field], field, 0) ?? defaults.signals[field]));
  // The length prior offsets BM25's length normalisation: a search without the lexical arm ranks by its vectors alone unless it asks for it.
  const lengthPrior = options.lengthPrior === undefined && weights.lexical === 0 ? 0 : signal('lengthPrior');
  const signals = { speakerBoost: signal('speakerBoost'), sceneWeight: signal('sceneWeight'), timeBoost: signal('timeBoost'), profileWeight: signal('profileWeight'), sceneVectorWeight: signal('sceneVectorWeight'), lengthPrior, speakerSemanticWeight: signal('speakerSemanticWeight'), addressedNames: signal('addressedNames'), sceneSpeakerFocus: optionalSceneSpeakerFocus(options.sceneSpeakerFocus, defaults.signals.sceneSpeakerFocus) };
  const softMatch = optionalSoftMatch(options.softMatch, defaults.softMatch);
  const softTail = optionalSoftTail(options.softTail, defaults.softTail);
  const adaptiveWeight = optionalAdaptiveWeight(options.adaptiveWeights, defaults.adaptiveWeight);
  const scaffolding = optionalScaffolding(options.scaffolding, defaults.scaffolding);
  const sceneDiversity = optionalSceneDiversity(options.sceneDiversity, defaults.sceneDiversity);
  const coveragePass = optionalCoveragePass(options.coveragePass, defaults.coveragePass);
  const semanticNormaliser = optionalSemanticNormaliser(options.semanticNormaliser, defaults.semanticNormaliser);
  const vectorFeedback = optionalVectorFeedback(options.vectorFeedback, defaults.vectorFeedback);
  const entityLinks = optionalEntityLinks(options.entityLinks, defaults.entityLinks);
  const replyHandoff = optionalReplyHandoff(options.replyHandoff, defaults.replyHandoff);
  const lengthSignal = optionalLengthSignal(options.lengthSignal, defaults.lengthSignal);
  return { corpus, queryText, k, ranked: defaults.ranked(k, capPerSource), capPerSource, rrfK, fusion, weights, feedback, windowSum, signals, softMatch, softTail, adaptiveWeight, scaffolding, sceneDiversity, coveragePass, semanticNormaliser, vectorFeedback, entityLinks, replyHandoff, lengthSignal, focusTerms, focusBoost, rerank: options.rerank !== false, rerankTop };
}

/** The window sum asked for, checked (reach an integer from 0 to MAX_WINDOW_REACH, weight >= 0), or undefined when off. */
function optionalWindowSum(value: unknown): WindowSumOptions | undefined {
  if (value === null || value === undefined) return undefined;
  const { reach, weight } = value as Partial<WindowSumOptions>;
  if (typeof value !== 'object' || typeof reach !== 'number' || !Number.isSafeInteger(reach) || reach < 0 || reach > MAX_WINDOW_REACH || typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
    throw new MnemoError('INVALID_INPUT', `windowSum: expected { reach: an integer from 0 to ${MAX_WINDOW_REACH}, weight: a number >= 0 } or null, got ${JSON.stringify(value)}. Pass null to turn it off.`, { details: { field: 'windowSum' } });
  }
  return reach === 0 || weight === 0 ? undefined : { reach, weight };
}

/**
 * The analyzer a corpus's index uses: the one given, else the corpus's default (`CORPUS_DEFAULTS[corpus].analyzer`).
 *
 * @example
 * ```ts
 * corpusAnalyzer('recall'); // tokenize
 * ```
 */
export function corpusAnalyzer(corpus: CorpusName, given?: Analyzer): Analyzer {
  return given ?? (CORPUS_DEFAULTS[corpus].analyzer === 'english' ? createAnalyzer() : tokenize);
}
