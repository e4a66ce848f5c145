// What the in-memory store's embedding sub-store is given: the chunks, the entries of the other layers, and the open check.
import type { NewChunk } from '../../seams/chunk-store.js';
import type { InMemoryLoreStore } from './lore-store.js';
import type { InMemoryRecallStore } from './recall-store.js';

/** A chunk as the in-memory store holds it (shared with its sub-stores). */
export interface StoredChunk extends NewChunk {
  seq: number;
}

/** The in-memory store as its embedding sub-store uses it (it reads and rewrites the vectors of every layer). */
export interface InMemoryConnection {
  /** Throws STORE_CLOSED when the store is closed. */
  assertOpen(): void;
  /** Every stored chunk in insertion order, live objects (never hand them out). */
  allChunks(): StoredChunk[];
  /** Bumps the version of every save (after a change that touches them all). */
  bumpEverySave(): void;
  readonly recall: InMemoryRecallStore;
  readonly lore: InMemoryLoreStore;
}
