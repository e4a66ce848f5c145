// Runs the lore contract on the PostgreSQL store's lore sub-store: on PGlite and on a real server.
import { describe } from 'vitest';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { runLoreContract } from '../src/testing/lore-contract.js';
import { postgresTargets } from './postgres-targets.js';

for (const target of postgresTargets()) {
  describe.skipIf(target.skip !== null)(`lore on postgres (${target.name})${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    runLoreContract(`postgres (${target.name})`, {
      create: () => target.open(),
      reopen: async (store) => {
        const schema = (store as PostgresStore).schema;
        await store.close();
        return target.open({ schema });
      },
    });
  });
}
