// The default retrieval settings, chosen once on LoCoMo for all data (docs/retrieval-quality.md shows the study).
import type { QueryFeedback } from './corpus-index.js';

/** Score fusion of standardised arm scores: +6 R@10 over RRF with the static embedder on LoCoMo. */
export const DEFAULT_FUSION = 'zscore' as const;

/** Pseudo-relevance feedback: the 5 best terms of the top 3 chunks, at half weight. */
export const DEFAULT_FEEDBACK: QueryFeedback = { documents: 3, terms: 5, weight: 0.5 };

/** Neighbour context of the semantic arm for narrative (a turn is read with the turns around it). */
export const DEFAULT_NEIGHBOUR_WEIGHT = 0.5;
