// Runs the EmbeddingStore contract on the PostgreSQL store's embedding sub-store: on PGlite and on a real server.
import { describe } from 'vitest';
import { runEmbeddingStoreContract } from '../src/testing/embedding-contract.js';
import { postgresTargets } from './postgres-targets.js';

for (const target of postgresTargets()) {
  describe.skipIf(target.skip !== null)(`embeddings on postgres (${target.name})${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    runEmbeddingStoreContract(`postgres (${target.name})`, { create: () => target.open() });
  });
}
