// The background worker of living memory: claims queued turns from the store and runs extraction, consolidation and
// reflection for each, committing every stage atomically with the job's progress. Off the turn loop; never throws.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { isMnemoError } from '../core/errors.js';
import type { MnemoError } from '../core/errors.js';
import { NEXT_STAGE } from '../core/job-rules.js';
import { distinctNames, nameKey } from '../core/living-rules.js';
import type { Belief, Fact, JobClaim, JobStage, LivingJob, StageCommit } from '../core/living-types.js';
import { silentLogger } from '../core/logger.js';
import type { Logger } from '../core/logger.js';
import type { LLM } from '../seams/llm.js';
import type { Store } from '../seams/store.js';
import { batchCharacters, runConsolidation } from './consolidate.js';
import { runFactExtraction } from './extract-facts.js';
import { getBeliefMissions, getUniverseMission, missionFor } from './missions.js';
import { affectedSubjects, runReflection } from './reflect.js';
import type { StageOutcome } from './stage-outcome.js';

/** Something the worker did, for logs, progress bars and tests. */
export type LivingEvent =
  | { type: 'committed'; saveId: string; turnId: number; stage: StageCommit['stage']; summary: string }
  | { type: 'superseded'; saveId: string; turnId: number; stage: StageCommit['stage'] }
  | { type: 'failed'; saveId: string; turnId: number; stage: StageCommit['stage']; error: MnemoError; retryAt: number | null };

/** Settings of the pipeline (all optional). */
export interface LivingPipelineOptions {
  /** Most facts extracted from one turn (default 8). */
  maxFacts?: number;
  /** Most existing beliefs shown to the consolidator (default 24). */
  maxExisting?: number;
  /** Fewest beliefs a subject needs for a mental model (default 2). */
  minBeliefs?: number;
  /** Most stale models refreshed in one reflection pass (default 5). */
  staleLimit?: number;
  /** Attempts of a stage before its job is marked failed (default 3). */
  maxAttempts?: number;
  /** Wait before the second attempt, doubled at each further one, in ms (default 5,000). */
  retryBaseMs?: number;
  /** A claim not renewed for this long is taken over by another worker (default 60,000 ms; renewed every third). */
  leaseMs?: number;
  /** How often an idle worker looks for work queued by other processes, in ms (default 1,000). */
  pollMs?: number;
  /** Deadline of one model call, in ms (default: the LLM adapter's own). */
  timeoutMs?: number;
  /** Only work on this save. */
  saveId?: string;
  /** Called after every stage. */
  onEvent?: (event: LivingEvent) => void;
}

/** What the worker is built from. */
export interface LivingWorkerOptions extends LivingPipelineOptions {
  store: Store;
  llm: LLM;
  logger?: Logger;
  clock?: Clock;
}

interface Current {
  job: LivingJob;
  controller: AbortController;
  reason: 'stop' | 'moot' | null;
}

const HOST = hostname();

