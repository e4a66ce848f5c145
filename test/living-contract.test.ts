// Runs the one LivingStore contract against every adapter available here.
import { join } from 'node:path';
import { runLivingContract } from '../src/testing/living-contract.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;

runLivingContract('sqlite', {
  create: async () => openSqliteStore({ path: join(dir, `living-${++counter}.db`) }),
  reopen: async (store) => {
    await store.close();
    return openSqliteStore({ path: (store as SqliteStore).location });
  },
});

runLivingContract('memory', { create: async () => openInMemoryStore() });
