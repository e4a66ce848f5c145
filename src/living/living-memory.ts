// Living memory (the seed's living mode): turns queued after they are played, distilled in the background into
// facts, beliefs and mental models, read back with trends. Exposed as `memory.living`.
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { MnemoError } from '../core/errors.js';
import type { Belief, Fact, JobPayload, LivingJob, MentalModel, Trend } from '../core/living-types.js';
import { silentLogger } from '../core/logger.js';
import type { Logger } from '../core/logger.js';
import { optionalCount, optionalTurnId, requireSaveId, requireText, requireTurnId } from '../core/validate.js';
import type { LLM } from '../seams/llm.js';
import type { BeliefQuery, FactQuery, JobCounts, ModelQuery } from '../seams/living-store.js';
import type { Store } from '../seams/store.js';
import { beliefTrend } from './compute-trend.js';
import type { TrendWindows } from './compute-trend.js';
import { LivingWorker } from './living-worker.js';
import type { LivingPipelineOptions } from './living-worker.js';
import { getBeliefMissions, getUniverseMission, setBeliefMissions, setUniverseMission } from './missions.js';
import type { BeliefMissions } from './missions.js';

/** A turn to distil. */
export interface RecordTurnInput {
  saveId: string;
  turnId: number;
  /** The narrative to read. When absent, the turn's stored chunks (all but lore) are read when the job runs. */
  text?: string;
  /** Names the extractor should reuse as written (characters on scene, the location). */
  knownEntities?: readonly string[];
  /** When the scene happens, in the world's own terms. */
  whenHint?: string;
}

/** How living memory is set up. */
export interface LivingMemoryOptions extends LivingPipelineOptions {
  store: Store;
  /** The model for extraction, consolidation and reflection; without one, turns are queued for a worker elsewhere. */
  llm?: LLM | null;
  logger?: Logger;
  clock?: Clock;
  /** Start the background worker at once (default true when an LLM is given). */
  autoStart?: boolean;
  /** The windows of belief trends (default 15 and 45 turns). */
  trendWindows?: TrendWindows;
}

/** A belief with its trend at the turn it was read for. */
export interface BeliefView extends Belief {
  trend: Trend;
}

/** What living memory holds for one save. */
export interface LivingStatus {
  saveId: string;
  facts: number;
  beliefs: number;
  models: number;
  jobs: JobCounts;
  /** The latest turn known for the save (chunks, facts or jobs), or null. */
  latestTurnId: number | null;
}

function optionalNames(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string')) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected an array of names (strings), got ${Array.isArray(value) ? 'an array holding other values' : typeof value}. Pass e.g. ["Kaël", "Rowan"].`, { details: { field } });
  }
  return value as string[];
}

/**
 * Living memory over a store: `recordTurn` queues a turn durably and returns at once; a background worker (when an
 * LLM is configured) extracts facts, consolidates beliefs and refreshes mental models, off the turn loop. Model
 * failures never reach the caller: that pass yields nothing and is retried. Rewinds and forks go through the
 * Mnemo facade, which rolls every layer back in one transaction.
 *
 * @example
 * ```ts
 * const memory = await openMemory({ path: 'game.db', llm: openAiCompatibleLlm({ baseUrl, model }) });
 * await memory.add({ saveId: 'run-1', turnId: 12, text: 'Kaël steals Rowan\'s purse.' });
 * await memory.living.recordTurn({ saveId: 'run-1', turnId: 12, knownEntities: ['Kaël', 'Rowan'] });
 * // later
 * const beliefs = await memory.living.beliefs('run-1', { subject: 'Rowan' }); // [{ statement, trend, ... }]
 * ```
 */
export class LivingMemory {
  readonly store: Store;
  readonly llm: LLM | null;
  /** The background worker, or null without an LLM. */
  readonly worker: LivingWorker | null;
  private readonly clock: Clock;
  private readonly trendWindows: TrendWindows | undefined;

  constructor(options: LivingMemoryOptions) {
    this.store = options.store;
    this.llm = options.llm ?? null;
    this.clock = options.clock ?? systemClock;
    this.trendWindows = options.trendWindows;
    this.worker = this.llm === null ? null : new LivingWorker({ ...options, llm: this.llm, logger: options.logger ?? silentLogger, clock: this.clock });
    if (this.worker !== null && options.autoStart !== false) this.worker.start();
  }

