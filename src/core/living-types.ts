// The shapes of living memory: facts, beliefs (observations), mental models, consolidation actions and queued jobs.

/**
 * One atomic fact distilled from a turn's narrative. `statement` is the canonical one-sentence form; the five
 * W fields are its structured decomposition. `factId` and `turnId` are set when it is stored.
 */
export interface Fact {
  factId: number | null;
  turnId: number | null;
  statement: string;
  /** `world` (the default, and what any other value is stored as), `experience` or `opinion`: see docs/living-memory.md. */
  factType: string;
  who: string;
  what: string;
  when: string;
  where: string;
  why: string;
  /** The names it involves (characters, places, objects), as written. */
  entities: string[];
}

/**
 * What a save's facts are now, in two numbers: how many there are and the largest fact id among them. Fact ids
 * are never reused, so any insert raises `lastFactId` and any removal alone lowers `count`: an index of the
 * facts built at one version is exact while the version stays the same.
 */
export interface FactsVersion {
  count: number;
  lastFactId: number;
}

/** A fact as a caller may hand it in: only the statement is required. */
export type FactInput = Partial<Fact> & { statement: string };

/** One fact backing a belief, and the turn it came from (the rollback key). */
export interface BeliefSource {
  factId: number;
  turnId: number;
}

/** What happened to a belief. */
export type BeliefAction = 'CREATE' | 'UPDATE' | 'DELETE';

/** One entry of a belief's history. */
export interface BeliefChange {
  action: BeliefAction;
  /** The turn of the consolidation pass that made the change. */
  turnId: number;
  /** The statement after the change (for DELETE, the statement that was dropped). */
  statement: string;
  /** The subject after the change. */
  subject: string;
  /** The facts this change cited. */
  factIds: number[];
}

/**
 * A consolidated belief: one durable statement about a subject ("" = the world), backed by facts. `proofCount`
 * always equals `sources.length`. A DELETE keeps the row (with `deletedTurnId`) so that a rewind can bring it back.
 */
export interface Belief {
  beliefId: number | null;
  statement: string;
  subject: string;
  proofCount: number;
  sources: BeliefSource[];
  history: BeliefChange[];
  createdTurnId: number;
  updatedTurnId: number;
  /** Set by a rewind that changed it: the next consolidation pass should re-examine it. */
  stale: boolean;
  /** The turn a DELETE removed it at, or null while it stands. */
  deletedTurnId: number | null;
}

/** A belief as a caller may hand it in for `insertBelief`. */
export interface BeliefInput {
  statement: string;
  subject?: string;
  sources?: readonly BeliefSource[];
  history?: readonly BeliefChange[];
  createdTurnId?: number;
  updatedTurnId?: number;
  stale?: boolean;
}

/** One belief change proposed by the consolidator. */
export interface ConsolidationAction {
  kind: BeliefAction;
  statement: string;
  subject: string;
  /** The belief an UPDATE or DELETE targets. */
  beliefId: number | null;
  sourceFactIds: number[];
}

/** What `applyConsolidation` did. */
export interface ConsolidationCounts {
  created: number;
  updated: number;
  deleted: number;
  /** Actions skipped: unknown or deleted belief ids, empty statements, a belief that would rest on no known fact. */
  skipped: number;
}

/** A curated profile of one subject (a character, or "" for the world), regenerated from its beliefs. */
export interface MentalModel {
  modelId: number | null;
  subject: string;
  summary: string;
  /** The belief ids the summary was built from. */
  sources: number[];
  createdTurnId: number;
  updatedTurnId: number;
  /** Set by a rewind: the next refresh regenerates it; the summary meanwhile is the one current at the rewind turn. */
  stale: boolean;
}

/** The trend of a belief, read from the turns of its sources. */
export type Trend = 'NEW' | 'STRENGTHENING' | 'WEAKENING' | 'STALE' | 'STABLE';

/** The stages of a turn's background work, in order. */
export type JobStage = 'extract' | 'consolidate' | 'reflect' | 'done';

/** Where a job stands. */
export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

/** What a turn's job was given when it was queued. */
export interface JobPayload {
  /** The narrative to read; when absent, the turn's stored chunks (all but lore) are read at run time. */
  text?: string;
  /** Names the extractor should reuse as written. */
  knownEntities?: string[];
  /** When the scene happens, in the world's own terms ("dawn of the third day"). */
  whenHint?: string;
}

/** One turn's background work, queued durably in the store (one job per save and turn). */
export interface LivingJob {
  jobId: number;
  saveId: string;
  turnId: number;
  stage: JobStage;
  status: JobStatus;
  /** Bumped each time the turn is queued again, so that work on an older request cannot commit. */
  generation: number;
  /** Failed attempts of the current stage. */
  attempts: number;
  payload: JobPayload;
  /** The subjects whose beliefs the consolidation changed (read by the reflection). */
  subjects: string[];
  claimedBy: string | null;
  claimToken: string | null;
  claimedAt: number | null;
  /** Not to be tried again before this time (ms since epoch), after a failure. */
  notBefore: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Proof that a worker holds a job: a commit with a stale claim writes nothing. */
export interface JobClaim {
  /** The save of the job (a store sharded by save finds the job on that save's shard). */
  saveId: string;
  jobId: number;
  generation: number;
  claimToken: string;
}

/** How a worker asks for work. */
export interface ClaimRequest {
  /** Who is asking, e.g. `host:pid:random`. */
  workerId: string;
  /** The time now (ms since epoch). */
  now: number;
  /** A claim older than this is considered abandoned and may be taken over. */
  leaseMs: number;
  /** Only jobs of this save. */
  saveId?: string;
  /** Claims held by these workers may be taken over at once (they are known to be dead). */
  deadWorkers?: readonly string[];
}

/** The work of one stage, committed atomically with the job's advance to its next stage. */
export type StageCommit =
  | { stage: 'extract'; facts: FactInput[] }
  | { stage: 'consolidate'; actions: ConsolidationAction[]; factTurnMap: ReadonlyMap<number, number>; subjects: string[] }
  | { stage: 'reflect'; models: { subject: string; summary: string; sources: number[] }[] };

/** What the living layer lost in a rewind. */
export interface LivingRewindCounts {
  facts: number;
  beliefsDeleted: number;
  beliefsUpdated: number;
  modelsDeleted: number;
  modelsUpdated: number;
  jobsCancelled: number;
}

/** What a fork copied of the living layer. */
export interface LivingForkCounts {
  facts: number;
  beliefs: number;
  models: number;
  jobs: number;
}

/** What an import wrote into the living layer. */
export interface LivingImportCounts extends LivingForkCounts {
  modelVersions: number;
}
