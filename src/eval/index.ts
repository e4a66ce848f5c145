// Retrieval evaluation: datasets in the LoCoMo two-file format, recall@k and hit@k, run files for the scorer.
export { readDataset, readFacts } from './dataset.js';
export type { EvaluationFact, EvaluationQuestion, EvaluationTurn } from './dataset.js';
export { documentText, DOCUMENT_MODES } from './document-text.js';
export type { DocumentMode } from './document-text.js';
export { MetricsAccumulator, formatMetrics } from './metrics.js';
export type { EvaluationMetrics } from './metrics.js';
export { runEvaluation } from './run-evaluation.js';
export type { EvaluationOptions, EvaluationResult, RunLine } from './run-evaluation.js';
