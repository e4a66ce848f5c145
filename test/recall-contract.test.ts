// Runs the one remember / recall contract against every MemoryBackend: the seed's in-memory one and the store ones.
import { join } from 'node:path';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { Mnemo } from '../src/open-memory.js';
import { InMemoryBackend } from '../src/recall/in-memory-backend.js';
import type { RetrievalMode } from '../src/recall/memory-backend.js';
import { StoreMemoryBackend } from '../src/recall/store-memory-backend.js';
import type { Embedder } from '../src/seams/embedder.js';
import type { Store } from '../src/seams/store.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { runRecallContract } from '../src/testing/recall-contract.js';
import type { RecallContext } from '../src/testing/recall-contract.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;

runRecallContract('InMemoryBackend', {
  retrieval: 'exact',
  create: async ({ clock, tracer }) => ({ backend: new InMemoryBackend({ clock, tracer }) }),
});

function onStore(retrieval: RetrievalMode, kind: 'sqlite' | 'memory', embedder: Embedder | null) {
  return async ({ clock, tracer }: RecallContext) => {
    const path = join(dir, `recall-${++counter}.db`);
    const open = (): Store => (kind === 'sqlite' ? openSqliteStore({ path }) : openInMemoryStore());
    const stores: Store[] = [open()];
    const make = (store: Store) => new StoreMemoryBackend({ store, retrieval, embedder, clock, tracer, logger: silentLogger });
    return {
      backend: make(stores[0]!),
      reopen: kind === 'sqlite' ? async () => {
        await stores[0]!.close();
        stores.push(open());
        return make(stores.at(-1)!);
      } : undefined,
      close: async () => { for (const store of stores) await store.close(); },
    };
  };
}

const embedder = hashingEmbedder({ dimensions: 256 });
runRecallContract('StoreMemoryBackend on SQLite', { retrieval: 'semantic', create: onStore('semantic', 'sqlite', embedder) });
runRecallContract('StoreMemoryBackend on SQLite, no embedder', { retrieval: 'semantic', create: onStore('semantic', 'sqlite', null) });
runRecallContract('StoreMemoryBackend on SQLite', { retrieval: 'exact', create: onStore('exact', 'sqlite', embedder) });
runRecallContract('StoreMemoryBackend on the in-memory store', { retrieval: 'semantic', create: onStore('semantic', 'memory', embedder) });
runRecallContract('StoreMemoryBackend on the in-memory store', { retrieval: 'exact', create: onStore('exact', 'memory', null) });

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
