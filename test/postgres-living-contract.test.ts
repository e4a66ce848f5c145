// Runs the LivingStore contract on the PostgreSQL store's living sub-store: on PGlite and on a real server.
import { describe } from 'vitest';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { runLivingContract } from '../src/testing/living-contract.js';
import { postgresTargets } from './postgres-targets.js';

for (const target of postgresTargets()) {
  describe.skipIf(target.skip !== null)(`living memory on postgres (${target.name})${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    runLivingContract(`postgres (${target.name})`, {
      create: () => target.open(),
      reopen: async (store) => {
        const schema = (store as PostgresStore).schema;
        await store.close();
        return target.open({ schema });
      },
    });
  });
}
