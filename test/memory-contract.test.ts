// Every contract suite (src/testing/contract/) on the in-memory adapter, and the recall contract on the seed's InMemoryBackend.
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { InMemoryBackend } from '../src/recall/in-memory-backend.js';
import type { RetrievalMode } from '../src/recall/memory-backend.js';
import { StoreMemoryBackend } from '../src/recall/store-memory-backend.js';
import type { Embedder } from '../src/seams/embedder.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { runChunksContract } from '../src/testing/contract/chunks.js';
import { runEmbeddingStoreContract } from '../src/testing/contract/embeddings.js';
import { runLivingContract } from '../src/testing/contract/living.js';
import { runLoreContract } from '../src/testing/contract/lore.js';
import { runRecallContract } from '../src/testing/contract/recall.js';
import type { RecallContext } from '../src/testing/contract/recall.js';
import { runSavesContract } from '../src/testing/contract/saves.js';

const factory = { create: async () => openInMemoryStore() };
runChunksContract('memory', factory);
runSavesContract('memory', factory);
runLivingContract('memory', factory);
runLoreContract('memory', factory);
runEmbeddingStoreContract('memory', factory);

runRecallContract('InMemoryBackend', {
  retrieval: 'exact',
  create: async ({ clock, tracer }) => ({ backend: new InMemoryBackend({ clock, tracer }) }),
});

function onMemory(retrieval: RetrievalMode, embedder: Embedder | null) {
  return async ({ clock, tracer }: RecallContext) => {
    const store = openInMemoryStore();
    return {
      backend: new StoreMemoryBackend({ store, retrieval, embedder, clock, tracer, logger: silentLogger }),
      close: async () => { await store.close(); },
    };
  };
}

const embedder = hashingEmbedder({ dimensions: 256 });
runRecallContract('StoreMemoryBackend on the in-memory store', { retrieval: 'semantic', create: onMemory('semantic', embedder) });
runRecallContract('StoreMemoryBackend on the in-memory store', { retrieval: 'exact', create: onMemory('exact', null) });
