// The PostgreSQL rows of living memory (the LivingRows port): Mnemo's living tables, each batch one statement
// (`unnest` of parameter arrays), so a rewind or a fork costs a fixed number of round trips whatever its size.
// Only SQL lives here; the algorithms are src/living/store/, awaited on one transaction's client.
import { runRowProgramAsync } from '../../core/row-program.js';
import type { AsyncPort } from '../../core/row-program.js';
import { nameKey } from '../../core/living-rules.js';
import type { BeliefRecord, ModelVersion } from '../../core/living-rules.js';
import type { Fact, FactsVersion, LivingJob, MentalModel } from '../../core/living-types.js';
import type { BeliefsAfter, JobFields, JobQuery, LivingBackend, LivingRows, ModelsAfter, QueuedJobFields, StoredModelVersion } from '../../seams/living-rows.js';
import type { BeliefQuery, FactQuery, JobCounts, ModelQuery } from '../../seams/living-store.js';
import { BELIEF_COLUMNS, FACT_COLUMNS, beliefFromRow, factFromRow, jobColumns, jobFromRow, modelFromRow, versionFromRow } from '../sql/living-columns.js';
import type { BeliefRow, FactRow, JobRow, ModelRow, VersionRow } from '../sql/living-columns.js';
import { quoteIdentifier, quoteLiteral } from './identifiers.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { SqlClient } from './queryable.js';
import { hideRowsAfter, pendingRewinds, rewoundTables, visibleAmong, visibleRow } from './rewound-rows.js';
import type { RewoundTable } from './rewound-rows.js';

type Integer = string | number;

const MAX_TURN = Number.MAX_SAFE_INTEGER;
const flag = (value: boolean) => (value ? 1 : 0);
/** Joins JSON texts into one parameter (see updateBeliefs): a character JSON.stringify never writes. */
const TEXT_SEPARATOR = '\u0001';
/** New ids of one INSERT ... SELECT ... ORDER BY: identity values follow the insertion order, so sorted they match it. */
const insertedIds = (rows: Record<string, Integer>[], column: string) => rows.map((row) => Number(row[column])).sort((a, b) => a - b);

/** The qualified names of the living tables of one schema, and its claim lock's key. */
export interface LivingTables {
  facts: string;
  beliefs: string;
  models: string;
  versions: string;
  jobs: string;
  claimLock: string;
  /** The facts with their rewind records (src/stores/postgres/rewound-rows.ts): every read of facts applies them. */
  rewoundFacts: RewoundTable;
}

/**
 * The living tables of `schema`.
 *
 * @example
 * ```ts
 * livingTables('mnemo').facts; // '"mnemo"."living_facts"'
 * ```
 */
