// The SQLite rows of living memory (the LivingRows port): facts, beliefs, mental models and jobs in the store's file.
// Only SQL lives here; the algorithms are src/living/store/, run inside the store's transactions.
import type { Statement } from 'better-sqlite3';
import { nameKey } from '../../core/living-rules.js';
import type { BeliefRecord, ModelVersion } from '../../core/living-rules.js';
import type { Fact, FactsVersion, LivingJob, MentalModel } from '../../core/living-types.js';
import type { BeliefsAfter, JobFields, JobQuery, LivingRows, ModelsAfter, QueuedJobFields, StoredModelVersion } from '../../seams/living-rows.js';
import type { BeliefQuery, FactQuery, JobCounts, ModelQuery } from '../../seams/living-store.js';
import { BELIEF_COLUMNS, FACT_COLUMNS, beliefFromRow, factFromRow, jobColumns, jobFromRow, modelFromRow, versionFromRow } from '../sql/living-columns.js';
import type { BeliefRow, FactRow, JobRow, ModelRow, VersionRow } from '../sql/living-columns.js';
import { hideRowsAfter, REWOUND_FACTS, visibleRow } from './rewound-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

const LIMIT_ALL = -1;
const MAX_TURN = Number.MAX_SAFE_INTEGER;
/** A list of ids as one bound parameter, read back with `json_each` (one statement text whatever the count). */
const idList = (ids: readonly number[]) => JSON.stringify(ids);
const flag = (value: boolean) => (value ? 1 : 0);
/** A fact no pending rewind hides (see rewound-rows.ts): every read of facts applies it. */
const VISIBLE_FACT = visibleRow(REWOUND_FACTS, 'living_facts');

/**
 * Living memory's rows in SQLite. Every method runs inside the caller's transaction (the store's write); a batch is
 * a loop of one prepared statement, which in process costs no round trip.
 *
 * @example
 * ```ts
 * const rows = new SqliteLivingRows(connection);
 * connection.write(() => runRowProgram(rewindLiving('run-1', 12), rows));
 * ```
 */
export class SqliteLivingRows implements LivingRows {
  private readonly cache = new Map<string, Statement>();

  constructor(private readonly connection: SqliteConnection) {}

  /** The prepared statement of `text` (prepared once). */
  private sql(text: string): Statement {
    const database = this.connection.database();
    let statement = this.cache.get(text);
    if (statement === undefined) {
      statement = database.prepare(text);
      this.cache.set(text, statement);
    }
    return statement;
  }

  // ---- facts ----

