// LanceDB in the peer benchmark: one table, a full-text index with its defaults, exact vector search, RRF hybrid.
// The filtered mode's group is the column row_group (`group` is an SQL keyword).
import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } from 'apache-arrow';
import type { CorpusRow } from './corpus.js';
import { DIMENSIONS } from './corpus.js';
import type { Engine, EngineCollection, QueryMode } from './engine.js';
import { packageVersion } from './package-version.js';

const TABLE = 'chunks';
const schema = new Schema([
  new Field('id', new Utf8(), false),
  new Field('text', new Utf8(), false),
  new Field('vector', new FixedSizeList(DIMENSIONS, new Field('item', new Float32(), true)), false),
  new Field('row_group', new Int32(), false),
]);

class LanceCollection implements EngineCollection {
  private reranker: lancedb.rerankers.RRFReranker | null = null;

  constructor(private readonly connection: lancedb.Connection, private readonly table: lancedb.Table) {}

  async add(rows: readonly CorpusRow[]): Promise<void> {
    await this.table.add(rows.map((row) => ({ id: row.id, text: row.text, vector: Array.from(row.vector), row_group: row.group })));
  }

  /** Compacts the fragments the adds left and builds the full-text index (LanceDB's defaults: English stems and stop words). */
  async finish(): Promise<void> {
    await this.table.optimize();
    await this.table.createIndex('text', { config: lancedb.Index.fts() });
  }

  /** Filtered: `nearestTo(vector).where(...)`, which LanceDB applies before the search (its default prefilter). */
  async query(mode: QueryMode, text: string, vector: Float32Array, k: number, group: number): Promise<string[]> {
    let rows: Record<string, unknown>[];
    if (mode === 'filtered') {
      rows = await this.table.query().nearestTo(vector).where(`row_group = ${group}`).select(['id', 'text']).limit(k).toArray();
    } else if (mode === 'lexical') {
      rows = await this.table.query().fullTextSearch(text).select(['id', 'text']).limit(k).toArray();
    } else if (mode === 'vector') {
      rows = await this.table.query().nearestTo(vector).select(['id', 'text']).limit(k).toArray();
    } else {
      this.reranker ??= await lancedb.rerankers.RRFReranker.create();
      rows = await this.table.query().fullTextSearch(text).nearestTo(vector).rerank(this.reranker).select(['id', 'text']).limit(k).toArray();
    }
    return rows.map((row) => String(row['id']));
  }

  async close(): Promise<void> {
    this.table.close();
    this.connection.close();
  }
}

const version = packageVersion('@lancedb/lancedb');

/** LanceDB, embedded (a folder of Lance files), as its documentation sets it up for hybrid search. */
export const lancedbEngine: Engine = {
  name: 'LanceDB',
  version: `@lancedb/lancedb ${version}`,
  async create(folder) {
    const connection = await lancedb.connect(folder);
    return new LanceCollection(connection, await connection.createEmptyTable(TABLE, schema));
  },
  async open(folder) {
    const connection = await lancedb.connect(folder);
    return new LanceCollection(connection, await connection.openTable(TABLE));
  },
};