  /**
   * Queues a turn for distillation and returns as soon as the job is stored (no model call happens here). Queuing
   * a turn again restarts its work: its facts are replaced when the new extraction commits.
   */
  async recordTurn(input: RecordTurnInput): Promise<LivingJob> {
    const saveId = requireSaveId(input?.saveId);
    const turnId = requireTurnId(input.turnId);
    const payload: JobPayload = {};
    if (input.text !== undefined) payload.text = requireText(input.text);
    const knownEntities = optionalNames(input.knownEntities, 'knownEntities');
    if (knownEntities !== undefined) payload.knownEntities = knownEntities;
    if (input.whenHint !== undefined) {
      if (typeof input.whenHint !== 'string') throw new MnemoError('INVALID_INPUT', `whenHint: expected a string such as "dawn of the third day", got ${typeof input.whenHint}.`, { details: { field: 'whenHint' } });
      payload.whenHint = input.whenHint;
    }
    const job = await this.store.living.enqueueTurn(saveId, turnId, payload, this.clock());
    this.worker?.cancelTurn(saveId, turnId);
    this.worker?.wake();
    return job;
  }

  /** Starts the background worker (needs an LLM). */
  start(): void {
    this.requireWorker().start();
  }

  /** Stops the background worker, giving an in-flight job back to the queue. */
  async stop(): Promise<void> {
    await this.worker?.stop();
  }

  /** Processes every job that is due now, then returns how many jobs it worked on (needs an LLM). */
  async runPending(): Promise<number> {
    return this.requireWorker().runUntilIdle();
  }

  /** Resolves when the background worker next finds nothing due (needs an LLM). */
  async idle(): Promise<void> {
    return this.requireWorker().idle();
  }

  /** Puts failed jobs back in the queue; returns how many. */
  async retryFailed(saveId?: string): Promise<number> {
    const count = await this.store.living.retryFailed(saveId === undefined ? undefined : requireSaveId(saveId), this.clock());
    this.worker?.wake();
    return count;
  }

  /** Told by the rewind owner (`src/saves/rewind-save.ts`) after its transaction committed: stops work on turns that no longer exist. */
  afterRewind(saveId: string, turnId: number): void {
    this.worker?.cancelAfter(saveId, turnId);
  }

  /** Told by the fork owner (`src/saves/fork-save.ts`) after its transaction committed: wakes the worker for the copied jobs. */
  afterFork(_newSaveId: string): void {
    this.worker?.wake();
  }

  /** Told by the import owner (`src/saves/import-save.ts`) after its transaction committed: wakes the worker for the imported jobs. */
  afterImport(_saveId: string): void {
    this.worker?.wake();
  }

  /** Told by the delete owner (`src/saves/delete-save.ts`) after its transaction committed: stops work on the save. */
  afterDelete(saveId: string): void {
    this.worker?.cancelAfter(saveId, -1);
  }

  private requireWorker(): LivingWorker {
    if (this.worker === null) {
      throw new MnemoError('UNSUPPORTED', 'Living memory has no LLM, so it cannot run its pipeline. Pass `llm` to openMemory(), or run `mnemo living run --llm-base-url ... --llm-model ...`.');
    }
    return this.worker;
  }

  /** A save's facts, most recent first. */
  async facts(saveId: string, query: FactQuery = {}): Promise<Fact[]> {
    requireSaveId(saveId);
    return this.store.living.getFacts(saveId, { ...query, maxTurnId: optionalTurnId(query.maxTurnId, 'maxTurnId'), limit: optionalCount(query.limit, 'limit') });
  }

  /**
   * Stores facts you distilled yourself (your own extractor, or a dataset's observations) at one turn, beside
   * what the pipeline extracts: they roll back with the turn on rewind, are copied by a fork and are searched by the
   * facts arm of `query`. Each statement is checked like a chunk's text (non-empty, at most LIMITS.textChars);
   * nothing is written when one fails. Returns the new fact ids.
   *
   * @example
   * ```ts
   * await memory.living.addFacts('run-1', 3, ['Kaël owns a silver key.']);
   * ```
   */
  async addFacts(saveId: string, turnId: number, statements: readonly string[]): Promise<number[]> {
    requireSaveId(saveId);
    requireTurnId(turnId);
    if (!Array.isArray(statements)) {
      throw new MnemoError('INVALID_INPUT', `statements: expected an array of strings, got ${typeof statements}. Pass e.g. ["Kaël owns a silver key."].`, { details: { field: 'statements' } });
    }
    const facts = statements.map((statement, order) => ({ statement: requireText(statement, `statements[${order}]`) }));
    return facts.length === 0 ? [] : this.store.living.insertFacts(saveId, turnId, facts);
  }

