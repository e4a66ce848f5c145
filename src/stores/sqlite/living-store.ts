// The SQLite adapter of the LivingStore seam: facts, beliefs, mental models and jobs in the store's own file.
import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { holdsClaim, isClaimable, NEXT_STAGE, queueHeads } from '../../core/job-rules.js';
import { beliefFromInput, createBelief, deleteBelief, nameKey, normalizeFact, reextractBelief, rewindBelief, rewindModel, toBelief, updateBelief } from '../../core/living-rules.js';
import type { BeliefRecord, ModelVersion, StoredSource } from '../../core/living-rules.js';
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
import type { SqliteStore } from './sqlite-store.js';

interface FactRow {
  fact_id: number;
  turn_id: number;
  statement: string;
  fact_type: string;
  who: string;
  what: string;
  when_text: string;
  where_text: string;
  why: string;
  entities: string;
}

interface BeliefRow {
  belief_id: number;
  statement: string;
  subject: string;
  sources: string;
  history: string;
  created_turn_id: number;
  updated_turn_id: number;
  deleted_turn_id: number | null;
  stale: number;
}

interface ModelRow {
  model_id: number;
  subject: string;
  summary: string;
  sources: string;
  created_turn_id: number;
  updated_turn_id: number;
  stale: number;
}

