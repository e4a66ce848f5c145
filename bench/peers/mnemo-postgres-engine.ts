// Mnemo on PostgreSQL + pgvector in the peer benchmark: one schema per collection folder, loaded by the bulk path.
import { silentLogger } from '../../src/core/logger.js';
import { openMemory } from '../../src/open-memory.js';
import type { Mnemo } from '../../src/open-memory.js';
import type { EmbedderIdentity } from '../../src/seams/embedding-store.js';
import { openPostgresStore } from '../../src/stores/postgres/index.js';
import type { PostgresStore } from '../../src/stores/postgres/index.js';
import type { Engine, EngineCollection } from './engine.js';
import { MnemoCollection, PrecomputedEmbedder } from './mnemo-engine.js';
import { packageVersion } from './package-version.js';
import { configuredPostgresUrl } from '../postgres-server.js';
import { collectionSchema, dropSchemas, schemaBytes } from './postgres-server.js';
import { postgresConnectionOf } from '../../src/stores/postgres/postgres-connection.js';

/** A Mnemo collection whose store is a PostgreSQL schema: `finish` builds the HNSW index once and analyzes. */
class MnemoPostgresCollection extends MnemoCollection {
  constructor(memory: Mnemo, embedder: PrecomputedEmbedder, private readonly store: PostgresStore) {
    super(memory, embedder);
  }

  override async finish(): Promise<void> {
    if (this.store.vectorIndexes === 'manual') await this.store.createVectorIndexes();
    await this.store.analyze();
  }

  /** The schema's tables with their indexes (the collection folder stays empty). */
  sizeOnDisk(): Promise<number> {
    return schemaBytes(postgresConnectionOf(this.store).read(), this.store.schema);
  }
}

const version = packageVersion('mnemo');
const pgVersion = packageVersion('pg');

/**
 * Mnemo on the PostgreSQL server of `MNEMO_BENCH_PG_URL` (else `MNEMO_TEST_PG_URL`), each collection in the
 * schema `collectionSchema(folder)`. `create` drops that schema and opens it with `vectorIndexes: 'manual'` (the
 * documented bulk import: rows first, then `createVectorIndexes()` and `analyze()` in `finish`); `open` uses the
 * defaults. The vectors are recorded under `identity`, as for Mnemo on SQLite.
 */
export function mnemoPostgresEngine(identity: EmbedderIdentity): Engine {
  const url = configuredPostgresUrl();
  if (url === undefined) throw new Error('mnemo-pg: no server; set MNEMO_BENCH_PG_URL (peers.bench.ts starts one and sets it)');
  const openCollection = async (folder: string, create: boolean): Promise<EngineCollection> => {
    const schema = collectionSchema(folder);
    if (create) await dropSchemas(url, [schema]);
    const store = await openPostgresStore(create ? { url, schema, vectorIndexes: 'manual' } : { url, schema });
    const embedder = new PrecomputedEmbedder(identity);
    const memory = await openMemory({ store, embedder, embeddingCache: false, logger: silentLogger });
    return new MnemoPostgresCollection(memory, embedder, store);
  };
  return {
    name: 'Mnemo (PostgreSQL)',
    version: `mnemo ${version} (PostgreSQL + pgvector, pg ${pgVersion})`,
    create: (folder) => openCollection(folder, true),
    open: (folder) => openCollection(folder, false),
  };
}
