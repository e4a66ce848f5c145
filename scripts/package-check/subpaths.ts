// Type-checked (not run) by scripts/check-package.sh: the subpath exports' types resolve in a strict consumer.
import type { ApiOptions, createApi, RunningHttpServer, startHttpServer, TokenTable } from 'mnemo-engine/server';
import type { runStoreContract, StoreFactory } from 'mnemo-engine/testing';

export type ServerParts = [typeof createApi, typeof startHttpServer, TokenTable, ApiOptions, RunningHttpServer];
export type TestingParts = [typeof runStoreContract, StoreFactory];
