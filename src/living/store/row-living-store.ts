// The one implementation of the LivingStore seam: every operation is a living program run by the adapter's backend.
import { beliefFromInput, toBelief } from '../../core/living-rules.js';
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
  LivingJob,
  MentalModel,
  StageCommit,
  FactsVersion,
} from '../../core/living-types.js';
import type { LivingSaveLayer } from '../../core/living-rules.js';
import type { LivingBackend } from '../../seams/living-rows.js';
import type { BeliefQuery, FactQuery, JobCounts, LivingStore, ModelQuery } from '../../seams/living-store.js';
import { applyConsolidation } from './apply-consolidation.js';
import { completeStage } from './complete-stage.js';
import { insertFacts } from './insert-facts.js';
import { claimJob, enqueueTurn, failStage, releaseClaim, renewClaim, retryFailed } from './job-claims.js';
import { replaceTurnFacts } from './replace-turn-facts.js';
import { rows } from './rows.js';
import { readLivingLayer } from './save-layer.js';
import { upsertModel } from './upsert-model.js';

/**
 * Living memory over a store adapter's rows: the adapter supplies a LivingBackend (its rows, one transaction per
 * write), this class supplies every algorithm, so SQLite, PostgreSQL and the in-memory store behave alike.
 *
 * @example
 * ```ts
 * const living = new RowLivingStore({ read: async (program) => runRowProgram(program, rows), write: ... });
 * await living.insertFacts('run-1', 3, [{ statement: 'Kaël owns a silver key.' }]);
 * ```
 */
export class RowLivingStore implements LivingStore {
  constructor(private readonly backend: LivingBackend) {}

  insertFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    return this.backend.write(insertFacts(saveId, turnId, facts));
  }

  replaceTurnFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    return this.backend.write(replaceTurnFacts(saveId, turnId, facts));
  }

  getFacts(saveId: string, query: FactQuery = {}): Promise<Fact[]> {
    return this.backend.read(rows.selectFacts(saveId, query));
  }

  countFacts(saveId: string): Promise<number> {
    return this.backend.read(rows.countFacts(saveId));
  }

  factsVersion(saveId: string): Promise<FactsVersion> {
    return this.backend.read(rows.factsVersion(saveId));
  }

  async insertBelief(saveId: string, belief: BeliefInput): Promise<number | null> {
    const record = beliefFromInput(belief);
    if (record === null) return null;
    const [beliefId] = await this.backend.write(rows.insertBeliefs(saveId, [record]));
    return beliefId as number;
  }

  async getBeliefs(saveId: string, query: BeliefQuery = {}): Promise<Belief[]> {
    return (await this.backend.read(rows.selectBeliefs(saveId, query))).map(toBelief);
  }

  countBeliefs(saveId: string): Promise<number> {
    return this.backend.read(rows.countBeliefs(saveId));
  }

  applyConsolidation(saveId: string, turnId: number, actions: readonly ConsolidationAction[], factTurnMap: ReadonlyMap<number, number>): Promise<ConsolidationCounts> {
    return this.backend.write(applyConsolidation(saveId, turnId, actions, factTurnMap));
  }

  upsertModel(saveId: string, subject: string, summary: string, turnId: number, sources: readonly number[] = []): Promise<number | null> {
    return this.backend.write(upsertModel(saveId, subject, summary, turnId, sources));
  }

  getModels(saveId: string, query: ModelQuery = {}): Promise<MentalModel[]> {
    return this.backend.read(rows.selectModels(saveId, query));
  }

  countModels(saveId: string): Promise<number> {
    return this.backend.read(rows.countModels(saveId));
  }

  staleSubjects(saveId: string, options: { maxTurnId?: number; limit?: number } = {}): Promise<string[]> {
    return this.backend.read(rows.staleSubjects(saveId, options.maxTurnId ?? Number.MAX_SAFE_INTEGER, options.limit ?? 5));
  }

  enqueueTurn(saveId: string, turnId: number, payload: JobPayload, now: number): Promise<LivingJob> {
    return this.backend.write(enqueueTurn(saveId, turnId, payload, now));
  }

  claimJob(request: ClaimRequest): Promise<LivingJob | null> {
    return this.backend.write(claimJob(request));
  }

  renewClaim(claim: JobClaim, now: number): Promise<boolean> {
    return this.backend.write(renewClaim(claim, now));
  }

  completeStage(claim: JobClaim, commit: StageCommit, now: number): Promise<boolean> {
    return this.backend.write(completeStage(claim, commit, now));
  }

  failStage(claim: JobClaim, error: string, retryAt: number | null, now: number): Promise<boolean> {
    return this.backend.write(failStage(claim, error, retryAt, now));
  }

  releaseClaim(claim: JobClaim, now: number): Promise<boolean> {
    return this.backend.write(releaseClaim(claim, now));
  }

  retryFailed(saveId: string | undefined, now: number): Promise<number> {
    return this.backend.write(retryFailed(saveId, now));
  }

  listJobs(query: { saveId?: string; status?: JobStatus; limit?: number } = {}): Promise<LivingJob[]> {
    return this.backend.read(rows.selectJobs(query));
  }

  countJobs(saveId?: string): Promise<JobCounts> {
    return this.backend.read(rows.countJobs(saveId));
  }

  readSave(saveId: string): Promise<LivingSaveLayer> {
    return this.backend.read(readLivingLayer(saveId));
  }
}
