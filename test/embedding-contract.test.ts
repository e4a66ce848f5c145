// Runs the EmbeddingStore contract against every adapter available here.
import { join } from 'node:path';
import { runEmbeddingStoreContract } from '../src/testing/embedding-contract.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;

runEmbeddingStoreContract('sqlite', { create: async () => openSqliteStore({ path: join(dir, `embeddings-${++counter}.db`) }) });
runEmbeddingStoreContract('memory', { create: async () => openInMemoryStore() });
