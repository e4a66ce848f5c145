// Runs the one lore contract against every adapter available here.
import { join } from 'node:path';
import { runLoreContract } from '../src/testing/lore-contract.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;

runLoreContract('sqlite', {
  create: async () => openSqliteStore({ path: join(dir, `lore-contract-${++counter}.db`) }),
  reopen: async (store) => {
    await store.close();
    return openSqliteStore({ path: (store as SqliteStore).location });
  },
});

runLoreContract('memory', { create: async () => openInMemoryStore() });