  /** Number of facts of a save. */
  countFacts(saveId: string): Promise<number> {
    return this.store.living.countFacts(requireSaveId(saveId));
  }

  /**
   * A save's beliefs, most recently updated first, each with its trend read at `nowTurn` (default: `maxTurnId`,
   * else the latest turn living memory knows for the save, see latestTurn).
   */
  async beliefs(saveId: string, query: BeliefQuery & { nowTurn?: number } = {}): Promise<BeliefView[]> {
    requireSaveId(saveId);
    const maxTurnId = optionalTurnId(query.maxTurnId, 'maxTurnId');
    const beliefs = await this.store.living.getBeliefs(saveId, { ...query, maxTurnId, limit: optionalCount(query.limit, 'limit') });
    const nowTurn = optionalTurnId(query.nowTurn, 'nowTurn') ?? maxTurnId ?? (await this.latestTurn(saveId));
    return beliefs.map((belief) => ({ ...belief, trend: beliefTrend(belief, nowTurn, this.trendWindows) }));
  }

  /** A save's mental models, most recently updated first. */
  async models(saveId: string, query: ModelQuery = {}): Promise<MentalModel[]> {
    requireSaveId(saveId);
    return this.store.living.getModels(saveId, { ...query, maxTurnId: optionalTurnId(query.maxTurnId, 'maxTurnId'), limit: optionalCount(query.limit, 'limit') });
  }

  /** The world-wide default mission ("" when unset). */
  getMission(): Promise<string> {
    return getUniverseMission(this.store);
  }

  /** Sets the world-wide default mission. */
  setMission(mission: string): Promise<void> {
    return setUniverseMission(this.store, mission);
  }

  /** The per-character missions. */
  getMissions(): Promise<BeliefMissions> {
    return getBeliefMissions(this.store);
  }

  /** Replaces the per-character missions. */
  setMissions(missions: BeliefMissions): Promise<void> {
    return setBeliefMissions(this.store, missions);
  }

  /**
   * The latest turn living memory knows for a save: its latest fact or queued job (and, when `chunksMaxTurn` is
   * given, its chunks); null when it holds none.
   */
  async latestTurn(saveId: string, chunksMaxTurn: number | null = null): Promise<number | null> {
    const [fact] = await this.store.living.getFacts(saveId, { limit: 1 });
    const jobs = await this.store.living.listJobs({ saveId });
    const turns = [chunksMaxTurn, fact?.turnId ?? null, jobs[jobs.length - 1]?.turnId ?? null].filter((turn): turn is number => turn !== null);
    return turns.length === 0 ? null : Math.max(...turns);
  }

  /** Jobs per status (pending, running, done, failed) of one save, or of every save. */
  countJobs(saveId?: string): Promise<JobCounts> {
    return this.store.living.countJobs(saveId === undefined ? undefined : requireSaveId(saveId));
  }

  /** Counts per save (one save, or every save with chunks or living jobs). */
  async status(saveId?: string): Promise<LivingStatus[]> {
    const saves = await this.store.listSaves();
    const saveIds = saveId !== undefined
      ? [requireSaveId(saveId)]
      : [...new Set([...saves.map((save) => save.saveId), ...(await this.store.living.listJobs()).map((job) => job.saveId)])].sort();
    const statuses: LivingStatus[] = [];
    for (const id of saveIds) {
      statuses.push({
        saveId: id,
        facts: await this.store.living.countFacts(id),
        beliefs: await this.store.living.countBeliefs(id),
        models: await this.store.living.countModels(id),
        jobs: await this.store.living.countJobs(id),
        latestTurnId: await this.latestTurn(id, saves.find((save) => save.saveId === id)?.maxTurnId ?? null),
      });
    }
    return statuses;
  }
}
