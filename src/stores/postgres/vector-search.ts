// The semantic arm in PostgreSQL: one HNSW index per vector length, and filtered searches that never starve.
import type { ChunkSearchFilter } from '../../core/types.js';
import type { ScoreTotals, VectorMatch } from '../../seams/vector-search.js';
import { SCHEMA_LOCK_SQL } from './migrations.js';
import { quoteIdentifier } from './identifiers.js';
import type { Queryable, SqlClient } from './queryable.js';
import { rewoundTables, visibleRow } from './rewound-rows.js';
import type { RewoundTable } from './rewound-rows.js';
import { vectorToLiteral } from './vectors.js';

/** How the store searches vectors. */
export interface VectorSearchSettings {
  /**
   * Saves with at most this many chunks are searched exactly (every vector compared, the same ranking as the
   * in-memory arm); default 5,000. Above it the approximate query is issued and PostgreSQL's planner picks the
   * HNSW index, or the save's own rows when the save is a small part of a large table.
   */
  exactBelow: number;
  /**
   * The smallest `hnsw.ef_search` used (it grows with the limit, up to pgvector's 1,000); default 200. Higher
   * finds more of the true nearest neighbours and costs time: see docs/benchmarks.md for the trade-off.
   */
  efSearch: number;
  /** `hnsw.max_scan_tuples`: how far an iterative scan may go before giving up; default 20,000. */
  maxScanTuples: number;
}

/** The default settings. */
export const VECTOR_SEARCH_DEFAULTS: VectorSearchSettings = { exactBelow: 5_000, efSearch: 200, maxScanTuples: 20_000 };

/** pgvector indexes `vector` columns of at most this many dimensions; longer vectors are searched exactly. */
export const HNSW_MAX_DIMENSIONS = 2000;

/** The name of the HNSW index of vectors of one length. */
export function vectorIndexName(dimensions: number): string {
  return `chunks_embedding_hnsw_${dimensions}`;
}

/** The totals (count, sum, sum of squares) of a score over every row an exact query compared, before its LIMIT. */
const TOTALS = (score: string) =>
  `COUNT(*) OVER () AS total_count, SUM(${score}) OVER () AS total_sum, SUM((${score}) * (${score})) OVER () AS total_squares`;

/** A row of an exact search: a match, with the totals of every score compared. */
interface ExactRow {
  id: string;
  score: number;
  total_count?: string | number;
  total_sum?: number;
  total_squares?: number;
}

/** Adds an exact search's totals (read from its first row) to `statistics`; nothing when they are not numbers. */
function addTotals(statistics: ScoreTotals, row: ExactRow | undefined): void {
  const count = Number(row?.total_count ?? 0);
  const sum = Number(row?.total_sum);
  const squares = Number(row?.total_squares);
  if (count === 0 || !Number.isFinite(sum) || !Number.isFinite(squares)) return;
  statistics.count += count;
  statistics.sum += sum;
  statistics.sumOfSquares += squares;
}

interface Prepared {
  /** The save and the vector length: the rows a search looks at, filtered or not. */
  base: string;
  /** The filter conditions, each starting with ` AND `. */
  filters: string;
  params: unknown[];
  dimensions: number;
}

/**
 * Searches a save's vectors by cosine similarity inside PostgreSQL.
 *
 * - Small saves (at most `exactBelow` chunks) are searched exactly: deterministic and complete.
 * - Larger ones go through the HNSW index of their vector length with pgvector's iterative scan
 *   (`hnsw.iterative_scan = relaxed_order`, 0.8+), so filters (turn window, chunk type) are applied during the
 *   scan and the index keeps walking until `limit` permitted rows are found.
 * - If the approximate scan still returns fewer than `limit` rows (a very selective filter, or
 *   `max_scan_tuples` reached), the search is redone exactly: permitted chunks always fill `limit` when they exist.
 * Results are ordered by distance, then insertion order.
 *
 * @example
 * ```ts
 * const arm = new PostgresVectorSearch(sql, 'mnemo', { iterativeScan: true });
 * await arm.search('save-1', queryVector, { maxTurnId: 20 }, 50); // [{ id, score }, ...]
 * ```
 */
export class PostgresVectorSearch {
  private readonly indexed = new Set<number>();
  private readonly settings: VectorSearchSettings;
  private readonly chunks: string;
  /** The chunks with their rewind records: no search sees a chunk a rewind hid (rewound-rows.ts). */
  private readonly rewoundChunks: RewoundTable;
  private readonly saves: string;
  /** False on pgvector before 0.8 (no iterative scans): then a starved approximate search is redone exactly. */
  readonly iterativeScan: boolean;
  /** True on Citus: the search settings are given with SET LOCAL, which Citus passes on to the workers. */
  readonly distributed: boolean;
  /** How searches ran in this process: exactly (small saves), through HNSW, and HNSW redone exactly (starved). */
  readonly stats = { exact: 0, approximate: 0, starved: 0 };