  insertFacts(saveId: string, facts: readonly Fact[]): number[] {
    const insert = this.sql(`INSERT INTO living_facts (save_id, ${FACT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    return facts.map((fact) => Number(insert.run(
      saveId, fact.turnId, fact.statement, fact.factType, fact.who, fact.what, fact.when, fact.where, fact.why, JSON.stringify(fact.entities), JSON.stringify(fact.entities.map(nameKey)),
    ).lastInsertRowid));
  }

  deleteTurnFacts(saveId: string, turnId: number): number[] {
    return (this.sql(`DELETE FROM living_facts WHERE save_id = ? AND turn_id = ? AND ${VISIBLE_FACT} RETURNING fact_id`).all(saveId, turnId) as { fact_id: number }[]).map((row) => row.fact_id);
  }

  deleteFactsAfter(saveId: string, turnId: number): number {
    // Hidden at once and deleted by the store's background purge: deleting many rows here would hold the write lock.
    return hideRowsAfter(this.connection.database(), REWOUND_FACTS, saveId, turnId);
  }

  copyFacts(saveId: string, newSaveId: string, atTurn: number): [number, number][] {
    const old = this.sql(`SELECT fact_id FROM living_facts WHERE save_id = ? AND turn_id <= ? AND ${VISIBLE_FACT} ORDER BY fact_id`).all(saveId, atTurn) as { fact_id: number }[];
    const copy = this.sql(`INSERT INTO living_facts (save_id, ${FACT_COLUMNS}) SELECT ?, ${FACT_COLUMNS} FROM living_facts WHERE fact_id = ?`);
    return old.map((row) => [row.fact_id, Number(copy.run(newSaveId, row.fact_id).lastInsertRowid)]);
  }

  selectFacts(saveId: string, query: FactQuery): Fact[] {
    const clauses = ['save_id = ?', 'turn_id <= ?', VISIBLE_FACT];
    const parameters: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    if (query.turnId !== undefined) {
      clauses.push('turn_id = ?');
      parameters.push(query.turnId);
    }
    if (query.entity !== undefined) {
      clauses.push('EXISTS (SELECT 1 FROM json_each(living_facts.entity_keys) WHERE json_each.value = ?)');
      parameters.push(nameKey(query.entity));
    }
    const rows = this.sql(`SELECT * FROM living_facts WHERE ${clauses.join(' AND ')} ORDER BY turn_id DESC, fact_id DESC LIMIT ?`)
      .all(...parameters, query.limit ?? LIMIT_ALL) as FactRow[];
    return rows.map(factFromRow);
  }

  countFacts(saveId: string): number {
    return (this.sql(`SELECT COUNT(*) AS n FROM living_facts WHERE save_id = ? AND ${VISIBLE_FACT}`).get(saveId) as { n: number }).n;
  }

  factsVersion(saveId: string): FactsVersion {
    const row = this.sql(`SELECT COUNT(*) AS n, COALESCE(MAX(fact_id), 0) AS last FROM living_facts WHERE save_id = ? AND ${VISIBLE_FACT}`).get(saveId) as { n: number; last: number };
    return { count: row.n, lastFactId: row.last };
  }

  // ---- beliefs ----

  selectBeliefs(saveId: string, query: BeliefQuery): BeliefRecord[] {
    // `+created_turn_id` keeps the planner on the (save, updated) and (save, subject, updated) indexes, which also
    // give the order, instead of scanning every belief of the save through (save, created).
    const clauses = ['save_id = ?', '+created_turn_id <= ?'];
    const parameters: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    if (!query.includeDeleted) clauses.push('deleted_turn_id IS NULL');
    if (query.subject !== undefined) {
      clauses.push('subject_key = ?');
      parameters.push(nameKey(query.subject));
    }
    if (query.factIds !== undefined) {
      if (query.factIds.length === 0) return [];
      clauses.push(`EXISTS (SELECT 1 FROM json_each(living_beliefs.sources) AS source WHERE json_extract(source.value, '$.factId') IN (SELECT value FROM json_each(?)))`);
      parameters.push(idList(query.factIds));
    }
    const rows = this.sql(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE ${clauses.join(' AND ')} ORDER BY updated_turn_id DESC, belief_id DESC LIMIT ?`)
      .all(...parameters, query.limit ?? LIMIT_ALL) as BeliefRow[];
    return rows.map(beliefFromRow);
  }

