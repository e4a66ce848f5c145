// The in-memory rows of living memory (the LivingRows port), held in maps; the algorithms are src/living/store/.
import { nameKey } from '../../core/living-rules.js';
import type { BeliefRecord, ModelVersion } from '../../core/living-rules.js';
import type { Fact, FactsVersion, LivingJob, MentalModel } from '../../core/living-types.js';
import type { BeliefsAfter, JobFields, JobQuery, LivingRows, ModelsAfter, QueuedJobFields, StoredModelVersion } from '../../seams/living-rows.js';
import type { BeliefQuery, FactQuery, JobCounts, ModelQuery } from '../../seams/living-store.js';

interface StoredFact {
  saveId: string;
  fact: Fact;
  entityKeys: string[];
}

interface StoredVersion extends StoredModelVersion {
  versionId: number;
  saveId: string;
}

const clone = <T>(value: T): T => structuredClone(value);
const limited = <T>(list: T[], limit: number | undefined) => (limit === undefined || limit < 0 ? list : list.slice(0, limit));
const MAX_TURN = Number.MAX_SAFE_INTEGER;

/**
 * Living memory's rows in process memory. Writes store copies of what they are given and replace stored objects
 * rather than change them, so what a read returns never changes under its caller; reads that reach the seam's
 * callers as they are (facts, models, jobs) return copies. Each method runs without yielding, so a program run
 * in one go is atomic.
 *
 * @example
 * ```ts
 * const rows = new InMemoryLivingRows();
 * runRowProgram(rewindLiving('run-1', 12), rows);
 * ```
 */
export class InMemoryLivingRows implements LivingRows {
  private readonly facts = new Map<number, StoredFact>();
  private readonly beliefs = new Map<number, { saveId: string; record: BeliefRecord }>();
  private readonly models = new Map<number, { saveId: string; model: MentalModel }>();
  private versions: StoredVersion[] = [];
  private readonly jobs = new Map<number, LivingJob>();
  private readonly ids = { fact: 0, belief: 0, model: 0, version: 0, job: 0 };

  // ---- facts ----

  private factsOf(saveId: string): StoredFact[] {
    return [...this.facts.values()].filter((stored) => stored.saveId === saveId);
  }

  insertFacts(saveId: string, facts: readonly Fact[]): number[] {
    return facts.map((fact) => {
      const factId = ++this.ids.fact;
      this.facts.set(factId, { saveId, fact: { ...clone(fact), factId }, entityKeys: fact.entities.map(nameKey) });
      return factId;
    });
  }

  deleteTurnFacts(saveId: string, turnId: number): number[] {
    const gone = this.factsOf(saveId).filter((stored) => stored.fact.turnId === turnId).map((stored) => stored.fact.factId as number);
    for (const factId of gone) this.facts.delete(factId);
    return gone;
  }

  deleteFactsAfter(saveId: string, turnId: number): number {
    const gone = this.factsOf(saveId).filter((stored) => (stored.fact.turnId as number) > turnId);
    for (const stored of gone) this.facts.delete(stored.fact.factId as number);
    return gone.length;
  }

  copyFacts(saveId: string, newSaveId: string, atTurn: number): [number, number][] {
    const copied = this.factsOf(saveId).filter((stored) => (stored.fact.turnId as number) <= atTurn).sort((a, b) => (a.fact.factId as number) - (b.fact.factId as number));
    return copied.map((stored) => {
      const factId = ++this.ids.fact;
      this.facts.set(factId, { saveId: newSaveId, fact: { ...clone(stored.fact), factId }, entityKeys: [...stored.entityKeys] });
      return [stored.fact.factId as number, factId];
    });
  }

  selectFacts(saveId: string, query: FactQuery): Fact[] {
    const maxTurnId = query.maxTurnId ?? MAX_TURN;
    const entity = query.entity === undefined ? undefined : nameKey(query.entity);
    const list = this.factsOf(saveId)
      .filter(({ fact, entityKeys }) => (fact.turnId as number) <= maxTurnId && (query.turnId === undefined || fact.turnId === query.turnId) && (entity === undefined || entityKeys.includes(entity)))
      .map(({ fact }) => fact)
      .sort((a, b) => (b.turnId as number) - (a.turnId as number) || (b.factId as number) - (a.factId as number));
    return clone(limited(list, query.limit));
  }

