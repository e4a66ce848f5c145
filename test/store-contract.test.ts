// Runs the one Store contract against every adapter available here.
import { join } from 'node:path';
import { runStoreContract } from '../src/testing/store-contract.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;

runStoreContract('sqlite', {
  create: async () => openSqliteStore({ path: join(dir, `contract-${++counter}.db`) }),
  reopen: async (store) => {
    await store.close();
    return openSqliteStore({ path: (store as SqliteStore).location });
  },
});

runStoreContract('memory', { create: async () => openInMemoryStore() });
