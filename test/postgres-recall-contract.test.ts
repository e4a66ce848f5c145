// Runs the remember / recall contract on the PostgreSQL store's recall sub-store: on PGlite, a real server and Citus.
import { describe } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { Mnemo } from '../src/open-memory.js';
import type { RetrievalMode } from '../src/recall/memory-backend.js';
import { StoreMemoryBackend } from '../src/recall/store-memory-backend.js';
import type { Embedder } from '../src/seams/embedder.js';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { runRecallContract } from '../src/testing/recall-contract.js';
import type { RecallContext } from '../src/testing/recall-contract.js';
import { postgresTargets } from './postgres-targets.js';
import type { PostgresTarget } from './postgres-targets.js';

const embedder = hashingEmbedder({ dimensions: 256 });

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
 * Why two of the four variants do not run on Citus: recall lives in reference tables only (one copy on every node,
 * nothing per save), so the store's statements there are those of the semantic and exact variants, which do run;
 * the variant without an embedder and the facade differ only in engine code above the store, and each store a test
 * opens on Citus costs seconds (a schema's tables distributed, then dropped), about 130 stores a variant.
 */
const CITUS_RECALL_SKIP = 'skipped on Citus: the same store statements as the semantic and exact variants, which run there';

for (const target of postgresTargets()) {
  const variantSkip = target.name === 'Citus' ? CITUS_RECALL_SKIP : null;
  describe.skipIf(target.skip !== null)(`recall on postgres (${target.name})${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    runRecallContract(`StoreMemoryBackend on PostgreSQL (${target.name})`, { retrieval: 'semantic', create: onPostgres(target, 'semantic', embedder) });
    runRecallContract(`StoreMemoryBackend on PostgreSQL (${target.name})`, { retrieval: 'exact', create: onPostgres(target, 'exact', embedder) });
  });
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