  countFacts(saveId: string): number {
    return this.factsOf(saveId).length;
  }

  factsVersion(saveId: string): FactsVersion {
    const facts = this.factsOf(saveId);
    return { count: facts.length, lastFactId: facts.reduce((last, stored) => Math.max(last, stored.fact.factId as number), 0) };
  }

  // ---- beliefs ----

  private recordsOf(saveId: string, keep: (record: BeliefRecord) => boolean): BeliefRecord[] {
    return [...this.beliefs.values()].filter((entry) => entry.saveId === saveId && keep(entry.record)).map((entry) => entry.record);
  }

  selectBeliefs(saveId: string, query: BeliefQuery): BeliefRecord[] {
    const maxTurnId = query.maxTurnId ?? MAX_TURN;
    const subject = query.subject === undefined ? undefined : nameKey(query.subject);
    const factIds = query.factIds === undefined ? undefined : new Set(query.factIds);
    const list = this.recordsOf(saveId, (record) => record.createdTurnId <= maxTurnId && (query.includeDeleted === true || record.deletedTurnId === null)
      && (subject === undefined || nameKey(record.subject) === subject)
      && (factIds === undefined || record.sources.some((source) => factIds.has(source.factId))))
      .sort((a, b) => b.updatedTurnId - a.updatedTurnId || (b.beliefId as number) - (a.beliefId as number));
    return limited(list, query.limit);
  }

  beliefsChangedAt(saveId: string, turnId: number): BeliefRecord[] {
    return this.recordsOf(saveId, (record) => record.updatedTurnId === turnId);
  }

  lockBeliefs(saveId: string, beliefIds: readonly number[]): BeliefRecord[] {
    const wanted = new Set(beliefIds);
    return this.recordsOf(saveId, (record) => wanted.has(record.beliefId as number));
  }

  insertBeliefs(saveId: string, records: readonly BeliefRecord[]): number[] {
    return records.map((record) => {
      const beliefId = ++this.ids.belief;
      this.beliefs.set(beliefId, { saveId, record: { ...clone(record), beliefId } });
      return beliefId;
    });
  }

  updateBeliefs(saveId: string, records: readonly BeliefRecord[]): void {
    for (const record of records) {
      const entry = this.beliefs.get(record.beliefId as number);
      if (entry?.saveId === saveId) entry.record = { ...clone(record), createdTurnId: entry.record.createdTurnId };
    }
  }

  deleteBeliefs(saveId: string, beliefIds: readonly number[]): void {
    for (const beliefId of beliefIds) if (this.beliefs.get(beliefId)?.saveId === saveId) this.beliefs.delete(beliefId);
  }

  deleteBeliefsCreatedAfter(saveId: string, turnId: number): number {
    let deleted = 0;
    for (const [beliefId, entry] of this.beliefs) {
      if (entry.saveId !== saveId || entry.record.createdTurnId <= turnId) continue;
      this.beliefs.delete(beliefId);
      deleted++;
    }
    return deleted;
  }

  takeBeliefsAfter(saveId: string, turnId: number): BeliefsAfter {
    const deleted = this.deleteBeliefsCreatedAfter(saveId, turnId);
    return { deleted, changed: this.recordsOf(saveId, (record) => record.updatedTurnId > turnId) };
  }

  countBeliefs(saveId: string): number {
    let count = 0;
    for (const entry of this.beliefs.values()) if (entry.saveId === saveId && entry.record.deletedTurnId === null) count++;
    return count;
  }

  // ---- mental models and their versions ----

  private modelsOf(saveId: string, keep: (model: MentalModel) => boolean): MentalModel[] {
    return [...this.models.values()].filter((entry) => entry.saveId === saveId && keep(entry.model)).map((entry) => entry.model);
  }

  lockModel(saveId: string, subject: string): MentalModel | null {
    const key = nameKey(subject);
    return this.modelsOf(saveId, (model) => nameKey(model.subject) === key)[0] ?? null;
  }