  constructor(
    private readonly sql: Queryable,
    private readonly schema: string,
    options: { iterativeScan: boolean; distributed?: boolean; settings?: Partial<VectorSearchSettings> },
  ) {
    this.settings = { ...VECTOR_SEARCH_DEFAULTS, ...options.settings };
    this.iterativeScan = options.iterativeScan;
    this.distributed = options.distributed ?? false;
    this.chunks = `${quoteIdentifier(schema)}.chunks`;
    this.rewoundChunks = rewoundTables(schema).chunks;
    this.saves = `${quoteIdentifier(schema)}.saves`;
  }

  /**
   * Makes sure the HNSW index for vectors of this length exists (created once, under the schema lock, so two
   * processes never race to build it). Lengths above HNSW_MAX_DIMENSIONS get no index and are searched exactly.
   */
  async ensureIndex(dimensions: number): Promise<void> {
    if (this.indexed.has(dimensions) || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > HNSW_MAX_DIMENSIONS) return;
    const name = vectorIndexName(dimensions);
    const found = await this.sql.query('SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = $2', [this.schema, name]);
    if (found.rows.length === 0) {
      await this.sql.transaction(async (client) => {
        await client.query(SCHEMA_LOCK_SQL);
        await client.query(
          `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(name)} ON ${this.chunks}
           USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) WHERE vector_dims(embedding) = ${dimensions}`,
        );
      });
    }
    this.indexed.add(dimensions);
  }

  private prepare(saveId: string, vector: Float32Array, filter: ChunkSearchFilter, limit: number): Prepared {
    const params: unknown[] = [saveId, vectorToLiteral(vector), limit];
    const dimensions = vector.length;
    const base = `save_id = $1 AND vector_dims(embedding) = ${dimensions} AND ${visibleRow(this.rewoundChunks, 'chunks', '$1')}`;
    let filters = '';
    if (filter.maxTurnId !== undefined) filters += ` AND turn_id <= $${params.push(filter.maxTurnId)}`;
    if (filter.chunkType !== undefined) filters += ` AND chunk_type = $${params.push(filter.chunkType)}`;
    if (filter.excludeChunkTypes !== undefined && filter.excludeChunkTypes.length > 0) filters += ` AND chunk_type <> ALL($${params.push([...filter.excludeChunkTypes])}::text[])`;
    // The engine's where clauses, as jsonb tests: a value is its canonical JSON (the string "1" and the number 1 differ).
    for (const clause of filter.where ?? []) {
      const key = `$${params.push(clause.key)}::text`;
      filters += 'values' in clause
        ? ` AND metadata -> ${key} = ANY($${params.push([...clause.values])}::jsonb[])`
        : ` AND ${clause.exists ? '' : 'NOT '}jsonb_exists(metadata, ${key})`;
    }
    return { base, filters, params, dimensions };
  }

  /** The query the HNSW index answers (its ORDER BY is the indexed expression), re-sorted exactly after. */
  private approximateSql({ base, filters, dimensions }: Prepared): string {
    const distance = `embedding::vector(${dimensions}) <=> $2::vector(${dimensions})`;
    return `WITH nearest AS MATERIALIZED (
        SELECT seq, id, ${distance} AS distance FROM ${this.chunks} WHERE ${base}${filters} ORDER BY ${distance} LIMIT $3
      ) SELECT id, 1 - distance AS score FROM nearest ORDER BY distance, seq`;
  }

  /** The exact query: the distance is not the indexed expression, so every permitted row is compared. */
  private exactSql({ base, filters }: Prepared): string {
    return `SELECT id, 1 - distance AS score, ${TOTALS('1 - distance')} FROM (
        SELECT seq, id, embedding <=> $2::vector AS distance FROM ${this.chunks} WHERE ${base}${filters}
      ) AS candidates ORDER BY distance, seq LIMIT $3`;
  }

  /**
   * The neighbour-context score of rows with `own`, `prev` and `next` vectors: q . normalise(own + w (prev + next)),
   * written with inner products so no vector arithmetic is needed. `w` is the SQL of the weight.
   */
  private contextScore(dimensions: number, w: string): string {
    const q = `$2::vector(${dimensions})`;
    const ip = (a: string, b: string) => `COALESCE(inner_product(${a}, ${b}), 0)`;
    const numerator = `(${ip('own', q)} + ${w} * (${ip('prev', q)} + ${ip('next', q)}))`;
    const squared = `(${ip('own', 'own')} + ${w} * ${w} * (${ip('prev', 'prev')} + ${ip('next', 'next')})
      + 2 * ${w} * (${ip('own', 'prev')} + ${ip('own', 'next')}) + 2 * ${w} * ${w} * ${ip('prev', 'next')})`;
    return `CASE WHEN ${squared} > 0 THEN ${numerator} / sqrt(${squared}) ELSE 0 END`;
  }

