// Runs the one Store contract against the PostgreSQL adapter: on PGlite in process, on a real server and on Citus.
import { describe, expect, it } from 'vitest';
import { runStoreContract } from '../src/testing/store-contract.js';
import type { PostgresStore } from '../src/stores/postgres/index.js';
import { CITUS_SKIP_REASON, postgresTargets, SERVER_SKIP_REASON } from './postgres-targets.js';

for (const target of postgresTargets()) {
  describe.skipIf(target.skip !== null)(`postgres on ${target.name}${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    runStoreContract(`postgres (${target.name})`, {
      create: () => target.open(),
      reopen: async (store) => {
        const schema = (store as PostgresStore).schema;
        await store.close();
        return target.open({ schema });
      },
    });
  });
}

describe('postgres server suites in CI', () => {
  it('runs against a real server whenever CI runs (it must not be skipped there)', () => {
    if (process.env.CI === 'true') expect(SERVER_SKIP_REASON, 'CI must set MNEMO_TEST_PG_URL (see .ci/run)').toBeNull();
  });
  it('runs against a Citus cluster whenever CI runs (it must not be skipped there)', () => {
    if (process.env.CI === 'true') expect(CITUS_SKIP_REASON, 'CI must set MNEMO_TEST_CITUS_URL (see .ci/run)').toBeNull();
  });
});
