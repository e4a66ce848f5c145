// The living-memory part of the Store seam: facts, beliefs, mental models and the durable job queue of one store.
import type {
  Belief,
  BeliefInput,
  ClaimRequest,
  ConsolidationAction,
  ConsolidationCounts,
  Fact,
  FactInput,
  FactsVersion,
  JobClaim,
  JobPayload,
  JobStatus,
  LivingJob,
  MentalModel,
  StageCommit,
} from '../core/living-types.js';

import type { LivingSaveLayer } from '../core/living-rules.js';

export type { ClaimRequest } from '../core/living-types.js';

/** Filters of `getFacts`, applied before the limit. */
export interface FactQuery {
  /** Only facts from turns <= maxTurnId. */
  maxTurnId?: number;
  /** Only facts of exactly this turn. */
  turnId?: number;
  /** Only facts whose entities hold this name (case-insensitive, exact). */
  entity?: string;
  limit?: number;
}

/** Filters of `getBeliefs`, applied before the limit. */
export interface BeliefQuery {
  /** Only beliefs created at turns <= maxTurnId. */
  maxTurnId?: number;
  /** Only beliefs about this subject (case-insensitive); "" keeps the world's beliefs. */
  subject?: string;
  /** Only beliefs citing one of these facts. */
  factIds?: readonly number[];
  /** Include beliefs a DELETE removed (default false). */
  includeDeleted?: boolean;
  limit?: number;
}

/** Filters of `getModels`, applied before the limit. */
export interface ModelQuery {
  /** Only models created at turns <= maxTurnId. */
  maxTurnId?: number;
  /** Only the model of this subject (case-insensitive); "" keeps the world's model. */
  subject?: string;
  limit?: number;
}

/** Job counts of a save (or of the whole store). */
export type JobCounts = Record<JobStatus, number>;

/**
 * Living memory's persistence. Every method is one transaction. Ids are integers, unique across saves.
 * Rewinds and forks do not go through here: `Store.rewind` and `Store.fork` move this layer inside their own
 * transaction (see `src/living/store/rewind-living.ts` and `fork-living.ts`).
 */
export interface LivingStore {
  /**
   * Stores a turn's facts; blank statements are skipped. Sets `factId` and `turnId` on each object actually stored
   * and returns the new ids. Idempotency is the caller's: re-extracting a turn goes through `replaceTurnFacts`.
   */
  insertFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]>;
  /**
   * Re-extracts a turn: its old facts go and the new ones are stored (ids set on the objects), in one transaction.
   * When the turn had facts, what they led to is undone: a belief nothing later changed goes back to its state
   * before the turn (deleted if the turn created it), a belief later turns also changed only loses the sources
   * citing the old facts; both are flagged stale. Models last refreshed at the turn go back likewise.
   */
  replaceTurnFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]>;
  /** A save's facts, most recent first (turn descending, then id descending). */
  getFacts(saveId: string, query?: FactQuery): Promise<Fact[]>;
  countFacts(saveId: string): Promise<number>;
  /** The facts' count and largest id: changes whenever the save's facts do (see `FactsVersion`). */
  factsVersion(saveId: string): Promise<FactsVersion>;

  /** Stores one new belief; returns its id, or null for a blank statement. proofCount follows the sources. */
  insertBelief(saveId: string, belief: BeliefInput): Promise<number | null>;
  /** A save's beliefs, most recently updated first (then id descending). Deleted ones only when asked. */
  getBeliefs(saveId: string, query?: BeliefQuery): Promise<Belief[]>;
  /** Number of standing (not deleted) beliefs. */
  countBeliefs(saveId: string): Promise<number>;
  /**
   * Applies consolidator actions at `turnId` in one transaction. `factTurnMap` gives the turn of each cited fact
   * (unknown ids are not attached). Unknown or deleted belief ids and empty statements are skipped.
   */
  applyConsolidation(saveId: string, turnId: number, actions: readonly ConsolidationAction[], factTurnMap: ReadonlyMap<number, number>): Promise<ConsolidationCounts>;

  /**
   * Creates or refreshes the model of `subject` (one per save and subject, case-insensitive); the creation turn is
   * kept. Blank summaries are skipped (null).
   */
  upsertModel(saveId: string, subject: string, summary: string, turnId: number, sources?: readonly number[]): Promise<number | null>;
  /** A save's models, most recently updated first. */
  getModels(saveId: string, query?: ModelQuery): Promise<MentalModel[]>;
  countModels(saveId: string): Promise<number>;
  /** Subjects whose model is flagged stale, oldest update first, at most `limit` (default 5). */
  staleSubjects(saveId: string, options?: { maxTurnId?: number; limit?: number }): Promise<string[]>;

  /**
   * Queues a turn's work. A turn has one job: queuing it again restarts it from extraction with the new payload
   * and a new generation, so work still running on the old request cannot commit.
   */
  enqueueTurn(saveId: string, turnId: number, payload: JobPayload, now: number): Promise<LivingJob>;
  /**
   * Claims the next job: per save, the lowest turn not done or failed, if it is pending (and due) or its claim is
   * abandoned; the oldest queued such job across saves. Null when there is nothing to do.
   */
  claimJob(request: ClaimRequest): Promise<LivingJob | null>;
  /** Extends a claim's lease; false if the claim is no longer held. */
  renewClaim(claim: JobClaim, now: number): Promise<boolean>;
  /**
   * Writes a stage's work and advances the job, in one transaction, if the claim still holds (same job, generation
   * and token, and the job is at that stage). Returns false, writing nothing, otherwise.
   */
  completeStage(claim: JobClaim, commit: StageCommit, now: number): Promise<boolean>;
  /**
   * Records a failed attempt: the job goes back to pending, due at `retryAt`, or to failed when `retryAt` is null.
   * Writes nothing else. False if the claim no longer holds.
   */
  failStage(claim: JobClaim, error: string, retryAt: number | null, now: number): Promise<boolean>;
  /** Gives a claim back untouched (the job is pending again, attempts unchanged). */
  releaseClaim(claim: JobClaim, now: number): Promise<boolean>;
  /** Puts failed jobs back in the queue (attempts reset); returns how many. */
  retryFailed(saveId: string | undefined, now: number): Promise<number>;
  /** A save's jobs (or every job), in turn order. */
  listJobs(query?: { saveId?: string; status?: JobStatus; limit?: number }): Promise<LivingJob[]>;
  /** Job counts by status. */
  countJobs(saveId?: string): Promise<JobCounts>;
  /** Every living row of a save (deleted beliefs, model versions and jobs included), in stored order: for an export. */
  readSave(saveId: string): Promise<LivingSaveLayer>;
}