  /**
   * Exact search with neighbour context: every vector of the save in insertion order, each row with its
   * neighbours (LAG/LEAD over all of them, filtered or not, as the in-memory arm links them), then the filter.
   */
  private exactContextSql({ base, filters, dimensions }: Prepared, w: string): string {
    const typed = `embedding::vector(${dimensions})`;
    return `WITH chain AS (
        SELECT seq, id, turn_id, chunk_type, metadata, ${typed} AS own, LAG(${typed}) OVER (ORDER BY seq) AS prev, LEAD(${typed}) OVER (ORDER BY seq) AS next
        FROM ${this.chunks} WHERE ${base}
      ), scored AS (
        SELECT seq, id, ${this.contextScore(dimensions, w)} AS score FROM chain WHERE true${filters}
      ) SELECT id, score, ${TOTALS('score')} FROM scored ORDER BY score DESC, seq LIMIT $3`;
  }

  /** The neighbours of each row of `pool` (a CTE with seq, id, own), read through the save's (save_id, seq) key. */
  private neighbourJoin(dimensions: number): string {
    const side = (comparison: string, order: string) => `LEFT JOIN LATERAL (
        SELECT c.embedding::vector(${dimensions}) AS embedding FROM ${this.chunks} c
        WHERE c.save_id = $1 AND c.seq ${comparison} pool.seq AND vector_dims(c.embedding) = ${dimensions} AND ${visibleRow(this.rewoundChunks, 'c', '$1')} ORDER BY c.seq ${order} LIMIT 1
      )`;
    return `${side('<', 'DESC')} p ON true ${side('>', 'ASC')} n ON true`;
  }

  /**
   * Approximate search with neighbour context. A chunk scores high when its own vector or a neighbour's is near
   * the query, so the candidates are the nearest chunks by own vector (HNSW: among all of the save's, and among
   * the permitted ones so a filter cannot starve the pool) together with their neighbours; the permitted
   * candidates are then scored exactly with their own neighbours.
   */
  private approximateContextSql({ base, filters, dimensions }: Prepared, w: string, pool: string): string {
    const distance = `embedding::vector(${dimensions}) <=> $2::vector(${dimensions})`;
    const nearest = (where: string) => `(SELECT seq FROM ${this.chunks} WHERE ${where} ORDER BY ${distance} LIMIT ${pool})`;
    const step = (comparison: string, order: string) => `SELECT step.seq FROM nearest, LATERAL (
        SELECT c.seq FROM ${this.chunks} c WHERE c.save_id = $1 AND c.seq ${comparison} nearest.seq AND vector_dims(c.embedding) = ${dimensions} AND ${visibleRow(this.rewoundChunks, 'c', '$1')} ORDER BY c.seq ${order} LIMIT 1
      ) AS step`;
    return `WITH nearest AS MATERIALIZED (
        ${nearest(base)}${filters === '' ? '' : ` UNION ${nearest(`${base}${filters}`)}`}
      ), candidates AS MATERIALIZED (
        SELECT seq FROM nearest UNION ${step('<', 'DESC')} UNION ${step('>', 'ASC')}
      ), pool AS MATERIALIZED (
        SELECT seq, id, embedding::vector(${dimensions}) AS own FROM ${this.chunks} JOIN candidates USING (seq) WHERE ${base}${filters}
      ), chain AS (
        SELECT pool.seq, pool.id, pool.own, p.embedding AS prev, n.embedding AS next FROM pool ${this.neighbourJoin(dimensions)}
      ), scored AS (
        SELECT seq, id, ${this.contextScore(dimensions, w)} AS score FROM chain
      ) SELECT id, score FROM scored ORDER BY score DESC, seq LIMIT $3`;
  }

  /** Sets pgvector's search parameters for the rest of the transaction. */
  private async tune(client: SqlClient, limit: number): Promise<void> {
    const settings: [string, string][] = [['hnsw.ef_search', String(Math.trunc(Math.min(1000, Math.max(this.settings.efSearch, limit))))]];
    if (this.iterativeScan) settings.push(['hnsw.iterative_scan', 'relaxed_order'], ['hnsw.max_scan_tuples', String(Math.trunc(this.settings.maxScanTuples))]);
    if (this.distributed) {
      // set_config() would change the coordinator only; the shards are searched on the workers. Citus passes
      // SET LOCAL on to them once told to (the values are integers and a keyword made here, not input).
      await client.query(`SET LOCAL citus.propagate_set_commands = 'local'; ${settings.map(([name, value]) => `SET LOCAL ${name} = '${value}'`).join('; ')}`);
      return;
    }
    await client.query(`SELECT ${settings.map((_, index) => `set_config($${2 * index + 1}, $${2 * index + 2}, true)`).join(', ')}`, settings.flat());
  }