  selectModels(saveId: string, query: ModelQuery): MentalModel[] {
    const maxTurnId = query.maxTurnId ?? MAX_TURN;
    const subject = query.subject === undefined ? undefined : nameKey(query.subject);
    const list = this.modelsOf(saveId, (model) => model.createdTurnId <= maxTurnId && (subject === undefined || nameKey(model.subject) === subject))
      .sort((a, b) => b.updatedTurnId - a.updatedTurnId || (b.modelId as number) - (a.modelId as number));
    return clone(limited(list, query.limit));
  }

  modelsChangedAt(saveId: string, turnId: number): MentalModel[] {
    return this.modelsOf(saveId, (model) => model.updatedTurnId === turnId);
  }

  staleSubjects(saveId: string, maxTurnId: number, limit: number): string[] {
    const list = this.modelsOf(saveId, (model) => model.stale && model.createdTurnId <= maxTurnId)
      .sort((a, b) => a.updatedTurnId - b.updatedTurnId || (a.modelId as number) - (b.modelId as number));
    return limited(list, limit).map((model) => model.subject);
  }

  countModels(saveId: string): number {
    return this.modelsOf(saveId, () => true).length;
  }

  insertModels(saveId: string, models: readonly MentalModel[]): number[] {
    return models.map((model) => {
      const modelId = ++this.ids.model;
      this.models.set(modelId, { saveId, model: { ...clone(model), modelId } });
      return modelId;
    });
  }

  updateModels(saveId: string, models: readonly MentalModel[]): void {
    for (const model of models) {
      const entry = this.models.get(model.modelId as number);
      if (entry?.saveId === saveId) entry.model = { ...entry.model, summary: model.summary, sources: [...model.sources], updatedTurnId: model.updatedTurnId, stale: model.stale };
    }
  }

  deleteModels(saveId: string, modelIds: readonly number[]): void {
    const gone = new Set(modelIds.filter((modelId) => this.models.get(modelId)?.saveId === saveId));
    for (const modelId of gone) this.models.delete(modelId);
    this.versions = this.versions.filter((version) => !gone.has(version.modelId));
  }

  deleteModelsCreatedAfter(saveId: string, turnId: number): number {
    let deleted = 0;
    for (const [modelId, entry] of this.models) {
      if (entry.saveId !== saveId || entry.model.createdTurnId <= turnId) continue;
      this.models.delete(modelId);
      deleted++;
    }
    return deleted;
  }

  latestVersions(saveId: string, modelIds: readonly number[], turnId: number): Map<number, ModelVersion> {
    const wanted = new Set(modelIds);
    const best = new Map<number, StoredVersion>();
    for (const version of this.versions) {
      if (version.saveId !== saveId || !wanted.has(version.modelId) || version.turnId > turnId) continue;
      const held = best.get(version.modelId);
      if (held === undefined || version.turnId > held.turnId || (version.turnId === held.turnId && version.versionId > held.versionId)) best.set(version.modelId, version);
    }
    return new Map([...best].map(([modelId, version]) => [modelId, { turnId: version.turnId, summary: version.summary, sources: [...version.sources] }]));
  }

  takeModelsAfter(saveId: string, turnId: number): ModelsAfter {
    this.deleteVersionsAfter(saveId, turnId);
    const deleted = this.deleteModelsCreatedAfter(saveId, turnId);
    const changed = this.modelsOf(saveId, (model) => model.updatedTurnId > turnId);
    return { deleted, changed, latest: this.latestVersions(saveId, changed.map((model) => model.modelId as number), turnId) };
  }

  versionsUpTo(saveId: string, modelIds: readonly number[], turnId: number): StoredModelVersion[] {
    const wanted = new Set(modelIds);
    return this.versions.filter((version) => version.saveId === saveId && wanted.has(version.modelId) && version.turnId <= turnId)
      .map(({ modelId, turnId: versionTurn, summary, sources }) => ({ modelId, turnId: versionTurn, summary, sources: [...sources] }));
  }

