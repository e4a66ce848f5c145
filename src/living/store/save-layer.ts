// A save's whole living layer as rows (facts, beliefs, mental models with their versions, jobs): read for an export, written by an import.
import { forkedJob } from '../../core/job-rules.js';
import type { BeliefRecord, LivingSaveLayer } from '../../core/living-rules.js';
import type { LivingImportCounts } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { rows } from './rows.js';

const ascending = <T>(id: (item: T) => number | null) => (a: T, b: T) => (id(a) as number) - (id(b) as number);

/**
 * Reads every living row of a save (deleted beliefs, stale flags, model versions and queued jobs included), in
 * stored order: what an export writes out. A fixed number of statements.
 *
 * @example
 * ```ts
 * const layer = await store.living.readSave('run-1'); // through the adapter's backend
 * ```
 */
export function* readLivingLayer(saveId: string): LivingProgram<LivingSaveLayer> {
  const facts = (yield* rows.selectFacts(saveId, {})).sort(ascending((fact) => fact.factId));
  const beliefs = (yield* rows.selectBeliefs(saveId, { includeDeleted: true })).sort(ascending((record) => record.beliefId));
  const models = (yield* rows.selectModels(saveId, {})).sort(ascending((model) => model.modelId));
  const versions = models.length === 0 ? [] : yield* rows.versionsUpTo(saveId, models.map((model) => model.modelId as number), Number.MAX_SAFE_INTEGER);
  const jobs = yield* rows.selectJobs({ saveId });
  return { facts, beliefs, models, versions, jobs };
}

/**
 * Writes a save's living layer into `saveId` (which holds none), inside the caller's transaction: new ids
 * throughout, in the order given; belief sources and history remapped to the new facts, model sources and versions
 * to the new beliefs and models (references to rows the layer does not hold are dropped); running jobs are pending
 * again and unclaimed (see forkedJob). A fixed number of statements, whatever the size of the layer.
 *
 * @example
 * ```ts
 * runRowProgram(writeLivingLayer('run-1-copy', layer), sqliteRows); // inside SqliteStore.importSave
 * ```
 */
export function* writeLivingLayer(saveId: string, layer: LivingSaveLayer): LivingProgram<LivingImportCounts> {
  const newFactIds = layer.facts.length === 0 ? [] : yield* rows.insertFacts(saveId, layer.facts);
  const factIds = new Map(layer.facts.map((fact, index) => [fact.factId as number, newFactIds[index] as number]));
  const beliefCopies = layer.beliefs.map((record): BeliefRecord => ({
    ...record,
    sources: record.sources.flatMap((source) => (factIds.has(source.factId) ? [{ ...source, factId: factIds.get(source.factId) as number }] : [])),
    history: record.history.map((change) => ({ ...change, factIds: change.factIds.flatMap((id) => (factIds.has(id) ? [factIds.get(id) as number] : [])) })),
  }));
  const newBeliefIds = beliefCopies.length === 0 ? [] : yield* rows.insertBeliefs(saveId, beliefCopies);
  const beliefIds = new Map(layer.beliefs.map((record, index) => [record.beliefId as number, newBeliefIds[index] as number]));
  const mapBeliefs = (ids: readonly number[]) => ids.flatMap((id) => (beliefIds.has(id) ? [beliefIds.get(id) as number] : []));
  const newModelIds = layer.models.length === 0 ? [] : yield* rows.insertModels(saveId, layer.models.map((model) => ({ ...model, sources: mapBeliefs(model.sources) })));
  const modelIds = new Map(layer.models.map((model, index) => [model.modelId as number, newModelIds[index] as number]));
  const versions = layer.versions.flatMap((version) => (modelIds.has(version.modelId) ? [{ ...version, modelId: modelIds.get(version.modelId) as number, sources: mapBeliefs(version.sources) }] : []));
  if (versions.length > 0) yield* rows.insertVersions(saveId, versions);
  if (layer.jobs.length > 0) yield* rows.insertJobs(saveId, layer.jobs.map(forkedJob));
  return { facts: newFactIds.length, beliefs: newBeliefIds.length, models: newModelIds.length, modelVersions: versions.length, jobs: layer.jobs.length };
}
