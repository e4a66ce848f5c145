// The default retrieval settings, chosen once on LoCoMo for all data (docs/retrieval-quality.md shows the study), and what each corpus searches with.
import type { QueryFeedback } from './corpus-index.js';
import type { ContextSignalOptions } from './hybrid-search.js';
import type { SceneDiversityOptions } from './scene-diversity.js';
import type { CoveragePassOptions } from './coverage-pass.js';
import type { VectorFeedbackOptions } from './vector-feedback.js';
import type { EntityLinkOptions } from './entity-links.js';
import type { ReplyHandoffOptions } from './reply-handoff.js';
import type { LengthSignalOptions } from './length-signal.js';
import type { SemanticNormaliser } from './median-statistics.js';
import type { SoftMatchOptions } from './soft-match.js';
import type { SoftTailOptions } from './soft-tail.js';
import { SOFT_TAIL_HEAD, SOFT_TAIL_KEEP } from './soft-tail.js';
import type { WindowSumOptions } from './window-sum.js';

/** Score fusion of standardised arm scores: +6 R@10 over RRF with the static embedder on LoCoMo. */
export const DEFAULT_FUSION = 'zscore' as const;

/** Pseudo-relevance feedback: the 5 best terms of the top 3 chunks, at half weight. */
export const DEFAULT_FEEDBACK: QueryFeedback = { documents: 3, terms: 5, weight: 0.5 };

/** Window sum for narrative: the BM25 of the two chunks on each side summed with a chunk's own, weight 1 (+7 R@10 on LoCoMo). */
export const DEFAULT_WINDOW_SUM: WindowSumOptions = { reach: 2, weight: 1 };

/**
 * Context signals for narrative: speaker +1, scene 0.5, time +1, the length prior 1 (each candidate gains
 * log(1 + its indexed length) - log(1 + the save's mean length): LoCoMo R@10 +0.4 default protocol, +0.4 paper, on
 * both halves; about 0.3 ms of CPU a query at 100k), the speaker semantic part 0.5 (a candidate said by a speaker
 * the query names gains half its semantic arm's part again: LoCoMo R@10 75.3 -> 76.5 default protocol, 80.4 -> 81.0
 * paper, both halves up), no speaker profile, no scene vector, names kept in the lexical terms (addressed names is
 * an option: a story's narration naming a character who also speaks would lose the name; see docs/retrieval-quality.md),
 * the scene speaker focus 1 (when the question names a speaker, another speaker's chunk keeps none of its scene lift:
 * with the soft tail, multi-hop and open-domain pass DRAGON at every k on LoCoMo's paper protocol; adversarial
 * R@5 / 10 pays, 78.9 / 90.7 -> 75.1 / 88.1, still far ahead of DRAGON; see docs/retrieval-quality.md).
 */
export const DEFAULT_SIGNALS: Readonly<Required<ContextSignalOptions>> = { speakerBoost: 1, sceneWeight: 0.5, timeBoost: 1, profileWeight: 0, sceneVectorWeight: 0, lengthPrior: 1, speakerSemanticWeight: 0.5, addressedNames: 0, sceneSpeakerFocus: 1 };

/**
 * Soft word matching for narrative: the fused top 50 rescored by word alignment in the static vectors, each chunk by
 * the best of itself and its two neighbours on each side (LoCoMo R@10 +1.7 default protocol, +0.8 paper, on both
 * halves; about 1 ms of CPU a query at 100k chunks; see docs/retrieval-quality.md). Only with the static embedder;
 * `softMatch: null` turns it off.
 */
export const DEFAULT_SOFT_MATCH: SoftMatchOptions | null = { weight: 1, reach: 2, head: 50 };

/**
 * The soft tail for narrative: the first 10 hits exactly as without it, the rest reordered by soft matching over the
 * fused top 200 (LoCoMo paper protocol, the tail alone: open-domain R@25 / 50 51.9 / 60.2 -> 55.7 / 62.9, every R@5
 * and R@10 unchanged by construction; nothing to pay at k <= 10, where it is skipped; about 1.6 ms of CPU a query at
 * k = 50 and 100k chunks; see docs/retrieval-quality.md). `softTail: null` turns it off.
 */
export const DEFAULT_SOFT_TAIL: SoftTailOptions | null = { keep: SOFT_TAIL_KEEP, head: SOFT_TAIL_HEAD };

/**
 * Query-adaptive arm weights for narrative: the semantic arm and soft matching weigh 1 + 1 x (1 - the query's
 * lexical coverage) times their weight, so a question whose rare words the save never uses leans on meaning (LoCoMo
 * R@10 +0.3 default protocol, +0.2 paper, on both halves; no measurable cost; see docs/retrieval-quality.md).
 */
export const DEFAULT_ADAPTIVE_WEIGHT = 1;

/** The facts arm's weight for narrative (a fact's fused score against its turn's chunks' own; see docs/retrieval-quality.md). */
export const DEFAULT_FACT_WEIGHT = 1;

/** No context signal (documents without speakers, scenes or days). */
const NO_SIGNALS: Readonly<Required<ContextSignalOptions>> = { speakerBoost: 0, sceneWeight: 0, timeBoost: 0, profileWeight: 0, sceneVectorWeight: 0, lengthPrior: 0, speakerSemanticWeight: 0, addressedNames: 0, sceneSpeakerFocus: 0 };

/** Neighbour context of the semantic arm for narrative (a turn is read with the turns around it). */
export const DEFAULT_NEIGHBOUR_WEIGHT = 0.5;

