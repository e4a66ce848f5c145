// The in-memory adapter of the LivingStore seam: the same contract as SQLite, held in maps.
import { randomUUID } from 'node:crypto';
import { holdsClaim, isClaimable, NEXT_STAGE, queueHeads } from '../../core/job-rules.js';
import { beliefFromInput, createBelief, deleteBelief, nameKey, normalizeFact, reextractBelief, rewindBelief, rewindModel, toBelief, updateBelief } from '../../core/living-rules.js';
import type { BeliefRecord, ModelVersion } from '../../core/living-rules.js';
import type {
  Belief,
  BeliefInput,
  ClaimRequest,
  ConsolidationAction,
  ConsolidationCounts,
  Fact,
  FactInput,
  JobClaim,
  JobPayload,
  JobStatus,
  LivingForkCounts,
  LivingJob,
  LivingRewindCounts,
  MentalModel,
  StageCommit,
} from '../../core/living-types.js';
import type { BeliefQuery, FactQuery, JobCounts, LivingStore, ModelQuery } from '../../seams/living-store.js';

interface StoredFact {
  saveId: string;
  fact: Fact;
  entityKeys: string[];
}

interface StoredVersion extends ModelVersion {
  versionId: number;
  modelId: number;
  saveId: string;
}

const clone = <T>(value: T): T => structuredClone(value);
const limited = <T>(list: T[], limit: number | undefined) => (limit === undefined || limit < 0 ? list : list.slice(0, limit));

/**
 * Living memory in process memory. Each method runs to completion without yielding, so each is atomic; the
 * `...Within` methods are the same work for the store's own rewind and fork.
 *
 * @example
 * ```ts
 * const store = openInMemoryStore();
 * await store.living.insertFacts('run-1', 3, [{ statement: 'Kaël owns a silver key.' }]);
 * ```
 */
export class InMemoryLivingStore implements LivingStore {
  private readonly facts = new Map<number, StoredFact>();
  private readonly beliefs = new Map<number, { saveId: string; record: BeliefRecord }>();
  private readonly models = new Map<number, { saveId: string; model: MentalModel }>();
  private versions: StoredVersion[] = [];
  private readonly jobs = new Map<number, LivingJob>();
  private readonly ids = { fact: 0, belief: 0, model: 0, version: 0, job: 0 };

  constructor(private readonly ensureOpen: () => void) {}

  // ---- facts ----

  private insertFactsWithin(saveId: string, turnId: number, facts: FactInput[]): number[] {
    const ids: number[] = [];
    for (const input of facts) {
      const fact = normalizeFact(input, turnId);
      if (fact === null) continue;
      fact.factId = ++this.ids.fact;
      this.facts.set(fact.factId, { saveId, fact, entityKeys: fact.entities.map(nameKey) });
      ids.push(fact.factId);
      input.factId = fact.factId;
      input.turnId = turnId;
    }
    return ids;
  }

