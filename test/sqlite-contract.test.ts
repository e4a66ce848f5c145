// Every contract suite (src/testing/contract/) on the SQLite adapter: chunks, saves, living, lore, embeddings, recall.
import { join } from 'node:path';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { Mnemo } from '../src/open-memory.js';
import type { RetrievalMode } from '../src/recall/memory-backend.js';
import { StoreMemoryBackend } from '../src/recall/store-memory-backend.js';
import type { Embedder } from '../src/seams/embedder.js';
import type { Store } from '../src/seams/store.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { runChunksContract } from '../src/testing/contract/chunks.js';
import { runEmbeddingStoreContract } from '../src/testing/contract/embeddings.js';
import { runLivingContract } from '../src/testing/contract/living.js';
import { runLoreContract } from '../src/testing/contract/lore.js';
import { runRecallContract } from '../src/testing/contract/recall.js';
import type { RecallContext } from '../src/testing/contract/recall.js';
import { runSavesContract } from '../src/testing/contract/saves.js';
import type { StoreFactory } from '../src/testing/contract/store-factory.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;

/** A fresh SQLite file per test, reopened from its path. */
function sqliteFactory(prefix: string): StoreFactory {
  return {
    create: async () => openSqliteStore({ path: join(dir, `${prefix}-${++counter}.db`) }),
    reopen: async (store) => {
      await store.close();
      return openSqliteStore({ path: (store as SqliteStore).location });
    },
  };
}

runChunksContract('sqlite', sqliteFactory('contract'));
runSavesContract('sqlite', sqliteFactory('contract'));
runLivingContract('sqlite', sqliteFactory('living'));
runLoreContract('sqlite', sqliteFactory('lore-contract'));
runEmbeddingStoreContract('sqlite', { create: async () => openSqliteStore({ path: join(dir, `embeddings-${++counter}.db`) }) });

function onSqlite(retrieval: RetrievalMode, embedder: Embedder | null) {
  return async ({ clock, tracer }: RecallContext) => {
    const path = join(dir, `recall-${++counter}.db`);
    const stores: Store[] = [openSqliteStore({ path })];
    const make = (store: Store) => new StoreMemoryBackend({ store, retrieval, embedder, clock, tracer, logger: silentLogger });
    return {
      backend: make(stores[0]!),
      reopen: async () => {
        await stores[0]!.close();
        stores.push(openSqliteStore({ path }));
        return make(stores.at(-1)!);
      },
      close: async () => { for (const store of stores) await store.close(); },
    };
  };
}

const embedder = hashingEmbedder({ dimensions: 256 });
runRecallContract('StoreMemoryBackend on SQLite', { retrieval: 'semantic', create: onSqlite('semantic', embedder) });
runRecallContract('StoreMemoryBackend on SQLite, no embedder', { retrieval: 'semantic', create: onSqlite('semantic', null) });
runRecallContract('StoreMemoryBackend on SQLite', { retrieval: 'exact', create: onSqlite('exact', embedder) });
runRecallContract('memory.recall (the Mnemo facade on SQLite)', {
  retrieval: 'semantic',
  create: async ({ clock, tracer }) => {
    const path = join(dir, `facade-${++counter}.db`);
    const open = () => new Mnemo({ store: openSqliteStore({ path }), embedder, reranker: null, logger: silentLogger, clock, tracer });
    const handles = [open()];
    return {
      backend: handles[0]!.recall,
      reopen: async () => {
        await handles[0]!.close();
        handles.push(open());
        return handles.at(-1)!.recall;
      },
      close: async () => { for (const handle of handles) await handle.close(); },
    };
  },
});