/** What a corpus's searches use when an option is left out. */
export interface CorpusDefaults {
  /** Named in log lines ("searching the lore book by words only"). */
  label: string;
  /** Hits returned when `k` is left out. */
  k: number;
  /** The per-arm cap when `capPerSource` is left out, from k. */
  capPerSource(k: number): number;
  /** How many ranked hits the hybrid search returns for k (a corpus may rank more and choose among them). */
  ranked(k: number, capPerSource: number): number;
  fusion: 'rrf' | 'zscore';
  /** Pseudo-relevance feedback when `feedback` is left out (null: off). */
  feedback: QueryFeedback | null;
  /** The window-sum arm when `windowSum` is left out (null: off; documents that are not a sequence). */
  windowSum: WindowSumOptions | null;
  /** The context signals when left out (0: off). */
  signals: Readonly<Required<ContextSignalOptions>>;
  /** Soft word matching when `softMatch` is left out (null: off). */
  softMatch: SoftMatchOptions | null;
  /** The soft tail when `softTail` is left out (null: off). */
  softTail: SoftTailOptions | null;
  /** Query-adaptive arm weights when `adaptiveWeights` is left out (0: off). */
  adaptiveWeight: number;
  /** Question scaffolding when `scaffolding` is left out (null: off). */
  scaffolding: readonly string[] | null;
  /** Scene diversity when `sceneDiversity` is left out (null: off). */
  sceneDiversity: SceneDiversityOptions | null;
  /** The coverage pass when `coveragePass` is left out (null: off). */
  coveragePass: CoveragePassOptions | null;
  /** How the semantic arm is standardised when `semanticNormaliser` is left out. */
  semanticNormaliser: SemanticNormaliser;
  /** Vector feedback when `vectorFeedback` is left out (null: off). */
  vectorFeedback: VectorFeedbackOptions | null;
  /** Entity links when `entityLinks` is left out (null: off). */
  entityLinks: EntityLinkOptions | null;
  /** Reply handoff when `replyHandoff` is left out (null: off). */
  replyHandoff: ReplyHandoffOptions | null;
  /** The length signal when `lengthSignal` is left out (null: off). */
  lengthSignal: LengthSignalOptions | null;
  /** Neighbour context of the semantic arm (0: each document is searched by its own vector). */
  neighbourWeight: number;
  /** The index terms when no analyzer is given: the English analyzer (stems, stop words) or the bare tokenizer. */
  analyzer: 'english' | 'tokens';
}

const capPerSource = (k: number) => Math.max(50, 5 * k);

/**
 * The defaults of each corpus, in one place. They differ on purpose, and rankings depend on them:
 * - `narrative` (a save's chunks, `NarrativeMemory.query`): z-score fusion, feedback on, window sum (2, 1),
 *   neighbour context 0.5, adaptive arm weights 1, the context signals with the scene speaker focus 1, soft
 *   matching and the soft tail (keep 10, head 200).
 * - `lore` (the lore book, `LoreBook.search`): z-score fusion, feedback off, no window sum and no neighbour
 *   context (entries are not a sequence).
 * - `recall` (remembered entries, semantic retrieval): RRF (its scores are normalised by the best possible RRF
 *   score), feedback off, the bare tokenizer; it ranks 2 x capPerSource hits, then applies its own exact-key
 *   and similarity rules before keeping topK.
 * A search's own options, then the memory's `queryDefaults`, come before these.
 *
 * @example
 * ```ts
 * CORPUS_DEFAULTS.lore.feedback; // null
 * ```
 */
export const CORPUS_DEFAULTS = {
  narrative: { label: 'the save', k: 5, capPerSource, ranked: (k) => k, fusion: DEFAULT_FUSION, feedback: DEFAULT_FEEDBACK, windowSum: DEFAULT_WINDOW_SUM, signals: DEFAULT_SIGNALS, softMatch: DEFAULT_SOFT_MATCH, softTail: DEFAULT_SOFT_TAIL, adaptiveWeight: DEFAULT_ADAPTIVE_WEIGHT, scaffolding: null, sceneDiversity: null, coveragePass: null, semanticNormaliser: 'mean', vectorFeedback: null, entityLinks: null, replyHandoff: null, lengthSignal: null, neighbourWeight: DEFAULT_NEIGHBOUR_WEIGHT, analyzer: 'english' },
  lore: { label: 'the lore book', k: 5, capPerSource, ranked: (k) => k, fusion: DEFAULT_FUSION, feedback: null, windowSum: null, signals: NO_SIGNALS, softMatch: null, softTail: null, adaptiveWeight: 0, scaffolding: null, sceneDiversity: null, coveragePass: null, semanticNormaliser: 'mean', vectorFeedback: null, entityLinks: null, replyHandoff: null, lengthSignal: null, neighbourWeight: 0, analyzer: 'english' },
  recall: { label: 'the recall entries', k: 5, capPerSource, ranked: (_k, cap) => 2 * cap, fusion: 'rrf', feedback: null, windowSum: null, signals: NO_SIGNALS, softMatch: null, softTail: null, adaptiveWeight: 0, scaffolding: null, sceneDiversity: null, coveragePass: null, semanticNormaliser: 'mean', vectorFeedback: null, entityLinks: null, replyHandoff: null, lengthSignal: null, neighbourWeight: 0, analyzer: 'tokens' },
} as const satisfies Record<string, CorpusDefaults>;

/** The corpora Mnemo searches. */
export type CorpusName = keyof typeof CORPUS_DEFAULTS;