  beliefsChangedAt(saveId: string, turnId: number): BeliefRecord[] {
    return (this.sql(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE save_id = ? AND updated_turn_id = ?`).all(saveId, turnId) as BeliefRow[]).map(beliefFromRow);
  }

  lockBeliefs(saveId: string, beliefIds: readonly number[]): BeliefRecord[] {
    // `+save_id`: look the ids up by rowid, rather than walk the save's beliefs through a (save, ...) index.
    const rows = this.sql(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE belief_id IN (SELECT value FROM json_each(?)) AND +save_id = ?`).all(idList(beliefIds), saveId) as BeliefRow[];
    return rows.map(beliefFromRow);
  }

  insertBeliefs(saveId: string, records: readonly BeliefRecord[]): number[] {
    const insert = this.sql(`INSERT INTO living_beliefs (save_id, statement, subject, subject_key, proof_count, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    return records.map((record) => Number(insert.run(
      saveId, record.statement, record.subject, nameKey(record.subject), record.sources.length, JSON.stringify(record.sources), JSON.stringify(record.history),
      record.createdTurnId, record.updatedTurnId, record.deletedTurnId, flag(record.stale),
    ).lastInsertRowid));
  }

  updateBeliefs(saveId: string, records: readonly BeliefRecord[]): void {
    const update = this.sql(`UPDATE living_beliefs SET statement = ?, subject = ?, subject_key = ?, proof_count = ?, sources = ?, history = ?, updated_turn_id = ?,
      deleted_turn_id = ?, stale = ? WHERE belief_id = ? AND save_id = ?`);
    for (const record of records) {
      update.run(
        record.statement, record.subject, nameKey(record.subject), record.sources.length, JSON.stringify(record.sources), JSON.stringify(record.history),
        record.updatedTurnId, record.deletedTurnId, flag(record.stale), record.beliefId, saveId,
      );
    }
  }

  deleteBeliefs(saveId: string, beliefIds: readonly number[]): void {
    this.sql('DELETE FROM living_beliefs WHERE belief_id IN (SELECT value FROM json_each(?)) AND save_id = ?').run(idList(beliefIds), saveId);
  }

  deleteBeliefsCreatedAfter(saveId: string, turnId: number): number {
    return this.sql('DELETE FROM living_beliefs WHERE save_id = ? AND created_turn_id > ?').run(saveId, turnId).changes;
  }

  takeBeliefsAfter(saveId: string, turnId: number): BeliefsAfter {
    const deleted = this.deleteBeliefsCreatedAfter(saveId, turnId);
    const changed = this.sql(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE save_id = ? AND updated_turn_id > ? ORDER BY belief_id`).all(saveId, turnId) as BeliefRow[];
    return { deleted, changed: changed.map(beliefFromRow) };
  }

  countBeliefs(saveId: string): number {
    return (this.sql('SELECT COUNT(*) AS n FROM living_beliefs WHERE save_id = ? AND deleted_turn_id IS NULL').get(saveId) as { n: number }).n;
  }

  // ---- mental models and their versions ----

  lockModel(saveId: string, subject: string): MentalModel | null {
    const row = this.sql('SELECT * FROM living_models WHERE save_id = ? AND subject_key = ?').get(saveId, nameKey(subject)) as ModelRow | undefined;
    return row === undefined ? null : modelFromRow(row);
  }

  selectModels(saveId: string, query: ModelQuery): MentalModel[] {
    const clauses = ['save_id = ?', 'created_turn_id <= ?'];
    const parameters: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    if (query.subject !== undefined) {
      clauses.push('subject_key = ?');
      parameters.push(nameKey(query.subject));
    }
    const rows = this.sql(`SELECT * FROM living_models WHERE ${clauses.join(' AND ')} ORDER BY updated_turn_id DESC, model_id DESC LIMIT ?`)
      .all(...parameters, query.limit ?? LIMIT_ALL) as ModelRow[];
    return rows.map(modelFromRow);
  }

  modelsChangedAt(saveId: string, turnId: number): MentalModel[] {
    return (this.sql('SELECT * FROM living_models WHERE save_id = ? AND updated_turn_id = ?').all(saveId, turnId) as ModelRow[]).map(modelFromRow);
  }

  staleSubjects(saveId: string, maxTurnId: number, limit: number): string[] {
    const rows = this.sql(`SELECT subject FROM living_models WHERE save_id = ? AND stale = 1 AND created_turn_id <= ?
      ORDER BY updated_turn_id ASC, model_id ASC LIMIT ?`).all(saveId, maxTurnId, limit) as { subject: string }[];
    return rows.map((row) => row.subject);
  }

  countModels(saveId: string): number {
    return (this.sql('SELECT COUNT(*) AS n FROM living_models WHERE save_id = ?').get(saveId) as { n: number }).n;
  }

  insertModels(saveId: string, models: readonly MentalModel[]): number[] {
    const insert = this.sql(`INSERT INTO living_models (save_id, subject, subject_key, summary, sources, created_turn_id, updated_turn_id, stale)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    return models.map((model) => Number(insert.run(
      saveId, model.subject, nameKey(model.subject), model.summary, JSON.stringify(model.sources), model.createdTurnId, model.updatedTurnId, flag(model.stale),
    ).lastInsertRowid));
  }

  updateModels(saveId: string, models: readonly MentalModel[]): void {
    const update = this.sql('UPDATE living_models SET summary = ?, sources = ?, updated_turn_id = ?, stale = ? WHERE model_id = ? AND save_id = ?');
    for (const model of models) update.run(model.summary, JSON.stringify(model.sources), model.updatedTurnId, flag(model.stale), model.modelId, saveId);
  }

  deleteModels(saveId: string, modelIds: readonly number[]): void {
    this.sql('DELETE FROM living_model_versions WHERE model_id IN (SELECT value FROM json_each(?)) AND save_id = ?').run(idList(modelIds), saveId);
    this.sql('DELETE FROM living_models WHERE model_id IN (SELECT value FROM json_each(?)) AND save_id = ?').run(idList(modelIds), saveId);
  }

  deleteModelsCreatedAfter(saveId: string, turnId: number): number {
    return this.sql('DELETE FROM living_models WHERE save_id = ? AND created_turn_id > ?').run(saveId, turnId).changes;
  }

  latestVersions(saveId: string, modelIds: readonly number[], turnId: number): Map<number, ModelVersion> {
    const latest = this.sql(`SELECT turn_id, summary, sources FROM living_model_versions WHERE model_id = ? AND turn_id <= ? AND save_id = ?
      ORDER BY turn_id DESC, version_id DESC LIMIT 1`);
    const versions = new Map<number, ModelVersion>();
    for (const modelId of modelIds) {
      const row = latest.get(modelId, turnId, saveId) as VersionRow | undefined;
      if (row !== undefined) versions.set(modelId, { turnId: row.turn_id as number, summary: row.summary, sources: JSON.parse(row.sources) as number[] });
    }
    return versions;
  }

  takeModelsAfter(saveId: string, turnId: number): ModelsAfter {
    this.deleteVersionsAfter(saveId, turnId);
    const deleted = this.deleteModelsCreatedAfter(saveId, turnId);
    const changed = (this.sql('SELECT * FROM living_models WHERE save_id = ? AND updated_turn_id > ? ORDER BY model_id').all(saveId, turnId) as ModelRow[]).map(modelFromRow);
    return { deleted, changed, latest: this.latestVersions(saveId, changed.map((model) => model.modelId as number), turnId) };
  }

  versionsUpTo(saveId: string, modelIds: readonly number[], turnId: number): StoredModelVersion[] {
    const rows = this.sql(`SELECT model_id, turn_id, summary, sources FROM living_model_versions
      WHERE model_id IN (SELECT value FROM json_each(?)) AND turn_id <= ? AND save_id = ? ORDER BY version_id`).all(idList(modelIds), turnId, saveId) as VersionRow[];
    return rows.map(versionFromRow);
  }

  insertVersions(saveId: string, versions: readonly StoredModelVersion[]): void {
    const insert = this.sql('INSERT INTO living_model_versions (model_id, save_id, turn_id, summary, sources) VALUES (?, ?, ?, ?, ?)');
    for (const version of versions) insert.run(version.modelId, saveId, version.turnId, version.summary, JSON.stringify(version.sources));
  }

  deleteVersionsAt(saveId: string, modelId: number, turnId: number): void {
    this.sql('DELETE FROM living_model_versions WHERE model_id = ? AND turn_id = ? AND save_id = ?').run(modelId, turnId, saveId);
  }

  deleteVersionsFrom(saveId: string, modelIds: readonly number[], turnId: number): void {
    this.sql('DELETE FROM living_model_versions WHERE model_id IN (SELECT value FROM json_each(?)) AND turn_id >= ? AND save_id = ?').run(idList(modelIds), turnId, saveId);
  }

  deleteVersionsAfter(saveId: string, turnId: number): void {
    this.sql('DELETE FROM living_model_versions WHERE save_id = ? AND turn_id > ?').run(saveId, turnId);
  }

  // ---- jobs ----

  lockClaims(): void {
    // The IMMEDIATE write transaction already holds the file's only write lock.
  }

  openJobs(saveId: string | undefined): LivingJob[] {
    const rows = saveId === undefined
      ? this.sql("SELECT * FROM living_jobs WHERE status IN ('pending', 'running') ORDER BY save_id, turn_id").all()
      : this.sql("SELECT * FROM living_jobs WHERE status IN ('pending', 'running') AND save_id = ? ORDER BY turn_id").all(saveId);
    return (rows as JobRow[]).map(jobFromRow);
  }

  lockJob(saveId: string, jobId: number): LivingJob | undefined {
    const row = this.sql('SELECT * FROM living_jobs WHERE job_id = ? AND save_id = ?').get(jobId, saveId) as JobRow | undefined;
    return row === undefined ? undefined : jobFromRow(row);
  }

  upsertJob(saveId: string, turnId: number, fields: QueuedJobFields): LivingJob {
    const columns = jobColumns({ ...fields, generation: 1, createdAt: fields.updatedAt });
    const updates = columns.flatMap(([column]) => (column === 'generation' || column === 'created_at' ? [] : [`${column} = excluded.${column}`]));
    const row = this.sql(`INSERT INTO living_jobs (save_id, turn_id, ${columns.map(([column]) => column).join(', ')}) VALUES (?, ?, ${columns.map(() => '?').join(', ')})
      ON CONFLICT (save_id, turn_id) DO UPDATE SET ${updates.join(', ')}, generation = generation + 1 RETURNING *`)
      .get(saveId, turnId, ...columns.map(([, value]) => value)) as JobRow;
    return jobFromRow(row);
  }

  updateJob(saveId: string, jobId: number, fields: Partial<JobFields>): void {
    const columns = jobColumns(fields);
    this.sql(`UPDATE living_jobs SET ${columns.map(([column]) => `${column} = ?`).join(', ')} WHERE job_id = ? AND save_id = ?`).run(...columns.map(([, value]) => value), jobId, saveId);
  }

  updateFailedJobs(saveId: string | undefined, fields: Partial<JobFields>): number {
    const columns = jobColumns(fields);
    const set = columns.map(([column]) => `${column} = ?`).join(', ');
    const values = columns.map(([, value]) => value);
    return (saveId === undefined
      ? this.sql(`UPDATE living_jobs SET ${set} WHERE status = 'failed'`).run(...values)
      : this.sql(`UPDATE living_jobs SET ${set} WHERE status = 'failed' AND save_id = ?`).run(...values, saveId)).changes;
  }

  insertJobs(saveId: string, jobs: readonly LivingJob[]): void {
    for (const job of jobs) {
      const { jobId: _jobId, saveId: _saveId, turnId, ...fields } = job;
      const columns = jobColumns(fields);
      this.sql(`INSERT INTO living_jobs (save_id, turn_id, ${columns.map(([column]) => column).join(', ')}) VALUES (?, ?, ${columns.map(() => '?').join(', ')})`)
        .run(saveId, turnId, ...columns.map(([, value]) => value));
    }
  }

  deleteJobsAfter(saveId: string, turnId: number): number {
    return this.sql('DELETE FROM living_jobs WHERE save_id = ? AND turn_id > ?').run(saveId, turnId).changes;
  }

  selectJobs(query: JobQuery): LivingJob[] {
    const clauses: string[] = [];
    const parameters: unknown[] = [];
    if (query.saveId !== undefined) {
      clauses.push('save_id = ?');
      parameters.push(query.saveId);
    }
    if (query.status !== undefined) {
      clauses.push('status = ?');
      parameters.push(query.status);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    return (this.sql(`SELECT * FROM living_jobs ${where} ORDER BY save_id, turn_id LIMIT ?`).all(...parameters, query.limit ?? LIMIT_ALL) as JobRow[]).map(jobFromRow);
  }

  countJobs(saveId: string | undefined): JobCounts {
    const rows = (saveId === undefined
      ? this.sql('SELECT status, COUNT(*) AS n FROM living_jobs GROUP BY status').all()
      : this.sql('SELECT status, COUNT(*) AS n FROM living_jobs WHERE save_id = ? GROUP BY status').all(saveId)) as { status: LivingJob['status']; n: number }[];
    const counts: JobCounts = { pending: 0, running: 0, done: 0, failed: 0 };
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  // ---- the whole layer ----

  holdsData(saveId: string): boolean {
    return this.sql(`SELECT 1 FROM living_facts WHERE save_id = ? AND ${VISIBLE_FACT} LIMIT 1`).get(saveId) !== undefined
      || ['living_beliefs', 'living_models', 'living_jobs'].some((table) => this.sql(`SELECT 1 FROM ${table} WHERE save_id = ? LIMIT 1`).get(saveId) !== undefined);
  }
}