  /**
   * The `limit` chunks of a save nearest to `vector` among those the filter permits; see the class. With a
   * `neighbourWeight` above 0 each chunk is scored by its vector mixed with its neighbours' (the in-memory arm's
   * neighbour context): exactly on small saves, and on large ones by scoring exactly the nearest by own vector
   * (`4 x limit`, at least 100, at most 1,000, found through HNSW) and their neighbours. An exact search adds the
   * totals of every permitted chunk's score to `statistics`.
   */
  async search(saveId: string, vector: Float32Array, filter: ChunkSearchFilter, limit: number, neighbourWeight = 0, statistics?: ScoreTotals): Promise<VectorMatch[]> {
    if (limit <= 0 || vector.length === 0) return [];
    const prepared = this.prepare(saveId, vector, filter, limit);
    const context = neighbourWeight > 0;
    const w = context ? `$${prepared.params.push(neighbourWeight)}::float8` : '';
    const pool = Math.min(1000, Math.max(4 * limit, 100));
    const rows = await this.sql.transaction(async (client) => {
      const save = await client.query<{ chunk_count: string | number }>(`SELECT chunk_count FROM ${this.saves} WHERE save_id = $1`, [saveId]);
      const count = Number(save.rows[0]?.chunk_count ?? 0);
      if (count === 0) return [];
      if (count > this.settings.exactBelow && prepared.dimensions <= HNSW_MAX_DIMENSIONS) {
        await this.tune(client, context ? pool : limit);
        const approximate = await client.query<{ id: string; score: number }>(context ? this.approximateContextSql(prepared, w, String(pool)) : this.approximateSql(prepared), prepared.params);
        this.stats.approximate++;
        if (approximate.rows.length >= limit) return approximate.rows;
        this.stats.starved++;
      } else {
        this.stats.exact++;
      }
      const exact = (await client.query<ExactRow>(context ? this.exactContextSql(prepared, w) : this.exactSql(prepared), prepared.params)).rows;
      if (statistics !== undefined) addTotals(statistics, exact[0]);
      return exact;
    });
    return rows.map((row) => {
      const score = Number(row.score);
      return { id: row.id, score: Number.isNaN(score) ? 0 : score };
    });
  }

  /**
   * The similarity of given chunks of a save to `vector` (those without a vector of its length left out), with
   * neighbour context when `neighbourWeight` is above 0.
   */
  async score(saveId: string, vector: Float32Array, ids: readonly string[], neighbourWeight = 0): Promise<Map<string, number>> {
    if (ids.length === 0 || vector.length === 0) return new Map();
    const dimensions = vector.length;
    const params: unknown[] = [saveId, vectorToLiteral(vector), [...ids]];
    const where = `save_id = $1 AND id = ANY($3::text[]) AND vector_dims(embedding) = ${dimensions} AND ${visibleRow(this.rewoundChunks, 'chunks', '$1')}`;
    const sql = neighbourWeight > 0
      ? `WITH pool AS (SELECT seq, id, embedding::vector(${dimensions}) AS own FROM ${this.chunks} WHERE ${where}),
         chain AS (SELECT pool.seq, pool.id, pool.own, p.embedding AS prev, n.embedding AS next FROM pool ${this.neighbourJoin(dimensions)})
         SELECT id, ${this.contextScore(dimensions, `$${params.push(neighbourWeight)}::float8`)} AS score FROM chain`
      : `SELECT id, 1 - (embedding <=> $2::vector) AS score FROM ${this.chunks} WHERE ${where}`;
    const result = await this.sql.query<{ id: string; score: number }>(sql, params);
    return new Map(result.rows.map((row) => {
      const score = Number(row.score);
      return [row.id, Number.isNaN(score) ? 0 : score];
    }));
  }

  /**
   * The plan PostgreSQL picks for the approximate query (EXPLAIN), with the same settings a search uses:
   * for tests and diagnostics ("is the HNSW index used?").
   */
  async explainApproximate(saveId: string, vector: Float32Array, filter: ChunkSearchFilter, limit: number): Promise<string> {
    const prepared = this.prepare(saveId, vector, filter, limit);
    return this.sql.transaction(async (client) => {
      await this.tune(client, limit);
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${this.approximateSql(prepared)}`, prepared.params);
      return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }
}
