// Mnemo's public API: open a memory, add turns, query them, rewind them.
export { openMemory, Mnemo } from './open-memory.js';
export type { OpenMemoryOptions } from './open-memory.js';
export { NarrativeMemory } from './narrative/narrative-memory.js';
export type { NarrativeMemoryOptions, UpdateTurnInput } from './narrative/narrative-memory.js';
export { MnemoError, isMnemoError, ERROR_CODES } from './core/errors.js';
export type { ErrorCategory, ErrorCode, ErrorDetails } from './core/errors.js';
export * from './core/types.js';
export type { Clock } from './core/clock.js';
export { systemClock, manualClock } from './core/clock.js';
export type { Logger } from './core/logger.js';
export { consoleLogger, silentLogger } from './core/logger.js';
export type { Store, NewChunk, IndexRow, WriteResult, RewindCounts, ScanOptions, VectorMatch } from './seams/store.js';
export type { Embedder } from './seams/embedder.js';
export type { Reranker } from './seams/reranker.js';
export { openSqliteStore, SqliteStore } from './stores/sqlite/index.js';
export type { SqliteStoreOptions } from './stores/sqlite/index.js';
export { openInMemoryStore, InMemoryStore } from './stores/memory/index.js';
// The PostgreSQL adapter's module loads `pg` only when a URL is opened.
export { openPostgresStore, PostgresStore, pgliteQueryable, poolQueryable, POSTGRES_MIGRATIONS, VECTOR_SEARCH_DEFAULTS } from './stores/postgres/index.js';
export type { PostgresStoreOptions, PostgresMigration, Queryable, SqlClient, VectorSearchSettings } from './stores/postgres/index.js';
export { hashingEmbedder } from './embedders/hashing/index.js';
export { tokenize, uniqueTokens } from './retrieval/tokenize.js';
export { Bm25Index, buildBm25, rankWithBm25, rankByBm25, BM25_DEFAULTS } from './retrieval/bm25.js';
export { reciprocalRankFusion, RRF_K } from './retrieval/reciprocal-rank-fusion.js';
export { capPerSource } from './retrieval/cap-per-source.js';
export { focusMatches, FOCUS_BOOST } from './retrieval/focus-boost.js';
