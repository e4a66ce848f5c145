// The living tables' rows as both SQL adapters store them (SQLite's and PostgreSQL's schemas are the same): row
// shapes, and the decoding of a row into living memory's records. Integers may arrive as strings (PostgreSQL BIGINT).
import type { BeliefRecord, StoredSource } from '../../core/living-rules.js';
import type { Fact, JobPayload, JobStatus, LivingJob, MentalModel } from '../../core/living-types.js';
import type { JobFields, StoredModelVersion } from '../../seams/living-rows.js';

type Integer = string | number;

export interface FactRow {
  fact_id: Integer;
  turn_id: Integer;
  statement: string;
  fact_type: string;
  who: string;
  what: string;
  when_text: string;
  where_text: string;
  why: string;
  entities: string;
}

export interface BeliefRow {
  belief_id: Integer;
  statement: string;
  subject: string;
  sources: string;
  history: string;
  created_turn_id: Integer;
  updated_turn_id: Integer;
  deleted_turn_id: Integer | null;
  stale: Integer;
}

export interface ModelRow {
  model_id: Integer;
  subject: string;
  summary: string;
  sources: string;
  created_turn_id: Integer;
  updated_turn_id: Integer;
  stale: Integer;
}

export interface VersionRow {
  model_id: Integer;
  turn_id: Integer;
  summary: string;
  sources: string;
}

export interface JobRow {
  job_id: Integer;
  save_id: string;
  turn_id: Integer;
  stage: LivingJob['stage'];
  status: JobStatus;
  generation: Integer;
  attempts: Integer;
  payload: string;
  subjects: string;
  claimed_by: string | null;
  claim_token: string | null;
  claimed_at: Integer | null;
  not_before: Integer;
  last_error: string | null;
  created_at: Integer;
  updated_at: Integer;
}

/** The columns of a belief row, in the order the adapters select them. */
export const BELIEF_COLUMNS = 'belief_id, statement, subject, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale';

/** The columns a stored fact is written to, after its save. */
export const FACT_COLUMNS = 'turn_id, statement, fact_type, who, what, when_text, where_text, why, entities, entity_keys';

const optional = (value: Integer | null) => (value === null ? null : Number(value));

export const factFromRow = (row: FactRow): Fact => ({
  factId: Number(row.fact_id),
  turnId: Number(row.turn_id),
  statement: row.statement,
  factType: row.fact_type,
  who: row.who,
  what: row.what,
  when: row.when_text,
  where: row.where_text,
  why: row.why,
  entities: JSON.parse(row.entities) as string[],
});

export const beliefFromRow = (row: BeliefRow): BeliefRecord => ({
  beliefId: Number(row.belief_id),
  statement: row.statement,
  subject: row.subject,
  sources: JSON.parse(row.sources) as StoredSource[],
  history: JSON.parse(row.history) as BeliefRecord['history'],
  createdTurnId: Number(row.created_turn_id),
  updatedTurnId: Number(row.updated_turn_id),
  stale: Number(row.stale) === 1,
  deletedTurnId: optional(row.deleted_turn_id),
});

export const modelFromRow = (row: ModelRow): MentalModel => ({
  modelId: Number(row.model_id),
  subject: row.subject,
  summary: row.summary,
  sources: JSON.parse(row.sources) as number[],
  createdTurnId: Number(row.created_turn_id),
  updatedTurnId: Number(row.updated_turn_id),
  stale: Number(row.stale) === 1,
});

export const versionFromRow = (row: VersionRow): StoredModelVersion => ({
  modelId: Number(row.model_id),
  turnId: Number(row.turn_id),
  summary: row.summary,
  sources: JSON.parse(row.sources) as number[],
});

export const jobFromRow = (row: JobRow): LivingJob => ({
  jobId: Number(row.job_id),
  saveId: row.save_id,
  turnId: Number(row.turn_id),
  stage: row.stage,
  status: row.status,
  generation: Number(row.generation),
  attempts: Number(row.attempts),
  payload: JSON.parse(row.payload) as JobPayload,
  subjects: JSON.parse(row.subjects) as string[],
  claimedBy: row.claimed_by,
  claimToken: row.claim_token,
  claimedAt: optional(row.claimed_at),
  notBefore: Number(row.not_before),
  lastError: row.last_error,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

/** Each job field's column, and the value stored for it. */
const JOB_COLUMNS: { [K in keyof JobFields]-?: [column: string, encode: (value: JobFields[K]) => unknown] } = {
  stage: ['stage', (value) => value],
  status: ['status', (value) => value],
  generation: ['generation', (value) => value],
  attempts: ['attempts', (value) => value],
  payload: ['payload', (value) => JSON.stringify(value)],
  subjects: ['subjects', (value) => JSON.stringify(value)],
  claimedBy: ['claimed_by', (value) => value],
  claimToken: ['claim_token', (value) => value],
  claimedAt: ['claimed_at', (value) => value],
  notBefore: ['not_before', (value) => value],
  lastError: ['last_error', (value) => value],
  createdAt: ['created_at', (value) => value],
  updatedAt: ['updated_at', (value) => value],
};

/**
 * The columns and stored values of the job fields given, in a fixed order (so equal field sets give equal SQL).
 *
 * @example
 * ```ts
 * jobColumns({ status: 'pending', subjects: [] }); // [['status', 'pending'], ['subjects', '[]']]
 * ```
 */
export function jobColumns(fields: Partial<JobFields>): [column: string, value: unknown][] {
  return (Object.keys(JOB_COLUMNS) as (keyof JobFields)[]).flatMap((field) => {
    const value = fields[field];
    if (value === undefined) return [];
    const [column, encode] = JOB_COLUMNS[field] as [string, (value: unknown) => unknown];
    return [[column, encode(value)]];
  });
}