export function livingTables(schema: string): LivingTables {
  const table = (name: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
  return {
    facts: table('living_facts'),
    beliefs: table('living_beliefs'),
    models: table('living_models'),
    versions: table('living_model_versions'),
    jobs: table('living_jobs'),
    claimLock: `mnemo:living-claims:${quoteIdentifier(schema)}`,
    rewoundFacts: rewoundTables(schema).facts,
  };
}

/**
 * Living memory's rows on one PostgreSQL client (a transaction's, or the pool for reads). Locks are row locks
 * (`FOR UPDATE`) held until the transaction ends; claims are serialised by an advisory lock.
 *
 * @example
 * ```ts
 * await sql.transaction((client) => runRowProgramAsync(rewindLiving('run-1', 12), new PostgresLivingRows(client, livingTables('mnemo'))));
 * ```
 */
export class PostgresLivingRows implements AsyncPort<LivingRows> {
  constructor(private readonly client: SqlClient, private readonly tables: LivingTables) {}

  private async rows<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
    return (await this.client.query<Row>(text, params)).rows;
  }

  private async changes(text: string, params: readonly unknown[]): Promise<number> {
    return (await this.client.query(text, params)).rowCount;
  }

  /** A fact `alias` of the save `save` (SQL) that no pending rewind hides. */
  private visibleFact(alias: string, save: string): string {
    return visibleRow(this.tables.rewoundFacts, alias, save);
  }

  private async count(table: string, where: string, params: readonly unknown[]): Promise<number> {
    const [row] = await this.rows<{ n: Integer }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
    return Number(row?.n ?? 0);
  }

  // ---- facts ----

  async insertFacts(saveId: string, facts: readonly Fact[]): Promise<number[]> {
    const rows = await this.rows<{ fact_id: Integer }>(
      `INSERT INTO ${this.tables.facts} (save_id, ${FACT_COLUMNS})
       SELECT $1, ${FACT_COLUMNS} FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
         WITH ORDINALITY AS input (${FACT_COLUMNS}, position)
       ORDER BY position RETURNING fact_id`,
      [
        saveId, facts.map((fact) => fact.turnId), facts.map((fact) => fact.statement), facts.map((fact) => fact.factType), facts.map((fact) => fact.who),
        facts.map((fact) => fact.what), facts.map((fact) => fact.when), facts.map((fact) => fact.where), facts.map((fact) => fact.why),
        facts.map((fact) => JSON.stringify(fact.entities)), facts.map((fact) => JSON.stringify(fact.entities.map(nameKey))),
      ],
    );
    return insertedIds(rows, 'fact_id');
  }

  async deleteTurnFacts(saveId: string, turnId: number): Promise<number[]> {
    const rows = await this.rows<{ fact_id: Integer }>(`DELETE FROM ${this.tables.facts} f WHERE f.save_id = $1 AND f.turn_id = $2 AND ${this.visibleFact('f', '$1')} RETURNING f.fact_id`, [saveId, turnId]);
    return rows.map((row) => Number(row.fact_id));
  }

  deleteFactsAfter(saveId: string, turnId: number): Promise<number> {
    // Hidden at once and deleted by the store's background purge: deleting many rows here would write each one.
    return hideRowsAfter(this.client, this.tables.rewoundFacts, saveId, turnId);
  }

  async copyFacts(saveId: string, newSaveId: string, atTurn: number): Promise<[number, number][]> {
    // Both statements read the fork's one snapshot (REPEATABLE READ), so they see the same facts.
    const old = await this.rows<{ fact_id: Integer }>(`SELECT f.fact_id FROM ${this.tables.facts} f WHERE f.save_id = $1 AND f.turn_id <= $2 AND ${this.visibleFact('f', '$1')} ORDER BY f.fact_id`, [saveId, atTurn]);
    if (old.length === 0) return [];
    // The save ids are literals (see quoteLiteral): on Citus the copy then reads one shard and writes one, and the
    // source's rewind records are parameters, since it may read no second table.
    const rewinds = await pendingRewinds(this.client, this.tables.rewoundFacts, saveId);
    const copied = await this.rows<{ fact_id: Integer }>(
      `INSERT INTO ${this.tables.facts} (save_id, ${FACT_COLUMNS}) SELECT ${quoteLiteral(newSaveId)}, ${FACT_COLUMNS} FROM ${this.tables.facts} f
       WHERE f.save_id = ${quoteLiteral(saveId)} AND f.turn_id <= $1 AND ${visibleAmong(this.tables.rewoundFacts, 'f', '$2', '$3')} ORDER BY f.fact_id RETURNING fact_id`,
      [atTurn, rewinds.turns, rewinds.orders],
    );
    const newIds = insertedIds(copied, 'fact_id');
    return old.map((row, index) => [Number(row.fact_id), newIds[index] as number]);
  }

  async selectFacts(saveId: string, query: FactQuery): Promise<Fact[]> {
    const params: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    const clauses = ['f.save_id = $1', 'f.turn_id <= $2', this.visibleFact('f', '$1')];
    if (query.turnId !== undefined) clauses.push(`f.turn_id = $${params.push(query.turnId)}`);
    if (query.entity !== undefined) clauses.push(`EXISTS (SELECT 1 FROM jsonb_array_elements_text(f.entity_keys::jsonb) AS key WHERE key = $${params.push(nameKey(query.entity))})`);
    const rows = await this.rows<FactRow>(`SELECT f.* FROM ${this.tables.facts} f WHERE ${clauses.join(' AND ')} ORDER BY f.turn_id DESC, f.fact_id DESC LIMIT $${params.push(query.limit ?? null)}`, params);
    return rows.map(factFromRow);
  }

  countFacts(saveId: string): Promise<number> {
    return this.count(`${this.tables.facts} f`, `f.save_id = $1 AND ${this.visibleFact('f', '$1')}`, [saveId]);
  }

  async factsVersion(saveId: string): Promise<FactsVersion> {
    const [row] = await this.rows<{ n: Integer; last: Integer }>(
      `SELECT COUNT(*) AS n, COALESCE(MAX(f.fact_id), 0) AS last FROM ${this.tables.facts} f WHERE f.save_id = $1 AND ${this.visibleFact('f', '$1')}`,
      [saveId],
    );
    return { count: Number(row?.n ?? 0), lastFactId: Number(row?.last ?? 0) };
  }

  // ---- beliefs ----

  private async beliefs(where: string, params: readonly unknown[], tail = ''): Promise<BeliefRecord[]> {
    return (await this.rows<BeliefRow>(`SELECT ${BELIEF_COLUMNS} FROM ${this.tables.beliefs} WHERE ${where} ${tail}`, params)).map(beliefFromRow);
  }

  selectBeliefs(saveId: string, query: BeliefQuery): Promise<BeliefRecord[]> {
    const params: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    const clauses = ['save_id = $1', 'created_turn_id <= $2'];
    if (!query.includeDeleted) clauses.push('deleted_turn_id IS NULL');
    if (query.subject !== undefined) clauses.push(`subject_key = $${params.push(nameKey(query.subject))}`);
    if (query.factIds !== undefined) {
      if (query.factIds.length === 0) return Promise.resolve([]);
      clauses.push(`EXISTS (SELECT 1 FROM jsonb_array_elements(sources::jsonb) AS source WHERE (source->>'factId')::bigint = ANY ($${params.push([...query.factIds])}::bigint[]))`);
    }
    return this.beliefs(clauses.join(' AND '), params, `ORDER BY updated_turn_id DESC, belief_id DESC LIMIT $${params.push(query.limit ?? null)}`);
  }

  beliefsChangedAt(saveId: string, turnId: number): Promise<BeliefRecord[]> {
    return this.beliefs('save_id = $1 AND updated_turn_id = $2', [saveId, turnId], 'ORDER BY belief_id');
  }

  lockBeliefs(saveId: string, beliefIds: readonly number[]): Promise<BeliefRecord[]> {
    return this.beliefs('save_id = $1 AND belief_id = ANY ($2::bigint[])', [saveId, [...beliefIds]], 'ORDER BY belief_id FOR UPDATE');
  }

  async insertBeliefs(saveId: string, records: readonly BeliefRecord[]): Promise<number[]> {
    const rows = await this.rows<{ belief_id: Integer }>(
      `INSERT INTO ${this.tables.beliefs} (save_id, statement, subject, subject_key, proof_count, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale)
       SELECT $1, statement, subject, subject_key, proof_count, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::bigint[], $11::int[])
         WITH ORDINALITY AS input (statement, subject, subject_key, proof_count, sources, history, created_turn_id, updated_turn_id, deleted_turn_id, stale, position)
       ORDER BY position RETURNING belief_id`,
      [
        saveId, records.map((record) => record.statement), records.map((record) => record.subject), records.map((record) => nameKey(record.subject)),
        records.map((record) => record.sources.length), records.map((record) => JSON.stringify(record.sources)), records.map((record) => JSON.stringify(record.history)),
        records.map((record) => record.createdTurnId), records.map((record) => record.updatedTurnId), records.map((record) => record.deletedTurnId), records.map((record) => flag(record.stale)),
      ],
    );
    return insertedIds(rows, 'belief_id');
  }

  async updateBeliefs(saveId: string, records: readonly BeliefRecord[]): Promise<void> {
    // The sources and histories (a rewind rolls back 1,273 beliefs: about 1 MB of JSON) go as two texts, each the
    // rows' JSON texts joined by U+0001, which JSON.stringify never writes (it escapes every control character):
    // the server splits them (string_to_array) without reading any JSON, and nothing is escaped in this process (a
    // text array's elements would be, one by one; a json document's strings would be escaped here and read back
    // there, three passes over the megabyte on the server).
    await this.client.query(
      `UPDATE ${this.tables.beliefs} AS belief SET statement = input.statement, subject = input.subject, subject_key = input.subject_key, proof_count = input.proof_count,
         sources = input.sources, history = input.history, updated_turn_id = input.updated_turn_id, deleted_turn_id = input.deleted_turn_id, stale = input.stale
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::bigint[], $9::int[], string_to_array($10::text, chr(1)), string_to_array($11::text, chr(1)))
           AS input (belief_id, statement, subject, subject_key, proof_count, updated_turn_id, deleted_turn_id, stale, sources, history)
       WHERE belief.save_id = $1 AND belief.belief_id = input.belief_id`,
      [
        saveId, records.map((record) => record.beliefId), records.map((record) => record.statement), records.map((record) => record.subject), records.map((record) => nameKey(record.subject)),
        records.map((record) => record.sources.length), records.map((record) => record.updatedTurnId), records.map((record) => record.deletedTurnId), records.map((record) => flag(record.stale)),
        records.map((record) => JSON.stringify(record.sources)).join(TEXT_SEPARATOR), records.map((record) => JSON.stringify(record.history)).join(TEXT_SEPARATOR),
      ],
    );
  }

  async deleteBeliefs(saveId: string, beliefIds: readonly number[]): Promise<void> {
    await this.client.query(`DELETE FROM ${this.tables.beliefs} WHERE save_id = $1 AND belief_id = ANY ($2::bigint[])`, [saveId, [...beliefIds]]);
  }

  deleteBeliefsCreatedAfter(saveId: string, turnId: number): Promise<number> {
    // No index on created_turn_id (migration living-004): the save's beliefs are read through the primary key, which
    // costs less than writing that index again at every change of a belief.
    return this.changes(`DELETE FROM ${this.tables.beliefs} WHERE save_id = $1 AND created_turn_id > $2`, [saveId, turnId]);
  }

  async takeBeliefsAfter(saveId: string, turnId: number): Promise<BeliefsAfter> {
    // One statement: the SELECT reads the snapshot from before the DELETE, so it leaves the deleted beliefs out
    // itself; the count's row is always there, a row of nulls when no belief changed.
    const rows = await this.rows<{ deleted: Integer } & ({ belief_id: null } | BeliefRow)>(
      `WITH gone AS (DELETE FROM ${this.tables.beliefs} WHERE save_id = $1 AND created_turn_id > $2 RETURNING 1)
       SELECT gone.deleted, changed.* FROM (SELECT COUNT(*) AS deleted FROM gone) AS gone
         LEFT JOIN (SELECT ${BELIEF_COLUMNS} FROM ${this.tables.beliefs} WHERE save_id = $1 AND updated_turn_id > $2 AND created_turn_id <= $2) AS changed ON true
       ORDER BY changed.belief_id`,
      [saveId, turnId],
    );
    const changed = rows.filter((row): row is { deleted: Integer } & BeliefRow => row.belief_id !== null).map(beliefFromRow);
    return { deleted: Number(rows[0]?.deleted ?? 0), changed };
  }

  countBeliefs(saveId: string): Promise<number> {
    return this.count(this.tables.beliefs, 'save_id = $1 AND deleted_turn_id IS NULL', [saveId]);
  }

  // ---- mental models and their versions ----

  private async models(where: string, params: readonly unknown[], tail = ''): Promise<MentalModel[]> {
    return (await this.rows<ModelRow>(`SELECT * FROM ${this.tables.models} WHERE ${where} ${tail}`, params)).map(modelFromRow);
  }

  async lockModel(saveId: string, subject: string): Promise<MentalModel | null> {
    const [model] = await this.models('save_id = $1 AND subject_key = $2', [saveId, nameKey(subject)], 'FOR UPDATE');
    return model ?? null;
  }

  selectModels(saveId: string, query: ModelQuery): Promise<MentalModel[]> {
    const params: unknown[] = [saveId, query.maxTurnId ?? MAX_TURN];
    const clauses = ['save_id = $1', 'created_turn_id <= $2'];
    if (query.subject !== undefined) clauses.push(`subject_key = $${params.push(nameKey(query.subject))}`);
    return this.models(clauses.join(' AND '), params, `ORDER BY updated_turn_id DESC, model_id DESC LIMIT $${params.push(query.limit ?? null)}`);
  }

  modelsChangedAt(saveId: string, turnId: number): Promise<MentalModel[]> {
    return this.models('save_id = $1 AND updated_turn_id = $2', [saveId, turnId], 'ORDER BY model_id');
  }

  async staleSubjects(saveId: string, maxTurnId: number, limit: number): Promise<string[]> {
    const rows = await this.rows<{ subject: string }>(
      `SELECT subject FROM ${this.tables.models} WHERE save_id = $1 AND stale = 1 AND created_turn_id <= $2 ORDER BY updated_turn_id ASC, model_id ASC LIMIT $3`,
      [saveId, maxTurnId, limit],
    );
    return rows.map((row) => row.subject);
  }

  countModels(saveId: string): Promise<number> {
    return this.count(this.tables.models, 'save_id = $1', [saveId]);
  }

  async insertModels(saveId: string, models: readonly MentalModel[]): Promise<number[]> {
    const rows = await this.rows<{ model_id: Integer }>(
      `INSERT INTO ${this.tables.models} (save_id, subject, subject_key, summary, sources, created_turn_id, updated_turn_id, stale)
       SELECT $1, subject, subject_key, summary, sources, created_turn_id, updated_turn_id, stale
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::int[])
         WITH ORDINALITY AS input (subject, subject_key, summary, sources, created_turn_id, updated_turn_id, stale, position)
       ORDER BY position RETURNING model_id`,
      [
        saveId, models.map((model) => model.subject), models.map((model) => nameKey(model.subject)), models.map((model) => model.summary),
        models.map((model) => JSON.stringify(model.sources)), models.map((model) => model.createdTurnId), models.map((model) => model.updatedTurnId), models.map((model) => flag(model.stale)),
      ],
    );
    return insertedIds(rows, 'model_id');
  }

  async updateModels(saveId: string, models: readonly MentalModel[]): Promise<void> {
    await this.client.query(
      `UPDATE ${this.tables.models} AS model SET summary = input.summary, sources = input.sources, updated_turn_id = input.updated_turn_id, stale = input.stale
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::int[]) AS input (model_id, summary, sources, updated_turn_id, stale)
       WHERE model.save_id = $1 AND model.model_id = input.model_id`,
      [saveId, models.map((model) => model.modelId), models.map((model) => model.summary), models.map((model) => JSON.stringify(model.sources)), models.map((model) => model.updatedTurnId), models.map((model) => flag(model.stale))],
    );
  }

  async deleteModels(saveId: string, modelIds: readonly number[]): Promise<void> {
    await this.client.query(
      `WITH versions AS (DELETE FROM ${this.tables.versions} WHERE save_id = $1 AND model_id = ANY ($2::bigint[]))
       DELETE FROM ${this.tables.models} WHERE save_id = $1 AND model_id = ANY ($2::bigint[])`,
      [saveId, [...modelIds]],
    );
  }

  deleteModelsCreatedAfter(saveId: string, turnId: number): Promise<number> {
    return this.changes(`DELETE FROM ${this.tables.models} WHERE save_id = $1 AND created_turn_id > $2`, [saveId, turnId]);
  }

  async latestVersions(saveId: string, modelIds: readonly number[], turnId: number): Promise<Map<number, ModelVersion>> {
    const rows = await this.rows<VersionRow>(
      `SELECT DISTINCT ON (model_id) model_id, turn_id, summary, sources FROM ${this.tables.versions}
       WHERE save_id = $1 AND model_id = ANY ($2::bigint[]) AND turn_id <= $3 ORDER BY model_id, turn_id DESC, version_id DESC`,
      [saveId, [...modelIds], turnId],
    );
    return new Map(rows.map(versionFromRow).map(({ modelId, ...version }) => [modelId, version]));
  }

  async takeModelsAfter(saveId: string, turnId: number): Promise<ModelsAfter> {
    // One statement, as takeBeliefsAfter: the reads see the snapshot from before the DELETEs and leave out what they
    // delete; each changed model comes with its latest version by the turn (null columns when it has none).
    const rows = await this.rows<{ deleted: Integer; version_turn_id: Integer | null; version_summary: string | null; version_sources: string | null } & ({ model_id: null } | ModelRow)>(
      `WITH versions_gone AS (DELETE FROM ${this.tables.versions} WHERE save_id = $1 AND turn_id > $2),
         gone AS (DELETE FROM ${this.tables.models} WHERE save_id = $1 AND created_turn_id > $2 RETURNING 1),
         changed AS (SELECT model_id, subject, summary, sources, created_turn_id, updated_turn_id, stale FROM ${this.tables.models}
           WHERE save_id = $1 AND updated_turn_id > $2 AND created_turn_id <= $2),
         latest AS (SELECT DISTINCT ON (model_id) model_id, turn_id, summary, sources FROM ${this.tables.versions}
           WHERE save_id = $1 AND turn_id <= $2 AND model_id IN (SELECT model_id FROM changed) ORDER BY model_id, turn_id DESC, version_id DESC)
       SELECT gone.deleted, changed.*, latest.turn_id AS version_turn_id, latest.summary AS version_summary, latest.sources AS version_sources
       FROM (SELECT COUNT(*) AS deleted FROM gone) AS gone
         LEFT JOIN (changed LEFT JOIN latest ON latest.model_id = changed.model_id) ON true
       ORDER BY changed.model_id`,
      [saveId, turnId],
    );
    const changed: MentalModel[] = [];
    const latest = new Map<number, ModelVersion>();
    for (const row of rows) {
      if (row.model_id === null) continue;
      const model = modelFromRow(row);
      changed.push(model);
      if (row.version_turn_id === null) continue;
      const { modelId, ...version } = versionFromRow({ model_id: row.model_id, turn_id: row.version_turn_id, summary: row.version_summary as string, sources: row.version_sources as string });
      latest.set(modelId, version);
    }
    return { deleted: Number(rows[0]?.deleted ?? 0), changed, latest };
  }

  async versionsUpTo(saveId: string, modelIds: readonly number[], turnId: number): Promise<StoredModelVersion[]> {
    const rows = await this.rows<VersionRow>(
      `SELECT model_id, turn_id, summary, sources FROM ${this.tables.versions} WHERE save_id = $1 AND model_id = ANY ($2::bigint[]) AND turn_id <= $3 ORDER BY version_id`,
      [saveId, [...modelIds], turnId],
    );
    return rows.map(versionFromRow);
  }

  async insertVersions(saveId: string, versions: readonly StoredModelVersion[]): Promise<void> {
    await this.client.query(
      `INSERT INTO ${this.tables.versions} (model_id, save_id, turn_id, summary, sources)
       SELECT model_id, $1, turn_id, summary, sources FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[]) WITH ORDINALITY AS input (model_id, turn_id, summary, sources, position)
       ORDER BY position`,
      [saveId, versions.map((version) => version.modelId), versions.map((version) => version.turnId), versions.map((version) => version.summary), versions.map((version) => JSON.stringify(version.sources))],
    );
  }

  async deleteVersionsAt(saveId: string, modelId: number, turnId: number): Promise<void> {
    await this.client.query(`DELETE FROM ${this.tables.versions} WHERE save_id = $1 AND model_id = $2 AND turn_id = $3`, [saveId, modelId, turnId]);
  }

  async deleteVersionsFrom(saveId: string, modelIds: readonly number[], turnId: number): Promise<void> {
    await this.client.query(`DELETE FROM ${this.tables.versions} WHERE save_id = $1 AND model_id = ANY ($2::bigint[]) AND turn_id >= $3`, [saveId, [...modelIds], turnId]);
  }

  async deleteVersionsAfter(saveId: string, turnId: number): Promise<void> {
    await this.client.query(`DELETE FROM ${this.tables.versions} WHERE save_id = $1 AND turn_id > $2`, [saveId, turnId]);
  }

  // ---- jobs ----

  async lockClaims(): Promise<void> {
    // One claim at a time across every process, as SQLite's write lock gives: two workers never take one job.
    await this.client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.tables.claimLock]);
  }

  async openJobs(saveId: string | undefined): Promise<LivingJob[]> {
    const rows = saveId === undefined
      ? await this.rows<JobRow>(`SELECT * FROM ${this.tables.jobs} WHERE status IN ('pending', 'running') ORDER BY save_id COLLATE "C", turn_id`)
      : await this.rows<JobRow>(`SELECT * FROM ${this.tables.jobs} WHERE status IN ('pending', 'running') AND save_id = $1 ORDER BY turn_id`, [saveId]);
    return rows.map(jobFromRow);
  }

  async lockJob(saveId: string, jobId: number): Promise<LivingJob | undefined> {
    const [row] = await this.rows<JobRow>(`SELECT * FROM ${this.tables.jobs} WHERE save_id = $1 AND job_id = $2 FOR UPDATE`, [saveId, jobId]);
    return row === undefined ? undefined : jobFromRow(row);
  }

  async upsertJob(saveId: string, turnId: number, fields: QueuedJobFields): Promise<LivingJob> {
    const columns = jobColumns({ ...fields, generation: 1, createdAt: fields.updatedAt });
    const updates = columns.flatMap(([column]) => (column === 'generation' || column === 'created_at' ? [] : [`${column} = EXCLUDED.${column}`]));
    const [row] = await this.rows<JobRow>(
      `INSERT INTO ${this.tables.jobs} AS job (save_id, turn_id, ${columns.map(([column]) => column).join(', ')}) VALUES ($1, $2, ${columns.map((_, index) => `$${index + 3}`).join(', ')})
       ON CONFLICT (save_id, turn_id) DO UPDATE SET ${updates.join(', ')}, generation = job.generation + 1 RETURNING *`,
      [saveId, turnId, ...columns.map(([, value]) => value)],
    );
    return jobFromRow(row as JobRow);
  }

  async updateJob(saveId: string, jobId: number, fields: Partial<JobFields>): Promise<void> {
    const columns = jobColumns(fields);
    await this.client.query(
      `UPDATE ${this.tables.jobs} SET ${columns.map(([column], index) => `${column} = $${index + 3}`).join(', ')} WHERE save_id = $1 AND job_id = $2`,
      [saveId, jobId, ...columns.map(([, value]) => value)],
    );
  }

  updateFailedJobs(saveId: string | undefined, fields: Partial<JobFields>): Promise<number> {
    const columns = jobColumns(fields);
    const set = (first: number) => columns.map(([column], index) => `${column} = $${index + first}`).join(', ');
    const values = columns.map(([, value]) => value);
    return saveId === undefined
      ? this.changes(`UPDATE ${this.tables.jobs} SET ${set(1)} WHERE status = 'failed'`, values)
      : this.changes(`UPDATE ${this.tables.jobs} SET ${set(2)} WHERE status = 'failed' AND save_id = $1`, [saveId, ...values]);
  }

  async insertJobs(saveId: string, jobs: readonly LivingJob[]): Promise<void> {
    const column = <K extends keyof LivingJob>(key: K) => jobs.map((job) => job[key]);
    await this.client.query(
      `INSERT INTO ${this.tables.jobs} (save_id, turn_id, stage, status, generation, attempts, payload, subjects, claimed_by, claim_token, claimed_at, not_before, last_error, created_at, updated_at)
       SELECT $1, turn_id, stage, status, generation, attempts, payload, subjects, claimed_by, claim_token, claimed_at, not_before, last_error, created_at, updated_at
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[], $13::text[], $14::bigint[], $15::bigint[])
         WITH ORDINALITY AS input (turn_id, stage, status, generation, attempts, payload, subjects, claimed_by, claim_token, claimed_at, not_before, last_error, created_at, updated_at, position)
       ORDER BY position`,
      [
        saveId, column('turnId'), column('stage'), column('status'), column('generation'), column('attempts'),
        jobs.map((job) => JSON.stringify(job.payload)), jobs.map((job) => JSON.stringify(job.subjects)), column('claimedBy'), column('claimToken'), column('claimedAt'),
        column('notBefore'), column('lastError'), column('createdAt'), column('updatedAt'),
      ],
    );
  }

  deleteJobsAfter(saveId: string, turnId: number): Promise<number> {
    return this.changes(`DELETE FROM ${this.tables.jobs} WHERE save_id = $1 AND turn_id > $2`, [saveId, turnId]);
  }

  async selectJobs(query: JobQuery): Promise<LivingJob[]> {
    const params: unknown[] = [];
    const clauses: string[] = [];
    if (query.saveId !== undefined) clauses.push(`save_id = $${params.push(query.saveId)}`);
    if (query.status !== undefined) clauses.push(`status = $${params.push(query.status)}`);
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    const rows = await this.rows<JobRow>(`SELECT * FROM ${this.tables.jobs} ${where} ORDER BY save_id COLLATE "C", turn_id LIMIT $${params.push(query.limit ?? null)}`, params);
    return rows.map(jobFromRow);
  }

  async countJobs(saveId: string | undefined): Promise<JobCounts> {
    const rows = saveId === undefined
      ? await this.rows<{ status: LivingJob['status']; n: Integer }>(`SELECT status, COUNT(*) AS n FROM ${this.tables.jobs} GROUP BY status`)
      : await this.rows<{ status: LivingJob['status']; n: Integer }>(`SELECT status, COUNT(*) AS n FROM ${this.tables.jobs} WHERE save_id = $1 GROUP BY status`, [saveId]);
    const counts: JobCounts = { pending: 0, running: 0, done: 0, failed: 0 };
    for (const row of rows) counts[row.status] = Number(row.n);
    return counts;
  }

  // ---- the whole layer ----

  async holdsData(saveId: string): Promise<boolean> {
    const facts = `EXISTS (SELECT 1 FROM ${this.tables.facts} f WHERE f.save_id = $1 AND ${this.visibleFact('f', '$1')})`;
    const held = [facts, ...[this.tables.beliefs, this.tables.models, this.tables.jobs].map((table) => `EXISTS (SELECT 1 FROM ${table} WHERE save_id = $1)`)];
    const [row] = await this.rows<{ held: boolean }>(`SELECT ${held.join(' OR ')} AS held`, [saveId]);
    return row?.held === true;
  }
}

/**
 * The LivingBackend of a PostgreSQL store: reads on the pool, each write program in one transaction, its steps
 * awaited on the transaction's client.
 *
 * @example
 * ```ts
 * const living = new RowLivingStore(postgresLivingBackend(connection));
 * ```
 */
export function postgresLivingBackend(connection: PostgresConnection): LivingBackend {
  const tables = livingTables(connection.schema);
  return {
    read: (program) => runRowProgramAsync(program, new PostgresLivingRows(connection.read(), tables)),
    write: (program) => connection.write((client) => runRowProgramAsync(program, new PostgresLivingRows(client, tables))),
  };
}
