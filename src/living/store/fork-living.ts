// Forking the living layer of a save as of a turn, inside the caller's transaction (the store's fork).
import { forkedJob } from '../../core/job-rules.js';
import { rewindBelief, rewindModel } from '../../core/living-rules.js';
import type { BeliefRecord } from '../../core/living-rules.js';
import type { LivingForkCounts, MentalModel } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { rows } from './rows.js';

const byId = <T>(id: (item: T) => number) => (a: T, b: T) => id(a) - id(b);

/**
 * Copies the living layer of `saveId` as of `atTurn` into `newSaveId`: the facts of turns <= atTurn, the beliefs
 * and models as a rewind to atTurn would leave them (with their model versions up to atTurn), and the jobs of those
 * turns (running ones reset to pending, see forkedJob). New ids throughout, in the order of the old ones; belief
 * sources and history remapped to the copied facts, model sources to the copied beliefs. The old save is untouched.
 * A fixed number of statements, whatever the size of the save.
 *
 * @example
 * ```ts
 * const counts = runRowProgram(forkLiving('run-1', 'run-1-branch', 12), sqliteRows); // inside SqliteStore.fork
 * ```
 */
export function* forkLiving(saveId: string, newSaveId: string, atTurn: number): LivingProgram<LivingForkCounts> {
  const factPairs = yield* rows.copyFacts(saveId, newSaveId, atTurn);
  const factIds = new Map(factPairs);
  const mapFact = (id: number) => factIds.get(id) ?? id;

  const oldBeliefIds: number[] = [];
  const beliefCopies: BeliefRecord[] = [];
  const beliefs = (yield* rows.selectBeliefs(saveId, { maxTurnId: atTurn, includeDeleted: true })).sort(byId((record) => record.beliefId as number));
  for (const record of beliefs) {
    const { record: rewound } = rewindBelief(record, atTurn);
    if (rewound === null) continue;
    oldBeliefIds.push(record.beliefId as number);
    beliefCopies.push({
      ...rewound,
      sources: rewound.sources.map((source) => ({ ...source, factId: mapFact(source.factId) })),
      history: rewound.history.map((change) => ({ ...change, factIds: change.factIds.map(mapFact) })),
    });
  }
  const newBeliefIds = beliefCopies.length === 0 ? [] : yield* rows.insertBeliefs(newSaveId, beliefCopies);
  const beliefIds = new Map(oldBeliefIds.map((id, index) => [id, newBeliefIds[index] as number]));
  const mapBeliefs = (ids: readonly number[]) => ids.flatMap((id) => (beliefIds.has(id) ? [beliefIds.get(id) as number] : []));

  const models = (yield* rows.selectModels(saveId, { maxTurnId: atTurn })).sort(byId((model) => model.modelId as number));
  if (models.length > 0) {
    const oldModelIds = models.map((model) => model.modelId as number);
    const latest = yield* rows.latestVersions(saveId, oldModelIds, atTurn);
    const modelCopies = models.map((model): MentalModel => {
      const rewound = rewindModel(model, latest.get(model.modelId as number) ?? null, atTurn).model as MentalModel;
      return { ...rewound, sources: mapBeliefs(rewound.sources) };
    });
    const newModelIds = yield* rows.insertModels(newSaveId, modelCopies);
    const modelIds = new Map(oldModelIds.map((id, index) => [id, newModelIds[index] as number]));
    const versions = yield* rows.versionsUpTo(saveId, oldModelIds, atTurn);
    if (versions.length > 0) {
      yield* rows.insertVersions(newSaveId, versions.map((version) => ({ ...version, modelId: modelIds.get(version.modelId) as number, sources: mapBeliefs(version.sources) })));
    }
  }

  const jobs = (yield* rows.selectJobs({ saveId })).filter((job) => job.turnId <= atTurn).sort(byId((job) => job.jobId));
  if (jobs.length > 0) yield* rows.insertJobs(newSaveId, jobs.map(forkedJob));
  return { facts: factPairs.length, beliefs: beliefCopies.length, models: models.length, jobs: jobs.length };
}
