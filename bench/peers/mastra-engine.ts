// Mastra in the peer benchmark: LibSQLVector (@mastra/libsql), the vector store of Mastra memory's semantic recall, given vectors.
import { join } from 'node:path';
import type { CorpusRow } from './corpus.js';
import { DIMENSIONS } from './corpus.js';
import type { Engine, EngineCollection, QueryMode } from './engine.js';
import { importPeer, peerInstalled, peerVersion } from './peer-package.js';

/** The part of @mastra/libsql's LibSQLVector the benchmark calls. */
interface LibSQLVector {
  createIndex(args: { indexName: string; dimension: number }): Promise<void>;
  upsert(args: { indexName: string; vectors: number[][]; metadata: Record<string, unknown>[]; ids: string[] }): Promise<string[]>;
  query(args: { indexName: string; queryVector: number[]; topK: number; filter?: Record<string, unknown> }): Promise<{ id: string }[]>;
}
type LibSQLModule = { LibSQLVector: new (config: { connectionUrl: string }) => LibSQLVector };

/** The index (a table with a libsql_vector_idx index) the rows go to, as Mastra memory keeps its messages' vectors. */
const INDEX = 'memory_messages';

class MastraCollection implements EngineCollection {
  constructor(private readonly vector: LibSQLVector) {}

  /** One upsert per batch (one write transaction), the row's group in its metadata, as memory stores a message's thread and resource. */
  async add(rows: readonly CorpusRow[]): Promise<void> {
    await this.vector.upsert({ indexName: INDEX, vectors: rows.map((row) => Array.from(row.vector)), metadata: rows.map((row) => ({ group: row.group })), ids: rows.map((row) => row.id) });
  }

  /** Each upsert is committed, its vector index kept in step: nothing to build. */
  async finish(): Promise<void> {}

  /** query() with its defaults (cosine), filtered on the metadata's group as memory filters on a thread or resource. */
  async query(mode: QueryMode, _text: string, vector: Float32Array, k: number, group: number): Promise<string[]> {
    if (mode !== 'vector' && mode !== 'filtered') throw new Error(`LibSQLVector searches by vector only, not ${mode}`);
    const hits = await this.vector.query({ indexName: INDEX, queryVector: Array.from(vector), topK: k, filter: mode === 'filtered' ? { group } : undefined });
    return hits.map((hit) => hit.id);
  }

  async close(): Promise<void> {}
}

/** Loaded with this module (the worker loads it before timing), as every other engine's modules are. */
const libsql = peerInstalled('@mastra/libsql') ? await importPeer<LibSQLModule>('@mastra/libsql', '@mastra/libsql') : null;

async function openCollection(folder: string, create: boolean): Promise<EngineCollection> {
  const { LibSQLVector } = libsql ?? (await importPeer<LibSQLModule>('@mastra/libsql', '@mastra/libsql'));
  const vector = new LibSQLVector({ connectionUrl: `file:${join(folder, 'vectors.db')}` });
  if (create) await vector.createIndex({ indexName: INDEX, dimension: DIMENSIONS });
  return new MastraCollection(vector);
}

/** Mastra's LibSQLVector on a local file, on its defaults. */
export const mastraEngine: Engine = {
  name: 'Mastra',
  version: peerInstalled('@mastra/libsql') ? `@mastra/libsql ${peerVersion('@mastra/libsql')} (@mastra/core ${peerVersion('@mastra/core')}, LibSQLVector)` : '@mastra/libsql (not installed)',
  modes: ['filtered', 'vector'],
  create: (folder) => openCollection(folder, true),
  open: (folder) => openCollection(folder, false),
};
