// The row-level port of living memory: what a store adapter offers so that the living algorithms (src/living/store/)
// run once, over any backend. Each method is one statement, or one batch of rows, of the caller's transaction.
import type { BeliefRecord, ModelVersion, StoredModelVersion } from '../core/living-rules.js';
import type { Fact, FactsVersion, LivingJob, MentalModel } from '../core/living-types.js';
import type { RowProgram } from '../core/row-program.js';
import type { BeliefQuery, FactQuery, JobCounts, ModelQuery } from './living-store.js';

export type { LivingSaveLayer, StoredModelVersion } from '../core/living-rules.js';

/** A job's fields apart from its identity (id, save, turn). */
export type JobFields = Omit<LivingJob, 'jobId' | 'saveId' | 'turnId'>;

/** What (re)queuing a turn sets on its job; the generation and creation time are the port's (see `upsertJob`). */
export type QueuedJobFields = Omit<JobFields, 'generation' | 'createdAt'>;

/** The beliefs a rewind deleted, and those it rolls back (see `takeBeliefsAfter`). */
export interface BeliefsAfter {
  deleted: number;
  changed: BeliefRecord[];
}

/** The models a rewind deleted, those it rolls back, and their latest versions by model id (see `takeModelsAfter`). */
export interface ModelsAfter {
  deleted: number;
  changed: MentalModel[];
  latest: Map<number, ModelVersion>;
}

/** Filters of `selectJobs`. */
export interface JobQuery {
  saveId?: string;
  status?: LivingJob['status'];
  limit?: number;
}

/**
 * Living memory's rows. Reads return fresh objects (the caller may keep them); writes never keep the objects they
 * are given. "Lock" reads also lock what they return for the rest of the transaction where the backend has row
 * locks (PostgreSQL `FOR UPDATE`); elsewhere the write transaction is already exclusive. Ids are integers, unique
 * across saves, and increase in insertion order; a batch insert returns the new ids in the order of its input.
 * Every method names the save its rows belong to (rows of another save are left alone), so a store sharded by save
 * (Citus) runs each statement on one shard. Empty batches are never passed.
 */
export interface LivingRows {
  // ---- facts ----
  /** Stores normalised facts (each with its turn); returns their new ids. */
  insertFacts(saveId: string, facts: readonly Fact[]): number[];
  /** Deletes the facts of one turn; returns their ids. */
  deleteTurnFacts(saveId: string, turnId: number): number[];
  /** Deletes the facts of turns after `turnId` from every read at once (a store may purge the rows later); returns how many. */
  deleteFactsAfter(saveId: string, turnId: number): number;
  /** Copies the facts of turns <= `atTurn` into `newSaveId`; returns [old id, new id] pairs, old ids ascending. */
  copyFacts(saveId: string, newSaveId: string, atTurn: number): [number, number][];
  /** Facts most recent first (turn descending, then id descending), filters applied before the limit. */
  selectFacts(saveId: string, query: FactQuery): Fact[];
  countFacts(saveId: string): number;
  /** The facts' count and largest id (see `FactsVersion`). */
  factsVersion(saveId: string): FactsVersion;

  // ---- beliefs ----
  /** Beliefs most recently updated first (then id descending), filters applied before the limit. */
  selectBeliefs(saveId: string, query: BeliefQuery): BeliefRecord[];
  /** Every belief (deleted ones included) whose `updatedTurnId` is exactly `turnId`. */
  beliefsChangedAt(saveId: string, turnId: number): BeliefRecord[];
  /** The beliefs of the save among `beliefIds`, locked. */
  lockBeliefs(saveId: string, beliefIds: readonly number[]): BeliefRecord[];
  /** Stores new beliefs (their `beliefId` is ignored); returns their new ids. */
  insertBeliefs(saveId: string, records: readonly BeliefRecord[]): number[];
  /** Writes every field of stored beliefs but their save, id and creation turn. */
  updateBeliefs(saveId: string, records: readonly BeliefRecord[]): void;
  deleteBeliefs(saveId: string, beliefIds: readonly number[]): void;
  /** Deletes the beliefs created after `turnId`; returns how many. */
  deleteBeliefsCreatedAfter(saveId: string, turnId: number): number;
  /**
   * What a rewind to `turnId` rolls back, in one step (one statement on PostgreSQL): deletes the beliefs created
   * after the turn, and returns how many with every other belief (deleted ones included) whose `updatedTurnId` is
   * after it, ids ascending.
   */
  takeBeliefsAfter(saveId: string, turnId: number): BeliefsAfter;
  /** Number of standing (not deleted) beliefs. */
  countBeliefs(saveId: string): number;