  async insertFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    this.ensureOpen();
    return this.insertFactsWithin(saveId, turnId, facts);
  }

  private replaceTurnFactsWithin(saveId: string, turnId: number, facts: FactInput[]): number[] {
    const gone = new Set<number>();
    for (const [factId, stored] of this.facts) {
      if (stored.saveId === saveId && stored.fact.turnId === turnId) gone.add(factId);
    }
    for (const factId of gone) this.facts.delete(factId);
    if (gone.size > 0) this.undoTurnWithin(saveId, turnId, gone);
    return this.insertFactsWithin(saveId, turnId, facts);
  }

  /** Undoes what a turn's earlier extraction led to (see reextractBelief); models refreshed last at that turn go back too. */
  private undoTurnWithin(saveId: string, turnId: number, gone: ReadonlySet<number>): void {
    for (const [beliefId, entry] of this.beliefs) {
      if (entry.saveId !== saveId) continue;
      const next = reextractBelief(entry.record, turnId, gone);
      if (next === null) this.beliefs.delete(beliefId);
      else if (next !== undefined) entry.record = next;
    }
    for (const [modelId, entry] of this.models) {
      if (entry.saveId !== saveId || entry.model.updatedTurnId !== turnId) continue;
      this.versions = this.versions.filter((version) => !(version.modelId === modelId && version.turnId >= turnId));
      const { model } = rewindModel(entry.model, this.latestVersion(modelId, turnId - 1), turnId - 1);
      if (model === null) {
        this.models.delete(modelId);
        this.versions = this.versions.filter((version) => version.modelId !== modelId);
      } else entry.model = model;
    }
  }

  async replaceTurnFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    this.ensureOpen();
    return this.replaceTurnFactsWithin(saveId, turnId, facts);
  }

  async getFacts(saveId: string, query: FactQuery = {}): Promise<Fact[]> {
    this.ensureOpen();
    const maxTurnId = query.maxTurnId ?? Number.MAX_SAFE_INTEGER;
    const entity = query.entity === undefined ? undefined : nameKey(query.entity);
    const list = [...this.facts.values()]
      .filter(({ saveId: owner, fact, entityKeys }) => owner === saveId && (fact.turnId as number) <= maxTurnId
        && (query.turnId === undefined || fact.turnId === query.turnId) && (entity === undefined || entityKeys.includes(entity)))
      .map(({ fact }) => fact)
      .sort((a, b) => (b.turnId as number) - (a.turnId as number) || (b.factId as number) - (a.factId as number));
    return clone(limited(list, query.limit));
  }

  async countFacts(saveId: string): Promise<number> {
    this.ensureOpen();
    let count = 0;
    for (const stored of this.facts.values()) if (stored.saveId === saveId) count++;
    return count;
  }

  private rollbackFactsWithin(saveId: string, target: number): number {
    let removed = 0;
    for (const [factId, stored] of this.facts) {
      if (stored.saveId === saveId && (stored.fact.turnId as number) > target) {
        this.facts.delete(factId);
        removed++;
      }
    }
    return removed;
  }

  async rollbackFacts(saveId: string, targetTurnId: number): Promise<number> {
    this.ensureOpen();
    return this.rollbackFactsWithin(saveId, targetTurnId);
  }

  // ---- beliefs ----

  private beliefRecords(saveId: string, query: BeliefQuery = {}): BeliefRecord[] {
    const maxTurnId = query.maxTurnId ?? Number.MAX_SAFE_INTEGER;
    const subject = query.subject === undefined ? undefined : nameKey(query.subject);
    const factIds = query.factIds === undefined ? undefined : new Set(query.factIds);
    const list = [...this.beliefs.values()]
      .filter(({ saveId: owner, record }) => owner === saveId && record.createdTurnId <= maxTurnId && (query.includeDeleted || record.deletedTurnId === null)
        && (subject === undefined || nameKey(record.subject) === subject)
        && (factIds === undefined || record.sources.some((source) => factIds.has(source.factId))))
      .map(({ record }) => record)
      .sort((a, b) => b.updatedTurnId - a.updatedTurnId || (b.beliefId as number) - (a.beliefId as number));
    return limited(list, query.limit);
  }

  private insertBeliefRecord(saveId: string, record: BeliefRecord): number {
    const beliefId = ++this.ids.belief;
    this.beliefs.set(beliefId, { saveId, record: { ...clone(record), beliefId } });
    return beliefId;
  }

  async insertBelief(saveId: string, belief: BeliefInput): Promise<number | null> {
    this.ensureOpen();
    const record = beliefFromInput(belief);
    return record === null ? null : this.insertBeliefRecord(saveId, record);
  }

  async getBeliefs(saveId: string, query: BeliefQuery = {}): Promise<Belief[]> {
    this.ensureOpen();
    return this.beliefRecords(saveId, query).map(toBelief);
  }

  async countBeliefs(saveId: string): Promise<number> {
    this.ensureOpen();
    return this.beliefRecords(saveId).length;
  }

  private applyConsolidationWithin(saveId: string, turnId: number, actions: readonly ConsolidationAction[], factTurnMap: ReadonlyMap<number, number>): ConsolidationCounts {
    const counts: ConsolidationCounts = { created: 0, updated: 0, deleted: 0, skipped: 0 };
    for (const action of actions) {
      if (action.kind === 'CREATE') {
        const record = createBelief(action, turnId, factTurnMap);
        if (record === null) counts.skipped++;
        else {
          this.insertBeliefRecord(saveId, record);
          counts.created++;
        }
        continue;
      }
      const entry = action.beliefId === null ? undefined : this.beliefs.get(action.beliefId);
      const current = entry === undefined || entry.saveId !== saveId ? null : entry.record;
      const next = current === null ? null : action.kind === 'UPDATE' ? updateBelief(current, action, turnId, factTurnMap) : deleteBelief(current, turnId);
      if (entry === undefined || next === null) {
        counts.skipped++;
        continue;
      }
      entry.record = next;
      if (action.kind === 'UPDATE') counts.updated++;
      else counts.deleted++;
    }
    return counts;
  }

  async applyConsolidation(saveId: string, turnId: number, actions: readonly ConsolidationAction[], factTurnMap: ReadonlyMap<number, number>): Promise<ConsolidationCounts> {
    this.ensureOpen();
    return this.applyConsolidationWithin(saveId, turnId, clone(actions), new Map(factTurnMap));
  }

  private rollbackBeliefsWithin(saveId: string, target: number): { deleted: number; updated: number } {
    let deleted = 0;
    let updated = 0;
    for (const [beliefId, entry] of this.beliefs) {
      if (entry.saveId !== saveId) continue;
      const { record, changed } = rewindBelief(entry.record, target);
      if (record === null) {
        this.beliefs.delete(beliefId);
        deleted++;
      } else if (changed) {
        entry.record = record;
        updated++;
      }
    }
    return { deleted, updated };
  }

  async rollbackBeliefs(saveId: string, targetTurnId: number): Promise<{ deleted: number; updated: number }> {
    this.ensureOpen();
    return this.rollbackBeliefsWithin(saveId, targetTurnId);
  }

  // ---- mental models ----

  private modelOf(saveId: string, subject: string): { saveId: string; model: MentalModel } | undefined {
    const key = nameKey(subject);
    for (const entry of this.models.values()) if (entry.saveId === saveId && nameKey(entry.model.subject) === key) return entry;
    return undefined;
  }

  private upsertModelWithin(saveId: string, subject: string, summary: string, turnId: number, sources: readonly number[]): number | null {
    const text = summary.trim();
    if (text === '') return null;
    let entry = this.modelOf(saveId, subject);
    if (entry === undefined) {
      const modelId = ++this.ids.model;
      entry = { saveId, model: { modelId, subject: subject.trim(), summary: text, sources: [...sources], createdTurnId: turnId, updatedTurnId: turnId, stale: false } };
      this.models.set(modelId, entry);
    } else {
      entry.model = { ...entry.model, summary: text, sources: [...sources], updatedTurnId: turnId, stale: false };
    }
    const modelId = entry.model.modelId as number;
    this.versions = this.versions.filter((version) => !(version.modelId === modelId && version.turnId === turnId));
    this.versions.push({ versionId: ++this.ids.version, modelId, saveId, turnId, summary: text, sources: [...sources] });
    return modelId;
  }

  async upsertModel(saveId: string, subject: string, summary: string, turnId: number, sources: readonly number[] = []): Promise<number | null> {
    this.ensureOpen();
    return this.upsertModelWithin(saveId, subject, summary, turnId, sources);
  }

  private modelList(saveId: string, maxTurnId = Number.MAX_SAFE_INTEGER): MentalModel[] {
    return [...this.models.values()].filter((entry) => entry.saveId === saveId && entry.model.createdTurnId <= maxTurnId).map((entry) => entry.model);
  }

  async getModels(saveId: string, query: ModelQuery = {}): Promise<MentalModel[]> {
    this.ensureOpen();
    const subject = query.subject === undefined ? undefined : nameKey(query.subject);
    const list = this.modelList(saveId, query.maxTurnId)
      .filter((model) => subject === undefined || nameKey(model.subject) === subject)
      .sort((a, b) => b.updatedTurnId - a.updatedTurnId || (b.modelId as number) - (a.modelId as number));
    return clone(limited(list, query.limit));
  }

  async countModels(saveId: string): Promise<number> {
    this.ensureOpen();
    return this.modelList(saveId).length;
  }

  async staleSubjects(saveId: string, options: { maxTurnId?: number; limit?: number } = {}): Promise<string[]> {
    this.ensureOpen();
    const list = this.modelList(saveId, options.maxTurnId)
      .filter((model) => model.stale)
      .sort((a, b) => a.updatedTurnId - b.updatedTurnId || (a.modelId as number) - (b.modelId as number));
    return limited(list, options.limit ?? 5).map((model) => model.subject);
  }

  private latestVersion(modelId: number, target: number): ModelVersion | null {
    let best: StoredVersion | null = null;
    for (const version of this.versions) {
      if (version.modelId !== modelId || version.turnId > target) continue;
      if (best === null || version.turnId > best.turnId || (version.turnId === best.turnId && version.versionId > best.versionId)) best = version;
    }
    return best === null ? null : { turnId: best.turnId, summary: best.summary, sources: [...best.sources] };
  }

  private rollbackModelsWithin(saveId: string, target: number): { deleted: number; updated: number } {
    this.versions = this.versions.filter((version) => !(version.saveId === saveId && version.turnId > target));
    let deleted = 0;
    let updated = 0;
    for (const [modelId, entry] of this.models) {
      if (entry.saveId !== saveId) continue;
      const { model, changed } = rewindModel(entry.model, this.latestVersion(modelId, target), target);
      if (model === null) {
        this.models.delete(modelId);
        this.versions = this.versions.filter((version) => version.modelId !== modelId);
        deleted++;
      } else if (changed) {
        entry.model = model;
        updated++;
      }
    }
    return { deleted, updated };
  }

  async rollbackModels(saveId: string, targetTurnId: number): Promise<{ deleted: number; updated: number }> {
    this.ensureOpen();
    return this.rollbackModelsWithin(saveId, targetTurnId);
  }

  // ---- whole layer: rewind and fork ----

  /** Rolls the whole layer back (used by InMemoryStore.rewind). */
  rollbackWithin(saveId: string, target: number): LivingRewindCounts {
    const facts = this.rollbackFactsWithin(saveId, target);
    const beliefs = this.rollbackBeliefsWithin(saveId, target);
    const models = this.rollbackModelsWithin(saveId, target);
    let jobsCancelled = 0;
    for (const [jobId, job] of this.jobs) {
      if (job.saveId === saveId && job.turnId > target) {
        this.jobs.delete(jobId);
        jobsCancelled++;
      }
    }
    return { facts, beliefsDeleted: beliefs.deleted, beliefsUpdated: beliefs.updated, modelsDeleted: models.deleted, modelsUpdated: models.updated, jobsCancelled };
  }

  async rollback(saveId: string, targetTurnId: number): Promise<LivingRewindCounts> {
    this.ensureOpen();
    return this.rollbackWithin(saveId, targetTurnId);
  }

  /** True when the save holds any living data. */
  holdsData(saveId: string): boolean {
    const owned = (entries: Iterable<{ saveId: string }>) => [...entries].some((entry) => entry.saveId === saveId);
    return owned(this.facts.values()) || owned(this.beliefs.values()) || owned(this.models.values()) || owned(this.jobs.values());
  }

  /** Copies the layer's state of `saveId` as of `atTurn` into `newSaveId` (see SqliteLivingStore.forkWithin). */
  forkWithin(saveId: string, newSaveId: string, atTurn: number): LivingForkCounts {
    const factIds = new Map<number, number>();
    const facts = [...this.facts.values()].filter((stored) => stored.saveId === saveId && (stored.fact.turnId as number) <= atTurn)
      .sort((a, b) => (a.fact.factId as number) - (b.fact.factId as number));
    for (const stored of facts) {
      const factId = ++this.ids.fact;
      factIds.set(stored.fact.factId as number, factId);
      this.facts.set(factId, { saveId: newSaveId, fact: { ...clone(stored.fact), factId }, entityKeys: [...stored.entityKeys] });
    }
    const mapFact = (id: number) => factIds.get(id) ?? id;
    const beliefIds = new Map<number, number>();
    const beliefs = [...this.beliefs.values()].filter((entry) => entry.saveId === saveId).sort((a, b) => (a.record.beliefId as number) - (b.record.beliefId as number));
    for (const entry of beliefs) {
      const { record } = rewindBelief(entry.record, atTurn);
      if (record === null) continue;
      beliefIds.set(entry.record.beliefId as number, this.insertBeliefRecord(newSaveId, {
        ...record,
        sources: record.sources.map((source) => ({ ...source, factId: mapFact(source.factId) })),
        history: record.history.map((change) => ({ ...change, factIds: change.factIds.map(mapFact) })),
      }));
    }
    const mapBeliefs = (ids: readonly number[]) => ids.flatMap((id) => (beliefIds.has(id) ? [beliefIds.get(id) as number] : []));
    let models = 0;
    const sourceModels = [...this.models.values()].filter((entry) => entry.saveId === saveId).sort((a, b) => (a.model.modelId as number) - (b.model.modelId as number));
    for (const entry of sourceModels) {
      const oldId = entry.model.modelId as number;
      const { model } = rewindModel(entry.model, this.latestVersion(oldId, atTurn), atTurn);
      if (model === null) continue;
      const modelId = ++this.ids.model;
      this.models.set(modelId, { saveId: newSaveId, model: { ...clone(model), modelId, sources: mapBeliefs(model.sources) } });
      for (const version of this.versions.filter((candidate) => candidate.modelId === oldId && candidate.turnId <= atTurn)) {
        this.versions.push({ ...version, versionId: ++this.ids.version, modelId, saveId: newSaveId, sources: mapBeliefs(version.sources) });
      }
      models++;
    }
    let jobs = 0;
    for (const job of [...this.jobs.values()].filter((candidate) => candidate.saveId === saveId && candidate.turnId <= atTurn).sort((a, b) => a.jobId - b.jobId)) {
      const jobId = ++this.ids.job;
      this.jobs.set(jobId, { ...clone(job), jobId, saveId: newSaveId, status: job.status === 'running' ? 'pending' : job.status, claimedBy: null, claimToken: null, claimedAt: null });
      jobs++;
    }
    return { facts: facts.length, beliefs: beliefIds.size, models, jobs };
  }

  // ---- jobs ----

  async enqueueTurn(saveId: string, turnId: number, payload: JobPayload, now: number): Promise<LivingJob> {
    this.ensureOpen();
    const existing = [...this.jobs.values()].find((job) => job.saveId === saveId && job.turnId === turnId);
    const base = { stage: 'extract' as const, status: 'pending' as const, attempts: 0, payload: clone(payload), subjects: [], claimedBy: null, claimToken: null, claimedAt: null, notBefore: 0, lastError: null, updatedAt: now };
    const job: LivingJob = existing === undefined
      ? { ...base, jobId: ++this.ids.job, saveId, turnId, generation: 1, createdAt: now }
      : { ...existing, ...base, generation: existing.generation + 1 };
    this.jobs.set(job.jobId, job);
    return clone(job);
  }

  async claimJob(request: ClaimRequest): Promise<LivingJob | null> {
    this.ensureOpen();
    const candidates = [...this.jobs.values()].filter((job) => request.saveId === undefined || job.saveId === request.saveId);
    const head = queueHeads(candidates).find((job) => isClaimable(job, request));
    if (head === undefined) return null;
    const claimed: LivingJob = { ...head, status: 'running', claimedBy: request.workerId, claimToken: randomUUID(), claimedAt: request.now, updatedAt: request.now };
    this.jobs.set(claimed.jobId, claimed);
    return clone(claimed);
  }

  private held(claim: JobClaim): LivingJob | null {
    const job = this.jobs.get(claim.jobId);
    return holdsClaim(job, claim) ? job : null;
  }

  async renewClaim(claim: JobClaim, now: number): Promise<boolean> {
    this.ensureOpen();
    const job = this.held(claim);
    if (job === null) return false;
    job.claimedAt = now;
    return true;
  }

  async completeStage(claim: JobClaim, commit: StageCommit, now: number): Promise<boolean> {
    this.ensureOpen();
    const job = this.held(claim);
    if (job === null || job.stage !== commit.stage) return false;
    if (commit.stage === 'extract') this.replaceTurnFactsWithin(job.saveId, job.turnId, commit.facts);
    else if (commit.stage === 'consolidate') {
      this.applyConsolidationWithin(job.saveId, job.turnId, clone(commit.actions), new Map(commit.factTurnMap));
      job.subjects = [...commit.subjects];
    } else {
      for (const model of commit.models) this.upsertModelWithin(job.saveId, model.subject, model.summary, job.turnId, model.sources);
    }
    job.stage = NEXT_STAGE[commit.stage];
    job.attempts = 0;
    job.lastError = null;
    job.updatedAt = now;
    if (job.stage === 'done') Object.assign(job, { status: 'done', claimedBy: null, claimToken: null, claimedAt: null });
    else job.claimedAt = now;
    return true;
  }

  async failStage(claim: JobClaim, error: string, retryAt: number | null, now: number): Promise<boolean> {
    this.ensureOpen();
    const job = this.held(claim);
    if (job === null) return false;
    Object.assign(job, { status: retryAt === null ? 'failed' : 'pending', attempts: job.attempts + 1, notBefore: retryAt ?? 0, lastError: error.slice(0, 2000), claimedBy: null, claimToken: null, claimedAt: null, updatedAt: now });
    return true;
  }

  async releaseClaim(claim: JobClaim, now: number): Promise<boolean> {
    this.ensureOpen();
    const job = this.held(claim);
    if (job === null) return false;
    Object.assign(job, { status: 'pending', claimedBy: null, claimToken: null, claimedAt: null, updatedAt: now });
    return true;
  }

  async retryFailed(saveId: string | undefined, now: number): Promise<number> {
    this.ensureOpen();
    let count = 0;
    for (const job of this.jobs.values()) {
      if (job.status !== 'failed' || (saveId !== undefined && job.saveId !== saveId)) continue;
      Object.assign(job, { status: 'pending', attempts: 0, notBefore: 0, updatedAt: now });
      count++;
    }
    return count;
  }

  async listJobs(query: { saveId?: string; status?: JobStatus; limit?: number } = {}): Promise<LivingJob[]> {
    this.ensureOpen();
    const list = [...this.jobs.values()]
      .filter((job) => (query.saveId === undefined || job.saveId === query.saveId) && (query.status === undefined || job.status === query.status))
      .sort((a, b) => (a.saveId < b.saveId ? -1 : a.saveId > b.saveId ? 1 : a.turnId - b.turnId));
    return clone(limited(list, query.limit));
  }

  async countJobs(saveId?: string): Promise<JobCounts> {
    this.ensureOpen();
    const counts: JobCounts = { pending: 0, running: 0, done: 0, failed: 0 };
    for (const job of this.jobs.values()) if (saveId === undefined || job.saveId === saveId) counts[job.status]++;
    return counts;
  }
}
