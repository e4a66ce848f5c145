// Every SQLite migration, layer by layer. A layer appends its own list here; order within a list matters.
import { CHUNK_MIGRATIONS } from './chunks.js';
import { EMBEDDING_MIGRATIONS } from './embeddings.js';
import { LORE_MIGRATIONS } from './lore.js';
import { LIVING_MIGRATIONS } from './living.js';
import type { Migration } from './migration.js';
import { RECALL_MIGRATIONS } from './recall.js';

export type { Migration } from './migration.js';

/** Every migration this build knows, in the order they are applied. */
export const MIGRATIONS: readonly Migration[] = [
  ...CHUNK_MIGRATIONS,
  ...EMBEDDING_MIGRATIONS,
  ...RECALL_MIGRATIONS,
  ...LORE_MIGRATIONS,
  ...LIVING_MIGRATIONS,
];
