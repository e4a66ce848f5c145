// `mnemo-engine/living`: living memory's pipeline stages and rules on their own (extraction, consolidation, reflection, trends, the worker).
export { LivingWorker } from './living-worker.js';
export type { LivingWorkerOptions } from './living-worker.js';
export { computeTrend, beliefTrend, STRENGTHENING_RATIO, WEAKENING_RATIO } from './compute-trend.js';
export type { TrendWindows } from './compute-trend.js';
export { extractFacts, runFactExtraction, factExtractionMessages, FACTS_SCHEMA } from './extract-facts.js';
export type { ExtractFactsOptions } from './extract-facts.js';
export { consolidate, runConsolidation, consolidationMessages, selectBeliefsForBatch, batchCharacters, CONSOLIDATION_SCHEMA } from './consolidate.js';
export type { ConsolidateOptions } from './consolidate.js';
export { reflect, runReflection, reflectionMessages, affectedSubjects, MENTAL_MODEL_SCHEMA } from './reflect.js';
export type { ReflectOptions } from './reflect.js';
export type { StageOutcome } from './stage-outcome.js';
export { extractJson } from '../llms/extract-json.js';