/** True when `workerId` names a process on this machine that no longer exists. */
function isDeadLocalWorker(workerId: string): boolean {
  const [host, pid] = workerId.split(':');
  const processId = Number(pid);
  if (host !== HOST || !Number.isSafeInteger(processId) || processId === process.pid) return false;
  try {
    process.kill(processId, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Runs queued turns through extraction, consolidation and reflection. Jobs are claimed from the store, so work
 * survives restarts and several processes can share a queue (per save, turns run one at a time, in order).
 * A stage's writes and the job's advance commit together; a claim that went stale (the turn was queued again, or
 * rewound away) commits nothing. Model failures are retried with backoff, then the job is marked failed.
 *
 * @example
 * ```ts
 * const worker = new LivingWorker({ store, llm });
 * worker.start();                  // runs in the background until stop()
 * await worker.runUntilIdle();     // or: drain what is due now, and return
 * ```
 */
export class LivingWorker {
  readonly workerId = `${HOST}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly store: Store;
  private readonly llm: LLM;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly options: Required<Omit<LivingPipelineOptions, 'saveId' | 'onEvent' | 'timeoutMs'>> & Pick<LivingPipelineOptions, 'saveId' | 'onEvent' | 'timeoutMs'>;
  private running = false;
  private loopDone: Promise<void> | null = null;
  private current: Current | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private idleWaiters: (() => void)[] = [];

  constructor(options: LivingWorkerOptions) {
    this.store = options.store;
    this.llm = options.llm;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.options = {
      maxFacts: options.maxFacts ?? 8,
      maxExisting: options.maxExisting ?? 24,
      minBeliefs: options.minBeliefs ?? 2,
      staleLimit: options.staleLimit ?? 5,
      maxAttempts: Math.max(1, options.maxAttempts ?? 3),
      retryBaseMs: options.retryBaseMs ?? 5_000,
      leaseMs: options.leaseMs ?? 60_000,
      pollMs: options.pollMs ?? 1_000,
      timeoutMs: options.timeoutMs,
      saveId: options.saveId,
      onEvent: options.onEvent,
    };
  }

  /** True while the background loop runs. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Starts the background loop (no-op if it runs). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Stops the loop: an in-flight model call is cancelled and its job given back untouched. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.current !== null) {
      this.current.reason = 'stop';
      this.current.controller.abort();
    }
    this.wake();
    await this.loopDone;
    this.loopDone = null;
  }

  /** Tells an idle loop that work was queued. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Cancels the in-flight job if it is of `saveId` and a turn after `turnId` (a rewind made it moot). */
  cancelAfter(saveId: string, turnId: number): void {
    const current = this.current;
    if (current !== null && current.job.saveId === saveId && current.job.turnId > turnId) {
      current.reason = 'moot';
      current.controller.abort();
    }
  }

  /** Cancels the in-flight job if it is this very turn (it was queued again, so its work is moot). */
  cancelTurn(saveId: string, turnId: number): void {
    const current = this.current;
    if (current !== null && current.job.saveId === saveId && current.job.turnId === turnId) {
      current.reason = 'moot';
      current.controller.abort();
    }
  }

  /**
   * Resolves once the queue holds nothing pending or running (for tests and shutdown paths): a job whose stage
   * failed and waits for its retry time is waited for too, until it is done or has failed for good. When the loop
   * is not running, drains the queue itself (running each job when it is due).
   */
  async idle(): Promise<void> {
    if (!this.running) {
      for (;;) {
        await this.runUntilIdle();
        if (await this.settled()) return;
        await new Promise((resolve) => setTimeout(resolve, this.options.pollMs));
      }
    }
    await new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
      this.wake();
    });
  }

  /** True when no job of the worker's saves is pending (due now or waiting for a retry) or running. */
  private async settled(): Promise<boolean> {
    const counts = await this.store.living.countJobs(this.options.saveId);
    return counts.pending + counts.running === 0;
  }

  /**
   * Processes jobs until none can be claimed now (jobs waiting for a retry time are left), and returns how many
   * jobs it worked on. Usable without start(), e.g. by `mnemo living run`.
   */
  async runUntilIdle(): Promise<number> {
    let jobs = 0;
    while (await this.step()) jobs++;
    return jobs;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.step();
      } catch (error) {
        if (!this.running) break;
        if (isMnemoError(error, 'STORE_CLOSED')) {
          this.running = false;
          this.notifyIdle();
          break;
        }
        this.logger.warn(`living worker: ${(error as Error).message}; retrying in ${this.options.pollMs} ms`);
      }
      if (!worked && this.running) await this.pause();
    }
  }

  private pause(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, this.options.pollMs);
      timer.unref?.();
      this.wakeUp = done;
    });
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private async deadClaimants(): Promise<string[]> {
    const running = await this.store.living.listJobs({ status: 'running', saveId: this.options.saveId });
    return distinctNames(running.flatMap((job) => (job.claimedBy !== null && isDeadLocalWorker(job.claimedBy) ? [job.claimedBy] : [])));
  }

  /** Claims one job and runs its remaining stages. False when there was nothing to claim. */
  private async step(): Promise<boolean> {
    const job = await this.store.living.claimJob({
      workerId: this.workerId,
      now: this.clock(),
      leaseMs: this.options.leaseMs,
      saveId: this.options.saveId,
      deadWorkers: await this.deadClaimants(),
    });
    if (job === null) {
      if (this.idleWaiters.length > 0 && (await this.settled())) this.notifyIdle();
      return false;
    }
    const claim: JobClaim = { saveId: job.saveId, jobId: job.jobId, generation: job.generation, claimToken: job.claimToken as string };
    const current: Current = { job, controller: new AbortController(), reason: null };
    this.current = current;
    const heartbeat = setInterval(() => {
      this.store.living.renewClaim(claim, this.clock()).catch(() => {});
    }, Math.max(10, Math.floor(this.options.leaseMs / 3)));
    heartbeat.unref?.();
    try {
      await this.runJob(job, claim, current);
    } finally {
      clearInterval(heartbeat);
      this.current = null;
    }
    return true;
  }

  private async runJob(job: LivingJob, claim: JobClaim, current: Current): Promise<void> {
    let stage: JobStage = job.stage;
    let subjects = job.subjects;
    let attempts = job.attempts;
    while (stage !== 'done') {
      const outcome = await this.runStage(job, stage, subjects, current.controller.signal);
      if (!outcome.ok) {
        if (current.reason === 'stop') {
          await this.store.living.releaseClaim(claim, this.clock());
          return;
        }
        attempts++;
        const retryAt = attempts >= this.options.maxAttempts ? null : this.clock() + this.options.retryBaseMs * 2 ** (attempts - 1);
        const recorded = await this.store.living.failStage(claim, `${outcome.error.code}: ${outcome.error.message}`, retryAt, this.clock());
        if (recorded) {
          this.logger.warn(`living: turn ${job.turnId} of ${job.saveId}, ${stage} failed (${outcome.error.code}: ${outcome.error.message}); ${retryAt === null ? `gave up after ${attempts} attempts` : `will retry at ${new Date(retryAt).toISOString()}`}`);
          this.emit({ type: 'failed', saveId: job.saveId, turnId: job.turnId, stage, error: outcome.error, retryAt });
        } else {
          this.emit({ type: 'superseded', saveId: job.saveId, turnId: job.turnId, stage });
        }
        return;
      }
      const commit = outcome.value;
      if (!(await this.store.living.completeStage(claim, commit, this.clock()))) {
        this.emit({ type: 'superseded', saveId: job.saveId, turnId: job.turnId, stage: commit.stage });
        return;
      }
      this.emit({ type: 'committed', saveId: job.saveId, turnId: job.turnId, stage: commit.stage, summary: describeCommit(commit) });
      if (commit.stage === 'consolidate') subjects = commit.subjects;
      stage = NEXT_STAGE[commit.stage];
      attempts = 0;
    }
  }

  private emit(event: LivingEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch (error) {
      this.logger.warn(`living: an onEvent listener threw: ${(error as Error).message}`);
    }
  }

  private async runStage(job: LivingJob, stage: Exclude<JobStage, 'done'>, subjects: string[], signal: AbortSignal): Promise<StageOutcome<StageCommit>> {
    switch (stage) {
      case 'extract':
        return this.extract(job, signal);
      case 'consolidate':
        return this.consolidate(job, signal);
      case 'reflect':
        return this.reflect(job, subjects, signal);
    }
  }

  private async narrativeOf(job: LivingJob): Promise<string> {
    if (job.payload.text !== undefined) return job.payload.text;
    const chunks = await this.store.listChunks(job.saveId, { fromTurnId: job.turnId, toTurnId: job.turnId });
    return chunks.filter((chunk) => chunk.chunkType !== 'lore').map((chunk) => chunk.text).join('\n');
  }

  private async extract(job: LivingJob, signal: AbortSignal): Promise<StageOutcome<StageCommit>> {
    const recent = await this.store.living.getFacts(job.saveId, { maxTurnId: job.turnId, limit: 200 });
    const knownEntities = distinctNames([...(job.payload.knownEntities ?? []), ...recent.flatMap((fact) => fact.entities)]).slice(0, 40);
    const outcome = await runFactExtraction(this.llm, await this.narrativeOf(job), {
      knownEntities,
      whenHint: job.payload.whenHint,
      maxFacts: this.options.maxFacts,
      signal,
      timeoutMs: this.options.timeoutMs,
    });
    return outcome.ok ? { ok: true, value: { stage: 'extract', facts: outcome.value } } : outcome;
  }

  /** The beliefs a consolidation may need to see: the batch's characters' and the most recent ones. */
  private async candidateBeliefs(saveId: string, turnId: number, facts: readonly Fact[]): Promise<Belief[]> {
    const limit = this.options.maxExisting > 0 ? this.options.maxExisting : undefined;
    const lists = [await this.store.living.getBeliefs(saveId, { maxTurnId: turnId, limit })];
    for (const character of batchCharacters(facts)) lists.push(await this.store.living.getBeliefs(saveId, { maxTurnId: turnId, subject: character, limit }));
    const byId = new Map<number, Belief>();
    for (const belief of lists.flat()) byId.set(belief.beliefId as number, belief);
    return [...byId.values()];
  }

  private async consolidate(job: LivingJob, signal: AbortSignal): Promise<StageOutcome<StageCommit>> {
    const facts = (await this.store.living.getFacts(job.saveId, { turnId: job.turnId })).reverse();
    if (facts.length === 0) return { ok: true, value: { stage: 'consolidate', actions: [], factTurnMap: new Map(), subjects: [] } };
    const outcome = await runConsolidation(this.llm, facts, await this.candidateBeliefs(job.saveId, job.turnId, facts), {
      mission: await getUniverseMission(this.store),
      missions: await getBeliefMissions(this.store),
      maxExisting: this.options.maxExisting,
      signal,
      timeoutMs: this.options.timeoutMs,
    });
    if (!outcome.ok) return outcome;
    const factTurnMap = new Map(facts.map((fact) => [fact.factId as number, fact.turnId as number]));
    return { ok: true, value: { stage: 'consolidate', actions: outcome.value, factTurnMap, subjects: affectedSubjects(outcome.value) } };
  }

  private async reflect(job: LivingJob, subjects: readonly string[], signal: AbortSignal): Promise<StageOutcome<StageCommit>> {
    const stale = await this.store.living.staleSubjects(job.saveId, { maxTurnId: job.turnId, limit: this.options.staleLimit });
    const universe = await getUniverseMission(this.store);
    const missions = await getBeliefMissions(this.store);
    const models: { subject: string; summary: string; sources: number[] }[] = [];
    const seen = new Set<string>();
    for (const subject of [...subjects, ...stale]) {
      if (seen.has(nameKey(subject))) continue;
      seen.add(nameKey(subject));
      const beliefs = await this.store.living.getBeliefs(job.saveId, { subject, maxTurnId: job.turnId });
      const outcome = await runReflection(this.llm, subject, beliefs, {
        mission: missionFor(missions, subject) ?? universe,
        minBeliefs: this.options.minBeliefs,
        nowTurn: job.turnId,
        signal,
        timeoutMs: this.options.timeoutMs,
      });
      if (!outcome.ok) return outcome;
      if (outcome.value !== '') models.push({ subject, summary: outcome.value, sources: beliefs.map((belief) => belief.beliefId as number) });
    }
    return { ok: true, value: { stage: 'reflect', models } };
  }
}

function describeCommit(commit: StageCommit): string {
  switch (commit.stage) {
    case 'extract':
      return `${commit.facts.length} fact${commit.facts.length === 1 ? '' : 's'}`;
    case 'consolidate':
      return `${commit.actions.length} belief change${commit.actions.length === 1 ? '' : 's'}`;
    case 'reflect':
      return `${commit.models.length} model${commit.models.length === 1 ? '' : 's'}`;
  }
}
