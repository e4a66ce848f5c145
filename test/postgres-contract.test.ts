// Every contract suite (src/testing/contract/) on the PostgreSQL adapter: on PGlite in process, a real server and Citus.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { Mnemo } from '../src/open-memory.js';
import type { RetrievalMode } from '../src/recall/memory-backend.js';
import { StoreMemoryBackend } from '../src/recall/store-memory-backend.js';
import type { Embedder } from '../src/seams/embedder.js';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { runChunksContract } from '../src/testing/contract/chunks.js';
import { runEmbeddingStoreContract } from '../src/testing/contract/embeddings.js';
import { runLivingContract } from '../src/testing/contract/living.js';
import { runLoreContract } from '../src/testing/contract/lore.js';
import { runRecallContract } from '../src/testing/contract/recall.js';
import type { RecallContext } from '../src/testing/contract/recall.js';
import { runSavesContract } from '../src/testing/contract/saves.js';
import type { StoreFactory } from '../src/testing/contract/store-factory.js';
import { CITUS_SKIP_REASON, postgresTargets, SERVER_SKIP_REASON } from './postgres-targets.js';
import type { PostgresTarget } from './postgres-targets.js';

const embedder = hashingEmbedder({ dimensions: 256 });

/** A fresh schema per test, reopened by its name. */
function postgresFactory(target: PostgresTarget): StoreFactory {
  return {
    create: () => target.open(),
    reopen: async (store) => {
      const schema = (store as PostgresStore).schema;
      await store.close();
      return target.open({ schema });
    },
  };
}

function onPostgres(target: PostgresTarget, retrieval: RetrievalMode, withEmbedder: Embedder | null) {
  return async ({ clock, tracer }: RecallContext) => {
    const schema = target.newSchema();
    const stores: PostgresStore[] = [await target.open({ schema })];
    const make = (store: PostgresStore) => new StoreMemoryBackend({ store, retrieval, embedder: withEmbedder, clock, tracer, logger: silentLogger });
    return {
      backend: make(stores[0]!),
      reopen: async () => {
        await stores[0]!.close();
        stores.push(await target.open({ schema }));
        return make(stores.at(-1)!);
      },
      close: async () => { for (const store of stores) await store.close(); },
    };
  };
}

/**
 * Why two of the four recall variants do not run on Citus: recall lives in reference tables only (one copy on every
 * node, nothing per save), so the store's statements there are those of the semantic and exact variants, which do
 * run; the variant without an embedder and the facade differ only in engine code above the store, and each store a
 * test opens on Citus costs seconds (a schema's tables distributed, then dropped), about 130 stores a variant.
 */
const CITUS_RECALL_SKIP = 'skipped on Citus: the same store statements as the semantic and exact variants, which run there';

for (const target of postgresTargets()) {
  describe.skipIf(target.skip !== null)(`postgres on ${target.name}${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    const name = `postgres (${target.name})`;
    runChunksContract(name, postgresFactory(target));
    runSavesContract(name, postgresFactory(target));
    runLivingContract(name, postgresFactory(target));
    runLoreContract(name, postgresFactory(target));
    runEmbeddingStoreContract(name, { create: () => target.open() });
    runRecallContract(`StoreMemoryBackend on PostgreSQL (${target.name})`, { retrieval: 'semantic', create: onPostgres(target, 'semantic', embedder) });
    runRecallContract(`StoreMemoryBackend on PostgreSQL (${target.name})`, { retrieval: 'exact', create: onPostgres(target, 'exact', embedder) });
  });
  const variantSkip = target.name === 'Citus' ? CITUS_RECALL_SKIP : null;
  describe.skipIf(target.skip !== null || variantSkip !== null)(`recall on postgres (${target.name}), engine variants${variantSkip === null ? '' : ` (${variantSkip})`}`, () => {
    runRecallContract(`StoreMemoryBackend on PostgreSQL (${target.name}), no embedder`, { retrieval: 'semantic', create: onPostgres(target, 'semantic', null) });
    runRecallContract(`memory.recall (the Mnemo facade on PostgreSQL, ${target.name})`, {
      retrieval: 'semantic',
      create: async ({ clock, tracer }) => {
        const schema = target.newSchema();
        const open = async () => new Mnemo({ store: await target.open({ schema }), embedder, reranker: null, logger: silentLogger, clock, tracer });
        const handles = [await open()];
        return {
          backend: handles[0]!.recall,
          reopen: async () => {
            await handles[0]!.close();
            handles.push(await open());
            return handles.at(-1)!.recall;
          },
          close: async () => { for (const handle of handles) await handle.close(); },
        };
      },
    });
  });
}

describe('postgres server suites in CI', () => {
  it('runs against a real server whenever CI runs (it must not be skipped there)', () => {
    if (process.env.CI === 'true') expect(SERVER_SKIP_REASON, 'CI must set MNEMO_TEST_PG_URL (see .ci/run)').toBeNull();
  });
  it('runs against a Citus cluster whenever CI runs (it must not be skipped there)', () => {
    if (process.env.CI === 'true') expect(CITUS_SKIP_REASON, 'CI must set MNEMO_TEST_CITUS_URL (see .ci/run)').toBeNull();
  });
});