  // ---- mental models and their versions ----
  /** The model of `subject` (compared with nameKey), locked; null when there is none. */
  lockModel(saveId: string, subject: string): MentalModel | null;
  /** Models most recently updated first (then id descending), filters applied before the limit. */
  selectModels(saveId: string, query: ModelQuery): MentalModel[];
  /** Every model whose `updatedTurnId` is exactly `turnId`. */
  modelsChangedAt(saveId: string, turnId: number): MentalModel[];
  /** Subjects of stale models created by `maxTurnId`, oldest update first (then id), at most `limit`. */
  staleSubjects(saveId: string, maxTurnId: number, limit: number): string[];
  countModels(saveId: string): number;
  /** Stores new models (their `modelId` is ignored); returns their new ids. */
  insertModels(saveId: string, models: readonly MentalModel[]): number[];
  /** Writes the summary, sources, updated turn and stale flag of stored models. */
  updateModels(saveId: string, models: readonly MentalModel[]): void;
  /** Deletes models and every version of them. */
  deleteModels(saveId: string, modelIds: readonly number[]): void;
  /** Deletes the models created after `turnId` (their versions are the caller's); returns how many. */
  deleteModelsCreatedAfter(saveId: string, turnId: number): number;
  /** For each of `modelIds` with one, its latest version at or before `turnId` (turn, then version id). */
  latestVersions(saveId: string, modelIds: readonly number[], turnId: number): Map<number, ModelVersion>;
  /**
   * What a rewind to `turnId` rolls back, in one step (one statement on PostgreSQL): deletes every version after
   * the turn and the models created after it, and returns how many models with every other model whose
   * `updatedTurnId` is after the turn (ids ascending) and, for each of them that has one, its latest version at or
   * before the turn (as `latestVersions`).
   */
  takeModelsAfter(saveId: string, turnId: number): ModelsAfter;
  /** The versions of `modelIds` at or before `turnId`, in the order they were stored. */
  versionsUpTo(saveId: string, modelIds: readonly number[], turnId: number): StoredModelVersion[];
  /** Stores versions, in the order given. */
  insertVersions(saveId: string, versions: readonly StoredModelVersion[]): void;
  /** Deletes the versions of one model at exactly `turnId`. */
  deleteVersionsAt(saveId: string, modelId: number, turnId: number): void;
  /** Deletes the versions of `modelIds` at or after `turnId`. */
  deleteVersionsFrom(saveId: string, modelIds: readonly number[], turnId: number): void;
  /** Deletes every version of the save after `turnId`. */
  deleteVersionsAfter(saveId: string, turnId: number): void;

  // ---- jobs ----
  /** Serialises claims across every process for the rest of the transaction (a no-op where writes already are). */
  lockClaims(): void;
  /** The pending and running jobs of one save, or of every save. */
  openJobs(saveId: string | undefined): LivingJob[];
  /** One job, locked; undefined when there is none. */
  lockJob(saveId: string, jobId: number): LivingJob | undefined;
  /**
   * Queues a turn's job in one atomic step: a new job (generation 1, created now), or the existing job of that
   * save and turn with `fields` written and its generation incremented. Returns the job as stored.
   */
  upsertJob(saveId: string, turnId: number, fields: QueuedJobFields): LivingJob;
  /** Writes the given fields of one job. */
  updateJob(saveId: string, jobId: number, fields: Partial<JobFields>): void;
  /** Writes the given fields of every failed job of one save, or of every save; returns how many. */
  updateFailedJobs(saveId: string | undefined, fields: Partial<JobFields>): number;
  /** Stores copies of jobs into `saveId` (new ids, in the order given). */
  insertJobs(saveId: string, jobs: readonly LivingJob[]): void;
  /** Deletes the jobs of turns after `turnId`; returns how many. */
  deleteJobsAfter(saveId: string, turnId: number): number;
  /** Jobs in save then turn order. */
  selectJobs(query: JobQuery): LivingJob[];
  countJobs(saveId: string | undefined): JobCounts;

  // ---- the whole layer ----
  /** True when the save holds any living data (facts, beliefs, models or jobs). */
  holdsData(saveId: string): boolean;
}

/** A program of living memory over its rows. */
export type LivingProgram<T> = RowProgram<LivingRows, T>;

/**
 * How the one LivingStore implementation (`src/living/store/row-living-store.ts`) reaches an adapter: each write
 * program runs in one transaction; read programs run outside any.
 */
export interface LivingBackend {
  read<T>(program: LivingProgram<T>): Promise<T>;
  write<T>(program: LivingProgram<T>): Promise<T>;
}
