// The PostgreSQL adapter of the LivingStore seam: facts, beliefs, mental models and jobs in Mnemo's schema.
import { randomUUID } from 'node:crypto';
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
import { quoteIdentifier } from './identifiers.js';
import type { PostgresStore } from './postgres-store.js';
import type { SqlClient } from './queryable.js';

type Integer = string | number;

interface FactRow {
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

interface BeliefRow {
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

interface ModelRow {
  model_id: Integer;
  subject: string;
  summary: string;
  sources: string;
  created_turn_id: Integer;
  updated_turn_id: Integer;
  stale: Integer;
}

interface JobRow {
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

const toFact = (row: FactRow): Fact => ({
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

const toRecord = (row: BeliefRow): BeliefRecord => ({
  beliefId: Number(row.belief_id),
  statement: row.statement,
  subject: row.subject,
  sources: JSON.parse(row.sources) as StoredSource[],
  history: JSON.parse(row.history) as BeliefRecord['history'],
  createdTurnId: Number(row.created_turn_id),
  updatedTurnId: Number(row.updated_turn_id),
  stale: Number(row.stale) === 1,
  deletedTurnId: row.deleted_turn_id === null ? null : Number(row.deleted_turn_id),
});

const toModel = (row: ModelRow): MentalModel => ({
  modelId: Number(row.model_id),
  subject: row.subject,
  summary: row.summary,
  sources: JSON.parse(row.sources) as number[],
  createdTurnId: Number(row.created_turn_id),
  updatedTurnId: Number(row.updated_turn_id),
  stale: Number(row.stale) === 1,
});

const toJob = (row: JobRow): LivingJob => ({
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
  claimedAt: row.claimed_at === null ? null : Number(row.claimed_at),
  notBefore: Number(row.not_before),
  lastError: row.last_error,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const BELIEF_COLUMNS = 'belief_id, statement, subject, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale';
const FACT_COLUMNS = 'save_id, turn_id, statement, fact_type, who, what, when_text, where_text, why, entities, entity_keys';
const MAX_TURN = Number.MAX_SAFE_INTEGER;

/**
 * Living memory in Mnemo's PostgreSQL schema: the same tables, rules (`core/living-rules.ts`, `core/job-rules.ts`)
 * and contract as SQLite. Each public method is one transaction; the `...Within` methods run inside a transaction
 * the caller holds (the store's rewind and fork). Claims are taken one at a time under an advisory lock, and a
 * claim is checked on a locked job row, so two workers (in any process) never hold the same job.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url });
 * await store.living.insertFacts('run-1', 3, [{ statement: 'Kaël owns a silver key.', entities: ['Kaël'] }]);
 * ```
 */
export class PostgresLivingStore implements LivingStore {
  private readonly facts: string;
  private readonly beliefs: string;
  private readonly models: string;
  private readonly versions: string;
  private readonly jobs: string;
  private readonly claimLock: string;

  constructor(private readonly store: PostgresStore) {
    this.facts = store.table('living_facts');
    this.beliefs = store.table('living_beliefs');
    this.models = store.table('living_models');
    this.versions = store.table('living_model_versions');
    this.jobs = store.table('living_jobs');
    this.claimLock = `mnemo:living-claims:${quoteIdentifier(store.schema)}`;
  }

  private read(): SqlClient {
    return this.store.database;
  }

  // ---- facts ----

  private async insertFactsWithin(client: SqlClient, saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    const ids: number[] = [];
    for (const input of facts) {
      const fact = normalizeFact(input, turnId);
      if (fact === null) continue;
      const result = await client.query<{ fact_id: Integer }>(
        `INSERT INTO ${this.facts} (${FACT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING fact_id`,
        [saveId, turnId, fact.statement, fact.factType, fact.who, fact.what, fact.when, fact.where, fact.why, JSON.stringify(fact.entities), JSON.stringify(fact.entities.map(nameKey))],
      );
      const factId = Number(result.rows[0]?.fact_id);
      ids.push(factId);
      input.factId = factId;
      input.turnId = turnId;
    }
    return ids;
  }

  async insertFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    return this.store.write((client) => this.insertFactsWithin(client, saveId, turnId, facts));
  }

  private async replaceTurnFactsWithin(client: SqlClient, saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    const deleted = await client.query<{ fact_id: Integer }>(`DELETE FROM ${this.facts} WHERE save_id = $1 AND turn_id = $2 RETURNING fact_id`, [saveId, turnId]);
    if (deleted.rows.length > 0) await this.undoTurnWithin(client, saveId, turnId, new Set(deleted.rows.map((row) => Number(row.fact_id))));
    return this.insertFactsWithin(client, saveId, turnId, facts);
  }

  /** Undoes what a turn's earlier extraction led to (see reextractBelief); models refreshed last at that turn go back too. */
  private async undoTurnWithin(client: SqlClient, saveId: string, turnId: number, gone: ReadonlySet<number>): Promise<void> {
    const changedThen = (await client.query<BeliefRow>(`SELECT ${BELIEF_COLUMNS} FROM ${this.beliefs} WHERE save_id = $1 AND updated_turn_id = $2 ORDER BY belief_id`, [saveId, turnId])).rows.map(toRecord);
    const citing = await this.beliefRecords(client, saveId, { factIds: [...gone], includeDeleted: true });
    const candidates = new Map([...changedThen, ...citing].map((record) => [record.beliefId, record]));
    for (const record of candidates.values()) {
      const next = reextractBelief(record, turnId, gone);
      if (next === null) await client.query(`DELETE FROM ${this.beliefs} WHERE belief_id = $1`, [record.beliefId]);
      else if (next !== undefined) await this.writeBelief(client, next);
    }
    const models = (await client.query<ModelRow>(`SELECT * FROM ${this.models} WHERE save_id = $1 AND updated_turn_id = $2 ORDER BY model_id`, [saveId, turnId])).rows;
    for (const row of models) {
      const modelId = Number(row.model_id);
      await client.query(`DELETE FROM ${this.versions} WHERE model_id = $1 AND turn_id >= $2`, [modelId, turnId]);
      const { model } = rewindModel(toModel(row), await this.latestVersion(client, modelId, turnId - 1), turnId - 1);
      if (model === null) {
        await client.query(`DELETE FROM ${this.versions} WHERE model_id = $1`, [modelId]);
        await client.query(`DELETE FROM ${this.models} WHERE model_id = $1`, [modelId]);
      } else {
        await client.query(`UPDATE ${this.models} SET summary = $1, sources = $2, updated_turn_id = $3, stale = 1 WHERE model_id = $4`, [model.summary, JSON.stringify(model.sources), model.updatedTurnId, modelId]);
      }
    }
  }

  async replaceTurnFacts(saveId: string, turnId: number, facts: FactInput[]): Promise<number[]> {
    return this.store.write((client) => this.replaceTurnFactsWithin(client, saveId, turnId, facts));
  }

  async getFacts(saveId: string, query: FactQuery = {}): Promise<Fact[]> {
    const params: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    const clauses = ['save_id = $1', 'turn_id <= $2'];
    if (query.turnId !== undefined) clauses.push(`turn_id = $${params.push(query.turnId)}`);
    if (query.entity !== undefined) clauses.push(`EXISTS (SELECT 1 FROM jsonb_array_elements_text(entity_keys::jsonb) AS key WHERE key = $${params.push(nameKey(query.entity))})`);
    const result = await this.read().query<FactRow>(
      `SELECT * FROM ${this.facts} WHERE ${clauses.join(' AND ')} ORDER BY turn_id DESC, fact_id DESC LIMIT $${params.push(query.limit ?? null)}`,
      params,
    );
    return result.rows.map(toFact);
  }

  async countFacts(saveId: string): Promise<number> {
    return this.countWhere(this.facts, 'save_id = $1', [saveId]);
  }

  private async rollbackFactsWithin(client: SqlClient, saveId: string, target: number): Promise<number> {
    return (await client.query(`DELETE FROM ${this.facts} WHERE save_id = $1 AND turn_id > $2`, [saveId, target])).rowCount;
  }

  async rollbackFacts(saveId: string, targetTurnId: number): Promise<number> {
    return this.store.write((client) => this.rollbackFactsWithin(client, saveId, targetTurnId));
  }

  // ---- beliefs ----

  private async beliefRecords(client: SqlClient, saveId: string, query: BeliefQuery = {}): Promise<BeliefRecord[]> {
    const params: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    const clauses = ['save_id = $1', 'created_turn_id <= $2'];
    if (!query.includeDeleted) clauses.push('deleted_turn_id IS NULL');
    if (query.subject !== undefined) clauses.push(`subject_key = $${params.push(nameKey(query.subject))}`);
    if (query.factIds !== undefined) {
      if (query.factIds.length === 0) return [];
      clauses.push(`EXISTS (SELECT 1 FROM jsonb_array_elements(sources::jsonb) AS source WHERE (source->>'factId')::bigint = ANY ($${params.push([...query.factIds])}::bigint[]))`);
    }
    const result = await client.query<BeliefRow>(
      `SELECT ${BELIEF_COLUMNS} FROM ${this.beliefs} WHERE ${clauses.join(' AND ')} ORDER BY updated_turn_id DESC, belief_id DESC LIMIT $${params.push(query.limit ?? null)}`,
      params,
    );
    return result.rows.map(toRecord);
  }

  private async beliefRecord(client: SqlClient, saveId: string, beliefId: number): Promise<BeliefRecord | null> {
    const result = await client.query<BeliefRow>(`SELECT ${BELIEF_COLUMNS} FROM ${this.beliefs} WHERE belief_id = $1 AND save_id = $2 FOR UPDATE`, [beliefId, saveId]);
    const row = result.rows[0];
    return row === undefined ? null : toRecord(row);
  }

  private async insertBeliefRecord(client: SqlClient, saveId: string, record: BeliefRecord): Promise<number> {
    const result = await client.query<{ belief_id: Integer }>(
      `INSERT INTO ${this.beliefs} (save_id, statement, subject, subject_key, proof_count, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING belief_id`,
      [saveId, record.statement, record.subject, nameKey(record.subject), record.sources.length, JSON.stringify(record.sources), JSON.stringify(record.history),
        record.createdTurnId, record.updatedTurnId, record.deletedTurnId, record.stale ? 1 : 0],
    );
    return Number(result.rows[0]?.belief_id);
  }

  private async writeBelief(client: SqlClient, record: BeliefRecord): Promise<void> {
    await client.query(
      `UPDATE ${this.beliefs} SET statement = $1, subject = $2, subject_key = $3, proof_count = $4, sources = $5, history = $6, updated_turn_id = $7,
       deleted_turn_id = $8, stale = $9 WHERE belief_id = $10`,
      [record.statement, record.subject, nameKey(record.subject), record.sources.length, JSON.stringify(record.sources), JSON.stringify(record.history),
        record.updatedTurnId, record.deletedTurnId, record.stale ? 1 : 0, record.beliefId],
    );
  }

  async insertBelief(saveId: string, belief: BeliefInput): Promise<number | null> {
    const record = beliefFromInput(belief);
    if (record === null) return null;
    return this.store.write((client) => this.insertBeliefRecord(client, saveId, record));
  }

  async getBeliefs(saveId: string, query: BeliefQuery = {}): Promise<Belief[]> {
    return (await this.beliefRecords(this.read(), saveId, query)).map(toBelief);
  }

  async countBeliefs(saveId: string): Promise<number> {
    return this.countWhere(this.beliefs, 'save_id = $1 AND deleted_turn_id IS NULL', [saveId]);
  }

  private async applyConsolidationWithin(client: SqlClient, saveId: string, turnId: number, actions: readonly ConsolidationAction[], factTurnMap: ReadonlyMap<number, number>): Promise<ConsolidationCounts> {
    const counts: ConsolidationCounts = { created: 0, updated: 0, deleted: 0, skipped: 0 };
    for (const action of actions) {
      if (action.kind === 'CREATE') {
        const record = createBelief(action, turnId, factTurnMap);
        if (record === null) counts.skipped++;
        else {
          await this.insertBeliefRecord(client, saveId, record);
          counts.created++;
        }
        continue;
      }
      const current = action.beliefId === null ? null : await this.beliefRecord(client, saveId, action.beliefId);
      const next = current === null ? null : action.kind === 'UPDATE' ? updateBelief(current, action, turnId, factTurnMap) : deleteBelief(current, turnId);
      if (next === null) {
        counts.skipped++;
        continue;
      }
      await this.writeBelief(client, next);
      if (action.kind === 'UPDATE') counts.updated++;
      else counts.deleted++;
    }
    return counts;
  }

  async applyConsolidation(saveId: string, turnId: number, actions: readonly ConsolidationAction[], factTurnMap: ReadonlyMap<number, number>): Promise<ConsolidationCounts> {
    return this.store.write((client) => this.applyConsolidationWithin(client, saveId, turnId, actions, factTurnMap));
  }

  private async rollbackBeliefsWithin(client: SqlClient, saveId: string, target: number): Promise<{ deleted: number; updated: number }> {
    const deleted = (await client.query(`DELETE FROM ${this.beliefs} WHERE save_id = $1 AND created_turn_id > $2`, [saveId, target])).rowCount;
    // Every change, attached source and DELETE of a belief moves updated_turn_id (see BeliefRecord), so this finds them all.
    const rows = (await client.query<BeliefRow>(`SELECT ${BELIEF_COLUMNS} FROM ${this.beliefs} WHERE save_id = $1 AND updated_turn_id > $2 ORDER BY belief_id`, [saveId, target])).rows;
    let updated = 0;
    for (const row of rows) {
      const { record, changed } = rewindBelief(toRecord(row), target);
      if (record === null || !changed) continue;
      await this.writeBelief(client, record);
      updated++;
    }
    return { deleted, updated };
  }

  async rollbackBeliefs(saveId: string, targetTurnId: number): Promise<{ deleted: number; updated: number }> {
    return this.store.write((client) => this.rollbackBeliefsWithin(client, saveId, targetTurnId));
  }

  // ---- mental models ----

  private async upsertModelWithin(client: SqlClient, saveId: string, subject: string, summary: string, turnId: number, sources: readonly number[]): Promise<number | null> {
    const text = summary.trim();
    if (text === '') return null;
    const key = nameKey(subject);
    const existing = (await client.query<{ model_id: Integer }>(`SELECT model_id FROM ${this.models} WHERE save_id = $1 AND subject_key = $2 FOR UPDATE`, [saveId, key])).rows[0];
    let modelId: number;
    if (existing === undefined) {
      const inserted = await client.query<{ model_id: Integer }>(
        `INSERT INTO ${this.models} (save_id, subject, subject_key, summary, sources, created_turn_id, updated_turn_id, stale) VALUES ($1, $2, $3, $4, $5, $6, $6, 0) RETURNING model_id`,
        [saveId, subject.trim(), key, text, JSON.stringify(sources), turnId],
      );
      modelId = Number(inserted.rows[0]?.model_id);
    } else {
      modelId = Number(existing.model_id);
      await client.query(`UPDATE ${this.models} SET summary = $1, sources = $2, updated_turn_id = $3, stale = 0 WHERE model_id = $4`, [text, JSON.stringify(sources), turnId, modelId]);
    }
    await client.query(`DELETE FROM ${this.versions} WHERE model_id = $1 AND turn_id = $2`, [modelId, turnId]);
    await client.query(`INSERT INTO ${this.versions} (model_id, save_id, turn_id, summary, sources) VALUES ($1, $2, $3, $4, $5)`, [modelId, saveId, turnId, text, JSON.stringify(sources)]);
    return modelId;
  }

  async upsertModel(saveId: string, subject: string, summary: string, turnId: number, sources: readonly number[] = []): Promise<number | null> {
    return this.store.write((client) => this.upsertModelWithin(client, saveId, subject, summary, turnId, sources));
  }

  async getModels(saveId: string, query: ModelQuery = {}): Promise<MentalModel[]> {
    const params: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    const clauses = ['save_id = $1', 'created_turn_id <= $2'];
    if (query.subject !== undefined) clauses.push(`subject_key = $${params.push(nameKey(query.subject))}`);
    const result = await this.read().query<ModelRow>(
      `SELECT * FROM ${this.models} WHERE ${clauses.join(' AND ')} ORDER BY updated_turn_id DESC, model_id DESC LIMIT $${params.push(query.limit ?? null)}`,
      params,
    );
    return result.rows.map(toModel);
  }

  async countModels(saveId: string): Promise<number> {
    return this.countWhere(this.models, 'save_id = $1', [saveId]);
  }

  async staleSubjects(saveId: string, options: { maxTurnId?: number; limit?: number } = {}): Promise<string[]> {
    const result = await this.read().query<{ subject: string }>(
      `SELECT subject FROM ${this.models} WHERE save_id = $1 AND stale = 1 AND created_turn_id <= $2 ORDER BY updated_turn_id ASC, model_id ASC LIMIT $3`,
      [saveId, options.maxTurnId ?? MAX_TURN, options.limit ?? 5],
    );
    return result.rows.map((row) => row.subject);
  }

  private async latestVersion(client: SqlClient, modelId: number, target: number): Promise<ModelVersion | null> {
    const result = await client.query<{ turn_id: Integer; summary: string; sources: string }>(
      `SELECT turn_id, summary, sources FROM ${this.versions} WHERE model_id = $1 AND turn_id <= $2 ORDER BY turn_id DESC, version_id DESC LIMIT 1`,
      [modelId, target],
    );
    const row = result.rows[0];
    return row === undefined ? null : { turnId: Number(row.turn_id), summary: row.summary, sources: JSON.parse(row.sources) as number[] };
  }

  private async rollbackModelsWithin(client: SqlClient, saveId: string, target: number): Promise<{ deleted: number; updated: number }> {
    await client.query(`DELETE FROM ${this.versions} WHERE save_id = $1 AND turn_id > $2`, [saveId, target]);
    const deleted = (await client.query(`DELETE FROM ${this.models} WHERE save_id = $1 AND created_turn_id > $2`, [saveId, target])).rowCount;
    const rows = (await client.query<ModelRow>(`SELECT * FROM ${this.models} WHERE save_id = $1 AND updated_turn_id > $2 ORDER BY model_id`, [saveId, target])).rows;
    for (const row of rows) {
      const modelId = Number(row.model_id);
      const { model } = rewindModel(toModel(row), await this.latestVersion(client, modelId, target), target);
      if (model === null) continue;
      await client.query(`UPDATE ${this.models} SET summary = $1, sources = $2, updated_turn_id = $3, stale = 1 WHERE model_id = $4`, [model.summary, JSON.stringify(model.sources), model.updatedTurnId, modelId]);
    }
    return { deleted, updated: rows.length };
  }

  async rollbackModels(saveId: string, targetTurnId: number): Promise<{ deleted: number; updated: number }> {
    return this.store.write((client) => this.rollbackModelsWithin(client, saveId, targetTurnId));
  }

  // ---- whole layer: rewind and fork ----

  /** Rolls the whole layer back inside the caller's transaction (used by PostgresStore.rewind). */
  async rollbackWithin(client: SqlClient, saveId: string, target: number): Promise<LivingRewindCounts> {
    const facts = await this.rollbackFactsWithin(client, saveId, target);
    const beliefs = await this.rollbackBeliefsWithin(client, saveId, target);
    const models = await this.rollbackModelsWithin(client, saveId, target);
    const jobsCancelled = (await client.query(`DELETE FROM ${this.jobs} WHERE save_id = $1 AND turn_id > $2`, [saveId, target])).rowCount;
    return { facts, beliefsDeleted: beliefs.deleted, beliefsUpdated: beliefs.updated, modelsDeleted: models.deleted, modelsUpdated: models.updated, jobsCancelled };
  }

  async rollback(saveId: string, targetTurnId: number): Promise<LivingRewindCounts> {
    return this.store.write((client) => this.rollbackWithin(client, saveId, targetTurnId));
  }

  /** True when the save holds any living data (facts, beliefs, models or jobs). */
  async holdsData(client: SqlClient, saveId: string): Promise<boolean> {
    for (const table of [this.facts, this.beliefs, this.models, this.jobs]) {
      if ((await client.query(`SELECT 1 FROM ${table} WHERE save_id = $1 LIMIT 1`, [saveId])).rows.length > 0) return true;
    }
    return false;
  }

  /**
   * Copies the layer's state of `saveId` as of `atTurn` into `newSaveId` inside the caller's transaction: facts of
   * turns <= atTurn, beliefs and models as a rewind to atTurn would leave them, and the jobs of those turns (running
   * ones reset to pending). New ids throughout; belief sources and model sources remapped.
   */
  async forkWithin(client: SqlClient, saveId: string, newSaveId: string, atTurn: number): Promise<LivingForkCounts> {
    const factIds = new Map<number, number>();
    const facts = (await client.query<{ fact_id: Integer }>(`SELECT fact_id FROM ${this.facts} WHERE save_id = $1 AND turn_id <= $2 ORDER BY fact_id`, [saveId, atTurn])).rows;
    for (const row of facts) {
      const copied = await client.query<{ fact_id: Integer }>(
        `INSERT INTO ${this.facts} (${FACT_COLUMNS}) SELECT $1, turn_id, statement, fact_type, who, what, when_text, where_text, why, entities, entity_keys
         FROM ${this.facts} WHERE fact_id = $2 RETURNING fact_id`,
        [newSaveId, row.fact_id],
      );
      factIds.set(Number(row.fact_id), Number(copied.rows[0]?.fact_id));
    }

    const beliefIds = new Map<number, number>();
    const mapFact = (id: number) => factIds.get(id) ?? id;
    const beliefs = (await client.query<BeliefRow>(`SELECT ${BELIEF_COLUMNS} FROM ${this.beliefs} WHERE save_id = $1 AND created_turn_id <= $2 ORDER BY belief_id`, [saveId, atTurn])).rows;
    for (const row of beliefs) {
      const { record } = rewindBelief(toRecord(row), atTurn);
      if (record === null) continue;
      const copy: BeliefRecord = {
        ...record,
        sources: record.sources.map((source) => ({ ...source, factId: mapFact(source.factId) })),
        history: record.history.map((change) => ({ ...change, factIds: change.factIds.map(mapFact) })),
      };
      beliefIds.set(Number(row.belief_id), await this.insertBeliefRecord(client, newSaveId, copy));
    }

    const mapBeliefs = (ids: readonly number[]) => ids.flatMap((id) => (beliefIds.has(id) ? [beliefIds.get(id) as number] : []));
    const models = (await client.query<ModelRow>(`SELECT * FROM ${this.models} WHERE save_id = $1 AND created_turn_id <= $2 ORDER BY model_id`, [saveId, atTurn])).rows;
    for (const row of models) {
      const modelId = Number(row.model_id);
      const { model } = rewindModel(toModel(row), await this.latestVersion(client, modelId, atTurn), atTurn);
      if (model === null) continue;
      const inserted = await client.query<{ model_id: Integer }>(
        `INSERT INTO ${this.models} (save_id, subject, subject_key, summary, sources, created_turn_id, updated_turn_id, stale) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING model_id`,
        [newSaveId, model.subject, nameKey(model.subject), model.summary, JSON.stringify(mapBeliefs(model.sources)), model.createdTurnId, model.updatedTurnId, model.stale ? 1 : 0],
      );
      const versions = (await client.query<{ turn_id: Integer; summary: string; sources: string }>(
        `SELECT turn_id, summary, sources FROM ${this.versions} WHERE model_id = $1 AND turn_id <= $2 ORDER BY version_id`,
        [modelId, atTurn],
      )).rows;
      for (const version of versions) {
        await client.query(`INSERT INTO ${this.versions} (model_id, save_id, turn_id, summary, sources) VALUES ($1, $2, $3, $4, $5)`, [
          Number(inserted.rows[0]?.model_id), newSaveId, version.turn_id, version.summary, JSON.stringify(mapBeliefs(JSON.parse(version.sources) as number[])),
        ]);
      }
    }

    const jobs = (await client.query(
      `INSERT INTO ${this.jobs} (save_id, turn_id, stage, status, generation, attempts, payload, subjects, claimed_by, claim_token, claimed_at, not_before, last_error, created_at, updated_at)
       SELECT $1, turn_id, stage, CASE status WHEN 'running' THEN 'pending' ELSE status END, generation, attempts, payload, subjects, NULL, NULL, NULL, not_before, last_error, created_at, updated_at
       FROM ${this.jobs} WHERE save_id = $2 AND turn_id <= $3 ORDER BY job_id`,
      [newSaveId, saveId, atTurn],
    )).rowCount;
    return { facts: facts.length, beliefs: beliefIds.size, models: models.length, jobs };
  }

  // ---- jobs ----

  /** A job, its row locked for the rest of the caller's transaction. */
  private async lockedJob(client: SqlClient, jobId: number): Promise<LivingJob | undefined> {
    const row = (await client.query<JobRow>(`SELECT * FROM ${this.jobs} WHERE job_id = $1 FOR UPDATE`, [jobId])).rows[0];
    return row === undefined ? undefined : toJob(row);
  }

  async enqueueTurn(saveId: string, turnId: number, payload: JobPayload, now: number): Promise<LivingJob> {
    return this.store.write(async (client) => {
      const result = await client.query<JobRow>(
        `INSERT INTO ${this.jobs} AS j (save_id, turn_id, stage, status, generation, attempts, payload, subjects, not_before, created_at, updated_at)
         VALUES ($1, $2, 'extract', 'pending', 1, 0, $3, '[]', 0, $4, $4)
         ON CONFLICT (save_id, turn_id) DO UPDATE SET stage = 'extract', status = 'pending', generation = j.generation + 1, attempts = 0,
           payload = EXCLUDED.payload, subjects = '[]', claimed_by = NULL, claim_token = NULL, claimed_at = NULL, not_before = 0, last_error = NULL, updated_at = EXCLUDED.updated_at
         RETURNING *`,
        [saveId, turnId, JSON.stringify(payload), now],
      );
      return toJob(result.rows[0] as JobRow);
    });
  }

  async claimJob(request: ClaimRequest): Promise<LivingJob | null> {
    return this.store.write(async (client) => {
      // One claim at a time across every process, as SQLite's write lock gives: two workers never take one job.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.claimLock]);
      const rows = (request.saveId === undefined
        ? await client.query<JobRow>(`SELECT * FROM ${this.jobs} WHERE status IN ('pending', 'running') ORDER BY save_id COLLATE "C", turn_id`)
        : await client.query<JobRow>(`SELECT * FROM ${this.jobs} WHERE status IN ('pending', 'running') AND save_id = $1 ORDER BY turn_id`, [request.saveId])).rows;
      const job = queueHeads(rows.map(toJob)).find((head) => isClaimable(head, request));
      if (job === undefined) return null;
      const token = randomUUID();
      await client.query(`UPDATE ${this.jobs} SET status = 'running', claimed_by = $1, claim_token = $2, claimed_at = $3, updated_at = $3 WHERE job_id = $4`, [request.workerId, token, request.now, job.jobId]);
      return { ...job, status: 'running' as const, claimedBy: request.workerId, claimToken: token, claimedAt: request.now, updatedAt: request.now };
    });
  }

  async renewClaim(claim: JobClaim, now: number): Promise<boolean> {
    return this.store.write(async (client) => {
      if (!holdsClaim(await this.lockedJob(client, claim.jobId), claim)) return false;
      await client.query(`UPDATE ${this.jobs} SET claimed_at = $1 WHERE job_id = $2`, [now, claim.jobId]);
      return true;
    });
  }

  async completeStage(claim: JobClaim, commit: StageCommit, now: number): Promise<boolean> {
    return this.store.write(async (client) => {
      const job = await this.lockedJob(client, claim.jobId);
      if (!holdsClaim(job, claim) || job.stage !== commit.stage) return false;
      let subjects = job.subjects;
      if (commit.stage === 'extract') await this.replaceTurnFactsWithin(client, job.saveId, job.turnId, commit.facts);
      else if (commit.stage === 'consolidate') {
        await this.applyConsolidationWithin(client, job.saveId, job.turnId, commit.actions, commit.factTurnMap);
        subjects = commit.subjects;
      } else {
        for (const model of commit.models) await this.upsertModelWithin(client, job.saveId, model.subject, model.summary, job.turnId, model.sources);
      }
      const stage = NEXT_STAGE[commit.stage];
      const done = stage === 'done';
      await client.query(
        `UPDATE ${this.jobs} SET stage = $1, status = $2, attempts = 0, last_error = NULL, subjects = $3, claimed_at = $4, updated_at = $5,
         claimed_by = CASE WHEN $6 THEN NULL ELSE claimed_by END, claim_token = CASE WHEN $6 THEN NULL ELSE claim_token END WHERE job_id = $7`,
        [stage, done ? 'done' : 'running', JSON.stringify(subjects), done ? null : now, now, done, claim.jobId],
      );
      return true;
    });
  }

  async failStage(claim: JobClaim, error: string, retryAt: number | null, now: number): Promise<boolean> {
    return this.store.write(async (client) => {
      if (!holdsClaim(await this.lockedJob(client, claim.jobId), claim)) return false;
      await client.query(
        `UPDATE ${this.jobs} SET status = $1, attempts = attempts + 1, not_before = $2, last_error = $3, claimed_by = NULL, claim_token = NULL, claimed_at = NULL, updated_at = $4
         WHERE job_id = $5`,
        [retryAt === null ? 'failed' : 'pending', retryAt ?? 0, error.slice(0, 2000), now, claim.jobId],
      );
      return true;
    });
  }

  async releaseClaim(claim: JobClaim, now: number): Promise<boolean> {
    return this.store.write(async (client) => {
      if (!holdsClaim(await this.lockedJob(client, claim.jobId), claim)) return false;
      await client.query(`UPDATE ${this.jobs} SET status = 'pending', claimed_by = NULL, claim_token = NULL, claimed_at = NULL, updated_at = $1 WHERE job_id = $2`, [now, claim.jobId]);
      return true;
    });
  }

  async retryFailed(saveId: string | undefined, now: number): Promise<number> {
    return this.store.write(async (client) => (saveId === undefined
      ? await client.query(`UPDATE ${this.jobs} SET status = 'pending', attempts = 0, not_before = 0, updated_at = $1 WHERE status = 'failed'`, [now])
      : await client.query(`UPDATE ${this.jobs} SET status = 'pending', attempts = 0, not_before = 0, updated_at = $1 WHERE status = 'failed' AND save_id = $2`, [now, saveId])).rowCount);
  }

  async listJobs(query: { saveId?: string; status?: JobStatus; limit?: number } = {}): Promise<LivingJob[]> {
    const params: unknown[] = [];
    const clauses: string[] = [];
    if (query.saveId !== undefined) clauses.push(`save_id = $${params.push(query.saveId)}`);
    if (query.status !== undefined) clauses.push(`status = $${params.push(query.status)}`);
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    const result = await this.read().query<JobRow>(`SELECT * FROM ${this.jobs} ${where} ORDER BY save_id COLLATE "C", turn_id LIMIT $${params.push(query.limit ?? null)}`, params);
    return result.rows.map(toJob);
  }

  async countJobs(saveId?: string): Promise<JobCounts> {
    const result = saveId === undefined
      ? await this.read().query<{ status: JobStatus; n: Integer }>(`SELECT status, COUNT(*) AS n FROM ${this.jobs} GROUP BY status`)
      : await this.read().query<{ status: JobStatus; n: Integer }>(`SELECT status, COUNT(*) AS n FROM ${this.jobs} WHERE save_id = $1 GROUP BY status`, [saveId]);
    const counts: JobCounts = { pending: 0, running: 0, done: 0, failed: 0 };
    for (const row of result.rows) counts[row.status] = Number(row.n);
    return counts;
  }

  private async countWhere(table: string, where: string, params: unknown[]): Promise<number> {
    const result = await this.read().query<{ n: Integer }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
    return Number(result.rows[0]?.n ?? 0);
  }
}