  insertVersions(saveId: string, versions: readonly StoredModelVersion[]): void {
    for (const version of versions) this.versions.push({ ...clone(version), versionId: ++this.ids.version, saveId });
  }

  deleteVersionsAt(saveId: string, modelId: number, turnId: number): void {
    this.versions = this.versions.filter((version) => !(version.saveId === saveId && version.modelId === modelId && version.turnId === turnId));
  }

  deleteVersionsFrom(saveId: string, modelIds: readonly number[], turnId: number): void {
    const gone = new Set(modelIds);
    this.versions = this.versions.filter((version) => !(version.saveId === saveId && gone.has(version.modelId) && version.turnId >= turnId));
  }

  deleteVersionsAfter(saveId: string, turnId: number): void {
    this.versions = this.versions.filter((version) => !(version.saveId === saveId && version.turnId > turnId));
  }

  // ---- jobs ----

  lockClaims(): void {
    // A program runs without yielding: nothing else touches the maps meanwhile.
  }

  openJobs(saveId: string | undefined): LivingJob[] {
    return [...this.jobs.values()].filter((job) => (job.status === 'pending' || job.status === 'running') && (saveId === undefined || job.saveId === saveId));
  }

  lockJob(saveId: string, jobId: number): LivingJob | undefined {
    const job = this.jobs.get(jobId);
    return job?.saveId === saveId ? job : undefined;
  }

  upsertJob(saveId: string, turnId: number, fields: QueuedJobFields): LivingJob {
    const existing = [...this.jobs.values()].find((job) => job.saveId === saveId && job.turnId === turnId);
    const job: LivingJob = existing === undefined
      ? { ...clone(fields), jobId: ++this.ids.job, saveId, turnId, generation: 1, createdAt: fields.updatedAt }
      : { ...existing, ...clone(fields), generation: existing.generation + 1 };
    this.jobs.set(job.jobId, job);
    return job;
  }

  updateJob(saveId: string, jobId: number, fields: Partial<JobFields>): void {
    const job = this.jobs.get(jobId);
    if (job?.saveId === saveId) this.jobs.set(jobId, { ...job, ...clone(fields) });
  }

  updateFailedJobs(saveId: string | undefined, fields: Partial<JobFields>): number {
    let count = 0;
    for (const [jobId, job] of this.jobs) {
      if (job.status !== 'failed' || (saveId !== undefined && job.saveId !== saveId)) continue;
      this.jobs.set(jobId, { ...job, ...clone(fields) });
      count++;
    }
    return count;
  }

  insertJobs(saveId: string, jobs: readonly LivingJob[]): void {
    for (const job of jobs) {
      const jobId = ++this.ids.job;
      this.jobs.set(jobId, { ...clone(job), jobId, saveId });
    }
  }

  deleteJobsAfter(saveId: string, turnId: number): number {
    let deleted = 0;
    for (const [jobId, job] of this.jobs) {
      if (job.saveId !== saveId || job.turnId <= turnId) continue;
      this.jobs.delete(jobId);
      deleted++;
    }
    return deleted;
  }

  selectJobs(query: JobQuery): LivingJob[] {
    const list = [...this.jobs.values()]
      .filter((job) => (query.saveId === undefined || job.saveId === query.saveId) && (query.status === undefined || job.status === query.status))
      .sort((a, b) => (a.saveId < b.saveId ? -1 : a.saveId > b.saveId ? 1 : a.turnId - b.turnId));
    return clone(limited(list, query.limit));
  }

  countJobs(saveId: string | undefined): JobCounts {
    const counts: JobCounts = { pending: 0, running: 0, done: 0, failed: 0 };
    for (const job of this.jobs.values()) if (saveId === undefined || job.saveId === saveId) counts[job.status]++;
    return counts;
  }

  // ---- the whole layer ----

  holdsData(saveId: string): boolean {
    const owned = (entries: Iterable<{ saveId: string }>) => [...entries].some((entry) => entry.saveId === saveId);
    return owned(this.facts.values()) || owned(this.beliefs.values()) || owned(this.models.values()) || owned(this.jobs.values());
  }
}