interface JobRow {
  job_id: number;
  save_id: string;
  turn_id: number;
  stage: LivingJob['stage'];
  status: JobStatus;
  generation: number;
  attempts: number;
  payload: string;
  subjects: string;
  claimed_by: string | null;
  claim_token: string | null;
  claimed_at: number | null;
  not_before: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

const toFact = (row: FactRow): Fact => ({
  factId: row.fact_id,
  turnId: row.turn_id,
  statement: row.statement,
  factType: row.fact_type,
  who: row.who,
  what: row.what,
  when: row.when_text,
  where: row.where_text,
  why: row.why,
  entities: JSON.parse(row.entities) as string[],
});

const toRecord = (row: BeliefRow): BeliefRecord => ({
  beliefId: row.belief_id,
  statement: row.statement,
  subject: row.subject,
  sources: JSON.parse(row.sources) as StoredSource[],
  history: JSON.parse(row.history) as BeliefRecord['history'],
  createdTurnId: row.created_turn_id,
  updatedTurnId: row.updated_turn_id,
  stale: row.stale === 1,
  deletedTurnId: row.deleted_turn_id,
});

const toModel = (row: ModelRow): MentalModel => ({
  modelId: row.model_id,
  subject: row.subject,
  summary: row.summary,
  sources: JSON.parse(row.sources) as number[],
  createdTurnId: row.created_turn_id,
  updatedTurnId: row.updated_turn_id,
  stale: row.stale === 1,
});

const toJob = (row: JobRow): LivingJob => ({
  jobId: row.job_id,
  saveId: row.save_id,
  turnId: row.turn_id,
  stage: row.stage,
  status: row.status,
  generation: row.generation,
  attempts: row.attempts,
  payload: JSON.parse(row.payload) as JobPayload,
  subjects: JSON.parse(row.subjects) as string[],
  claimedBy: row.claimed_by,
  claimToken: row.claim_token,
  claimedAt: row.claimed_at,
  notBefore: row.not_before,
  lastError: row.last_error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const BELIEF_COLUMNS = 'belief_id, statement, subject, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale';
const LIMIT_ALL = -1;

/**
 * Living memory in the SQLite file of a SqliteStore. Each public method is one IMMEDIATE transaction; the
 * `...Within` methods run inside a transaction the caller already holds (the store's rewind and fork).
 *
 * @example
 * ```ts
 * const store = openSqliteStore({ path: 'game.db' });
 * await store.living.insertFacts('run-1', 3, [{ statement: 'Kaël owns a silver key.', entities: ['Kaël'] }]);
 * ```
 */
export class SqliteLivingStore implements LivingStore {
  private readonly store: SqliteStore;
  private readonly cache = new Map<string, Statement>();

  constructor(store: SqliteStore) {
    this.store = store;
  }

  private sql(text: string): Statement {
    const database = this.store.database;
    let statement = this.cache.get(text);
    if (statement === undefined) {
      statement = database.prepare(text);
      this.cache.set(text, statement);
    }
    return statement;
  }

  // ---- facts ----

  private insertFactsWithin(saveId: string, turnId: number, facts: FactInput[]): number[] {
    const insert = this.sql(`INSERT INTO living_facts (save_id, turn_id, statement, fact_type, who, what, when_text, where_text, why, entities, entity_keys)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const ids: number[] = [];
    for (const input of facts) {
      const fact = normalizeFact(input, turnId);
      if (fact === null) continue;
      const { lastInsertRowid } = insert.run(saveId, turnId, fact.statement, fact.factType, fact.who, fact.what, fact.when, fact.where, fact.why, JSON.stringify(fact.entities), JSON.stringify(fact.entities.map(nameKey)));
      const factId = Number(lastInsertRowid);
      ids.push(factId);
      input.factId = factId;
      input.turnId = turnId;
    }
    return ids;
  }

  async insertFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    return this.store.write(() => this.insertFactsWithin(saveId, turnId, facts));
  }

  private replaceTurnFactsWithin(saveId: string, turnId: number, facts: FactInput[]): number[] {
    const old = (this.sql('SELECT fact_id FROM living_facts WHERE save_id = ? AND turn_id = ?').all(saveId, turnId) as { fact_id: number }[]).map((row) => row.fact_id);
    if (old.length > 0) {
      this.sql('DELETE FROM living_facts WHERE save_id = ? AND turn_id = ?').run(saveId, turnId);
      this.undoTurnWithin(saveId, turnId, new Set(old));
    }
    return this.insertFactsWithin(saveId, turnId, facts);
  }

  /** Undoes what a turn's earlier extraction led to (see reextractBelief); models refreshed last at that turn go back too. */
  private undoTurnWithin(saveId: string, turnId: number, gone: ReadonlySet<number>): void {
    const changedThen = (this.sql(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE save_id = ? AND updated_turn_id = ?`).all(saveId, turnId) as BeliefRow[]).map(toRecord);
    const candidates = new Map([...changedThen, ...this.beliefRecords(saveId, { factIds: [...gone], includeDeleted: true })].map((record) => [record.beliefId, record]));
    for (const record of candidates.values()) {
      const next = reextractBelief(record, turnId, gone);
      if (next === null) this.sql('DELETE FROM living_beliefs WHERE belief_id = ?').run(record.beliefId);
      else if (next !== undefined) this.writeBelief(next);
    }
    const models = this.sql('SELECT * FROM living_models WHERE save_id = ? AND updated_turn_id = ?').all(saveId, turnId) as ModelRow[];
    for (const row of models) {
      this.sql('DELETE FROM living_model_versions WHERE model_id = ? AND turn_id >= ?').run(row.model_id, turnId);
      const { model } = rewindModel(toModel(row), this.latestVersion(row.model_id, turnId - 1), turnId - 1);
      if (model === null) {
        this.sql('DELETE FROM living_model_versions WHERE model_id = ?').run(row.model_id);
        this.sql('DELETE FROM living_models WHERE model_id = ?').run(row.model_id);
      } else {
        this.sql('UPDATE living_models SET summary = ?, sources = ?, updated_turn_id = ?, stale = 1 WHERE model_id = ?').run(model.summary, JSON.stringify(model.sources), model.updatedTurnId, row.model_id);
      }
    }
  }

  async replaceTurnFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    return this.store.write(() => this.replaceTurnFactsWithin(saveId, turnId, facts));
  }

  async getFacts(saveId: string, query: FactQuery = {}): Promise<Fact[]> {
    const clauses = ['save_id = ?', 'turn_id <= ?'];
    const parameters: unknown[] = [saveId, query.maxTurnId ?? Number.MAX_SAFE_INTEGER];
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
    return rows.map(toFact);
  }

  async countFacts(saveId: string): Promise<number> {
    return (this.sql('SELECT COUNT(*) AS n FROM living_facts WHERE save_id = ?').get(saveId) as { n: number }).n;
  }

  private rollbackFactsWithin(saveId: string, target: number): number {
    return this.sql('DELETE FROM living_facts WHERE save_id = ? AND turn_id > ?').run(saveId, target).changes;
  }

  async rollbackFacts(saveId: string, targetTurnId: number): Promise<number> {
    return this.store.write(() => this.rollbackFactsWithin(saveId, targetTurnId));
  }

  // ---- beliefs ----

  private beliefRecords(saveId: string, query: BeliefQuery = {}): BeliefRecord[] {
    // `+created_turn_id` keeps the planner on the (save, updated) and (save, subject, updated) indexes, which also
    // give the order, instead of scanning every belief of the save through (save, created).
    const clauses = ['save_id = ?', '+created_turn_id <= ?'];
    const parameters: unknown[] = [saveId, query.maxTurnId ?? Number.MAX_SAFE_INTEGER];
    if (!query.includeDeleted) clauses.push('deleted_turn_id IS NULL');
    if (query.subject !== undefined) {
      clauses.push('subject_key = ?');
      parameters.push(nameKey(query.subject));
    }
    if (query.factIds !== undefined) {
      if (query.factIds.length === 0) return [];
      clauses.push(`EXISTS (SELECT 1 FROM json_each(living_beliefs.sources) WHERE json_extract(json_each.value, '$.factId') IN (${query.factIds.map(() => '?').join(',')}))`);
      parameters.push(...query.factIds);
    }
    const rows = this.store.database
      .prepare(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE ${clauses.join(' AND ')} ORDER BY updated_turn_id DESC, belief_id DESC LIMIT ?`)
      .all(...parameters, query.limit ?? LIMIT_ALL) as BeliefRow[];
    return rows.map(toRecord);
  }

  private beliefRecord(saveId: string, beliefId: number): BeliefRecord | null {
    const row = this.sql(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE belief_id = ? AND save_id = ?`).get(beliefId, saveId) as BeliefRow | undefined;
    return row === undefined ? null : toRecord(row);
  }

  private insertBeliefRecord(saveId: string, record: BeliefRecord): number {
    const { lastInsertRowid } = this.sql(`INSERT INTO living_beliefs (save_id, statement, subject, subject_key, proof_count, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      saveId, record.statement, record.subject, nameKey(record.subject), record.sources.length, JSON.stringify(record.sources), JSON.stringify(record.history),
      record.createdTurnId, record.updatedTurnId, record.deletedTurnId, record.stale ? 1 : 0,
    );
    return Number(lastInsertRowid);
  }

  private writeBelief(record: BeliefRecord): void {
    this.sql(`UPDATE living_beliefs SET statement = ?, subject = ?, subject_key = ?, proof_count = ?, sources = ?, history = ?, updated_turn_id = ?,
      deleted_turn_id = ?, stale = ? WHERE belief_id = ?`).run(
      record.statement, record.subject, nameKey(record.subject), record.sources.length, JSON.stringify(record.sources), JSON.stringify(record.history),
      record.updatedTurnId, record.deletedTurnId, record.stale ? 1 : 0, record.beliefId,
    );
  }

  async insertBelief(saveId: string, belief: BeliefInput): Promise<number | null> {
    const record = beliefFromInput(belief);
    if (record === null) return null;
    return this.store.write(() => this.insertBeliefRecord(saveId, record));
  }

  async getBeliefs(saveId: string, query: BeliefQuery = {}): Promise<Belief[]> {
    return this.beliefRecords(saveId, query).map(toBelief);
  }

  async countBeliefs(saveId: string): Promise<number> {
    return (this.sql('SELECT COUNT(*) AS n FROM living_beliefs WHERE save_id = ? AND deleted_turn_id IS NULL').get(saveId) as { n: number }).n;
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
      const current = action.beliefId === null ? null : this.beliefRecord(saveId, action.beliefId);
      const next = current === null ? null : action.kind === 'UPDATE' ? updateBelief(current, action, turnId, factTurnMap) : deleteBelief(current, turnId);
      if (next === null) {
        counts.skipped++;
        continue;
      }
      this.writeBelief(next);
      if (action.kind === 'UPDATE') counts.updated++;
      else counts.deleted++;
    }
    return counts;
  }

  async applyConsolidation(saveId: string, turnId: number, actions: readonly ConsolidationAction[], factTurnMap: ReadonlyMap<number, number>): Promise<ConsolidationCounts> {
    return this.store.write(() => this.applyConsolidationWithin(saveId, turnId, actions, factTurnMap));
  }

  private rollbackBeliefsWithin(saveId: string, target: number): { deleted: number; updated: number } {
    const deleted = this.sql('DELETE FROM living_beliefs WHERE save_id = ? AND created_turn_id > ?').run(saveId, target).changes;
    // Every change, attached source and DELETE of a belief moves updated_turn_id (see BeliefRecord), so this finds them all.
    const rows = this.sql(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE save_id = ? AND updated_turn_id > ?`).all(saveId, target) as BeliefRow[];
    let updated = 0;
    for (const row of rows) {
      const { record, changed } = rewindBelief(toRecord(row), target);
      if (record === null || !changed) continue;
      this.writeBelief(record);
      updated++;
    }
    return { deleted, updated };
  }

  async rollbackBeliefs(saveId: string, targetTurnId: number): Promise<{ deleted: number; updated: number }> {
    return this.store.write(() => this.rollbackBeliefsWithin(saveId, targetTurnId));
  }

  // ---- mental models ----

  private upsertModelWithin(saveId: string, subject: string, summary: string, turnId: number, sources: readonly number[]): number | null {
    const text = summary.trim();
    if (text === '') return null;
    const key = nameKey(subject);
    const existing = this.sql('SELECT model_id FROM living_models WHERE save_id = ? AND subject_key = ?').get(saveId, key) as { model_id: number } | undefined;
    let modelId: number;
    if (existing === undefined) {
      const { lastInsertRowid } = this.sql(`INSERT INTO living_models (save_id, subject, subject_key, summary, sources, created_turn_id, updated_turn_id, stale)
        VALUES (?, ?, ?, ?, ?, ?, ?, 0)`).run(saveId, subject.trim(), key, text, JSON.stringify(sources), turnId, turnId);
      modelId = Number(lastInsertRowid);
    } else {
      modelId = existing.model_id;
      this.sql('UPDATE living_models SET summary = ?, sources = ?, updated_turn_id = ?, stale = 0 WHERE model_id = ?').run(text, JSON.stringify(sources), turnId, modelId);
    }
    this.sql('DELETE FROM living_model_versions WHERE model_id = ? AND turn_id = ?').run(modelId, turnId);
    this.sql('INSERT INTO living_model_versions (model_id, save_id, turn_id, summary, sources) VALUES (?, ?, ?, ?, ?)').run(modelId, saveId, turnId, text, JSON.stringify(sources));
    return modelId;
  }

  async upsertModel(saveId: string, subject: string, summary: string, turnId: number, sources: readonly number[] = []): Promise<number | null> {
    return this.store.write(() => this.upsertModelWithin(saveId, subject, summary, turnId, sources));
  }

  async getModels(saveId: string, query: ModelQuery = {}): Promise<MentalModel[]> {
    const clauses = ['save_id = ?', 'created_turn_id <= ?'];
    const parameters: unknown[] = [saveId, query.maxTurnId ?? Number.MAX_SAFE_INTEGER];
    if (query.subject !== undefined) {
      clauses.push('subject_key = ?');
      parameters.push(nameKey(query.subject));
    }
    const rows = this.sql(`SELECT * FROM living_models WHERE ${clauses.join(' AND ')} ORDER BY updated_turn_id DESC, model_id DESC LIMIT ?`)
      .all(...parameters, query.limit ?? LIMIT_ALL) as ModelRow[];
    return rows.map(toModel);
  }

  async countModels(saveId: string): Promise<number> {
    return (this.sql('SELECT COUNT(*) AS n FROM living_models WHERE save_id = ?').get(saveId) as { n: number }).n;
  }

  async staleSubjects(saveId: string, options: { maxTurnId?: number; limit?: number } = {}): Promise<string[]> {
    const rows = this.sql(`SELECT subject FROM living_models WHERE save_id = ? AND stale = 1 AND created_turn_id <= ?
      ORDER BY updated_turn_id ASC, model_id ASC LIMIT ?`).all(saveId, options.maxTurnId ?? Number.MAX_SAFE_INTEGER, options.limit ?? 5) as { subject: string }[];
    return rows.map((row) => row.subject);
  }

  private latestVersion(modelId: number, target: number): ModelVersion | null {
    const row = this.sql(`SELECT turn_id, summary, sources FROM living_model_versions WHERE model_id = ? AND turn_id <= ?
      ORDER BY turn_id DESC, version_id DESC LIMIT 1`).get(modelId, target) as { turn_id: number; summary: string; sources: string } | undefined;
    return row === undefined ? null : { turnId: row.turn_id, summary: row.summary, sources: JSON.parse(row.sources) as number[] };
  }

  private rollbackModelsWithin(saveId: string, target: number): { deleted: number; updated: number } {
    this.sql('DELETE FROM living_model_versions WHERE save_id = ? AND turn_id > ?').run(saveId, target);
    const deleted = this.sql('DELETE FROM living_models WHERE save_id = ? AND created_turn_id > ?').run(saveId, target).changes;
    const rows = this.sql('SELECT * FROM living_models WHERE save_id = ? AND updated_turn_id > ?').all(saveId, target) as ModelRow[];
    for (const row of rows) {
      const { model } = rewindModel(toModel(row), this.latestVersion(row.model_id, target), target);
      if (model === null) continue;
      this.sql('UPDATE living_models SET summary = ?, sources = ?, updated_turn_id = ?, stale = 1 WHERE model_id = ?').run(model.summary, JSON.stringify(model.sources), model.updatedTurnId, row.model_id);
    }
    return { deleted, updated: rows.length };
  }

  async rollbackModels(saveId: string, targetTurnId: number): Promise<{ deleted: number; updated: number }> {
    return this.store.write(() => this.rollbackModelsWithin(saveId, targetTurnId));
  }

  // ---- whole layer: rewind and fork ----

  /** Rolls the whole layer back inside the caller's transaction (used by SqliteStore.rewind). */
  rollbackWithin(saveId: string, target: number): LivingRewindCounts {
    const facts = this.rollbackFactsWithin(saveId, target);
    const beliefs = this.rollbackBeliefsWithin(saveId, target);
    const models = this.rollbackModelsWithin(saveId, target);
    const jobsCancelled = this.sql('DELETE FROM living_jobs WHERE save_id = ? AND turn_id > ?').run(saveId, target).changes;
    return { facts, beliefsDeleted: beliefs.deleted, beliefsUpdated: beliefs.updated, modelsDeleted: models.deleted, modelsUpdated: models.updated, jobsCancelled };
  }

  async rollback(saveId: string, targetTurnId: number): Promise<LivingRewindCounts> {
    return this.store.write(() => this.rollbackWithin(saveId, targetTurnId));
  }

  /** True when the save holds any living data (facts, beliefs, models or jobs). */
  holdsData(saveId: string): boolean {
    return ['living_facts', 'living_beliefs', 'living_models', 'living_jobs']
      .some((table) => this.sql(`SELECT 1 FROM ${table} WHERE save_id = ? LIMIT 1`).get(saveId) !== undefined);
  }

  /**
   * Copies the layer's state of `saveId` as of `atTurn` into `newSaveId` inside the caller's transaction: facts of
   * turns <= atTurn, beliefs and models as a rewind to atTurn would leave them, and the jobs of those turns (running
   * ones reset to pending). New ids throughout; belief sources and model sources remapped.
   */
  forkWithin(saveId: string, newSaveId: string, atTurn: number): LivingForkCounts {
    const factIds = new Map<number, number>();
    const facts = this.sql('SELECT * FROM living_facts WHERE save_id = ? AND turn_id <= ? ORDER BY fact_id').all(saveId, atTurn) as FactRow[];
    const insertFact = this.sql(`INSERT INTO living_facts (save_id, turn_id, statement, fact_type, who, what, when_text, where_text, why, entities, entity_keys)
      SELECT ?, turn_id, statement, fact_type, who, what, when_text, where_text, why, entities, entity_keys FROM living_facts WHERE fact_id = ?`);
    for (const row of facts) factIds.set(row.fact_id, Number(insertFact.run(newSaveId, row.fact_id).lastInsertRowid));

    const beliefIds = new Map<number, number>();
    const mapFact = (id: number) => factIds.get(id) ?? id;
    const beliefs = this.sql(`SELECT ${BELIEF_COLUMNS} FROM living_beliefs WHERE save_id = ? AND created_turn_id <= ? ORDER BY belief_id`).all(saveId, atTurn) as BeliefRow[];
    for (const row of beliefs) {
      const { record } = rewindBelief(toRecord(row), atTurn);
      if (record === null) continue;
      const copy: BeliefRecord = {
        ...record,
        sources: record.sources.map((source) => ({ ...source, factId: mapFact(source.factId) })),
        history: record.history.map((change) => ({ ...change, factIds: change.factIds.map(mapFact) })),
      };
      beliefIds.set(row.belief_id, this.insertBeliefRecord(newSaveId, copy));
    }

    const mapBeliefs = (ids: readonly number[]) => ids.flatMap((id) => (beliefIds.has(id) ? [beliefIds.get(id) as number] : []));
    const models = this.sql('SELECT * FROM living_models WHERE save_id = ? AND created_turn_id <= ? ORDER BY model_id').all(saveId, atTurn) as ModelRow[];
    for (const row of models) {
      const { model } = rewindModel(toModel(row), this.latestVersion(row.model_id, atTurn), atTurn);
      if (model === null) continue;
      const { lastInsertRowid } = this.sql(`INSERT INTO living_models (save_id, subject, subject_key, summary, sources, created_turn_id, updated_turn_id, stale)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(newSaveId, model.subject, nameKey(model.subject), model.summary, JSON.stringify(mapBeliefs(model.sources)), model.createdTurnId, model.updatedTurnId, model.stale ? 1 : 0);
      const versions = this.sql('SELECT turn_id, summary, sources FROM living_model_versions WHERE model_id = ? AND turn_id <= ? ORDER BY version_id').all(row.model_id, atTurn) as { turn_id: number; summary: string; sources: string }[];
      for (const version of versions) {
        this.sql('INSERT INTO living_model_versions (model_id, save_id, turn_id, summary, sources) VALUES (?, ?, ?, ?, ?)')
          .run(Number(lastInsertRowid), newSaveId, version.turn_id, version.summary, JSON.stringify(mapBeliefs(JSON.parse(version.sources) as number[])));
      }
    }

    const jobs = this.sql(`INSERT INTO living_jobs (save_id, turn_id, stage, status, generation, attempts, payload, subjects, claimed_by, claim_token, claimed_at, not_before, last_error, created_at, updated_at)
      SELECT ?, turn_id, stage, CASE status WHEN 'running' THEN 'pending' ELSE status END, generation, attempts, payload, subjects, NULL, NULL, NULL, not_before, last_error, created_at, updated_at
      FROM living_jobs WHERE save_id = ? AND turn_id <= ? ORDER BY job_id`).run(newSaveId, saveId, atTurn).changes;
    return { facts: facts.length, beliefs: beliefIds.size, models: models.length, jobs };
  }

  // ---- jobs ----

  private job(jobId: number): LivingJob | undefined {
    const row = this.sql('SELECT * FROM living_jobs WHERE job_id = ?').get(jobId) as JobRow | undefined;
    return row === undefined ? undefined : toJob(row);
  }

  async enqueueTurn(saveId: string, turnId: number, payload: JobPayload, now: number): Promise<LivingJob> {
    return this.store.write(() => {
      const row = this.sql(`INSERT INTO living_jobs (save_id, turn_id, stage, status, generation, attempts, payload, subjects, not_before, created_at, updated_at)
        VALUES (?, ?, 'extract', 'pending', 1, 0, ?, '[]', 0, ?, ?)
        ON CONFLICT (save_id, turn_id) DO UPDATE SET stage = 'extract', status = 'pending', generation = generation + 1, attempts = 0,
          payload = excluded.payload, subjects = '[]', claimed_by = NULL, claim_token = NULL, claimed_at = NULL, not_before = 0, last_error = NULL, updated_at = excluded.updated_at
        RETURNING *`).get(saveId, turnId, JSON.stringify(payload), now, now) as JobRow;
      return toJob(row);
    });
  }

  async claimJob(request: ClaimRequest): Promise<LivingJob | null> {
    return this.store.write(() => {
      const rows = (request.saveId === undefined
        ? this.sql("SELECT * FROM living_jobs WHERE status IN ('pending', 'running') ORDER BY save_id, turn_id").all()
        : this.sql("SELECT * FROM living_jobs WHERE status IN ('pending', 'running') AND save_id = ? ORDER BY turn_id").all(request.saveId)) as JobRow[];
      const job = queueHeads(rows.map(toJob)).find((head) => isClaimable(head, request));
      if (job === undefined) return null;
      const token = randomUUID();
      this.sql("UPDATE living_jobs SET status = 'running', claimed_by = ?, claim_token = ?, claimed_at = ?, updated_at = ? WHERE job_id = ?")
        .run(request.workerId, token, request.now, request.now, job.jobId);
      return { ...job, status: 'running', claimedBy: request.workerId, claimToken: token, claimedAt: request.now, updatedAt: request.now };
    });
  }

  async renewClaim(claim: JobClaim, now: number): Promise<boolean> {
    return this.store.write(() => {
      if (!holdsClaim(this.job(claim.jobId), claim)) return false;
      this.sql('UPDATE living_jobs SET claimed_at = ? WHERE job_id = ?').run(now, claim.jobId);
      return true;
    });
  }

  async completeStage(claim: JobClaim, commit: StageCommit, now: number): Promise<boolean> {
    return this.store.write(() => {
      const job = this.job(claim.jobId);
      if (!holdsClaim(job, claim) || job.stage !== commit.stage) return false;
      let subjects = job.subjects;
      if (commit.stage === 'extract') this.replaceTurnFactsWithin(job.saveId, job.turnId, commit.facts);
      else if (commit.stage === 'consolidate') {
        this.applyConsolidationWithin(job.saveId, job.turnId, commit.actions, commit.factTurnMap);
        subjects = commit.subjects;
      } else {
        for (const model of commit.models) this.upsertModelWithin(job.saveId, model.subject, model.summary, job.turnId, model.sources);
      }
      const stage = NEXT_STAGE[commit.stage];
      const done = stage === 'done';
      this.sql(`UPDATE living_jobs SET stage = ?, status = ?, attempts = 0, last_error = NULL, subjects = ?, claimed_at = ?, updated_at = ?,
        claimed_by = CASE WHEN ? THEN NULL ELSE claimed_by END, claim_token = CASE WHEN ? THEN NULL ELSE claim_token END WHERE job_id = ?`)
        .run(stage, done ? 'done' : 'running', JSON.stringify(subjects), done ? null : now, now, done ? 1 : 0, done ? 1 : 0, claim.jobId);
      return true;
    });
  }

  async failStage(claim: JobClaim, error: string, retryAt: number | null, now: number): Promise<boolean> {
    return this.store.write(() => {
      if (!holdsClaim(this.job(claim.jobId), claim)) return false;
      this.sql(`UPDATE living_jobs SET status = ?, attempts = attempts + 1, not_before = ?, last_error = ?, claimed_by = NULL, claim_token = NULL, claimed_at = NULL, updated_at = ?
        WHERE job_id = ?`).run(retryAt === null ? 'failed' : 'pending', retryAt ?? 0, error.slice(0, 2000), now, claim.jobId);
      return true;
    });
  }

  async releaseClaim(claim: JobClaim, now: number): Promise<boolean> {
    return this.store.write(() => {
      if (!holdsClaim(this.job(claim.jobId), claim)) return false;
      this.sql("UPDATE living_jobs SET status = 'pending', claimed_by = NULL, claim_token = NULL, claimed_at = NULL, updated_at = ? WHERE job_id = ?").run(now, claim.jobId);
      return true;
    });
  }

  async retryFailed(saveId: string | undefined, now: number): Promise<number> {
    return this.store.write(() => (saveId === undefined
      ? this.sql("UPDATE living_jobs SET status = 'pending', attempts = 0, not_before = 0, updated_at = ? WHERE status = 'failed'").run(now)
      : this.sql("UPDATE living_jobs SET status = 'pending', attempts = 0, not_before = 0, updated_at = ? WHERE status = 'failed' AND save_id = ?").run(now, saveId)).changes);
  }

  async listJobs(query: { saveId?: string; status?: JobStatus; limit?: number } = {}): Promise<LivingJob[]> {
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
    return (this.sql(`SELECT * FROM living_jobs ${where} ORDER BY save_id, turn_id LIMIT ?`).all(...parameters, query.limit ?? LIMIT_ALL) as JobRow[]).map(toJob);
  }

  async countJobs(saveId?: string): Promise<JobCounts> {
    const rows = (saveId === undefined
      ? this.sql('SELECT status, COUNT(*) AS n FROM living_jobs GROUP BY status').all()
      : this.sql('SELECT status, COUNT(*) AS n FROM living_jobs WHERE save_id = ? GROUP BY status').all(saveId)) as { status: JobStatus; n: number }[];
    const counts: JobCounts = { pending: 0, running: 0, done: 0, failed: 0 };
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }
}
