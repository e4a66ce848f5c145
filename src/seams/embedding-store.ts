// The embedding sub-store: which embedder made the vectors, the embedding cache, and resumable re-embedding.

/** Which embedder made a store's vectors. Two embedders with the same identity make comparable vectors. */
export interface EmbedderIdentity {
  provider: string;
  modelId: string;
  dimensions: number;
}

/** A vector cached under the sha256 of its text. */
export interface CachedVector {
  /** sha256 of the text, hex. */
  hash: string;
  vector: Float32Array;
}

/**
 * Something waiting to be re-embedded: a chunk (in insertion order), a remembered entry of the recall layer (its
 * key and value text), or a lore entry (its content). Recall and lore entries are rewritten in place, so `source`
 * identifies the version staged: an entry rewritten meanwhile is redone.
 */
export type ReindexItem =
  | { family: 'chunks'; seq: number; id: string; text: string }
  | { family: 'recall'; seq: number; key: string; valueText: string; source: string }
  | { family: 'lore'; seq: number; text: string; source: string };

/** A re-embedded item: its new vector, or null when the embedder found nothing to embed. */
export type ReindexVector =
  | { family: 'chunks'; seq: number; id: string; embedding: Float32Array | null }
  | { family: 'recall' | 'lore'; seq: number; source: string; embedding: Float32Array | null };

/** How far a reindex has gone: `done` items staged, `total` = done + those still waiting (chunks and recall entries). */
export interface ReindexProgress {
  target: EmbedderIdentity;
  done: number;
  total: number;
}

/** What claiming an identity found. */
export type IdentityClaim = { ok: true } | { ok: false; recorded: EmbedderIdentity | null };

/**
 * Persistence of the embedding layer (`store.embeddings`). A reindex stages new vectors beside the old ones and
 * swaps them in with one transaction at the end, so until then the store stays whole under its old embedder,
 * and an interrupted reindex resumes where its last staged batch ended.
 */
export interface EmbeddingStore {
  /** The identity recorded for the store's vectors, or null. */
  identity(): Promise<EmbedderIdentity | null>;
  /**
   * In one transaction: accepts `identity` when it is the recorded one, or records it when the store holds no
   * vector yet (no chunk, recall entry or lore entry has one); otherwise reports the recorded identity (null when vectors
   * exist but none was recorded).
   */
  claimIdentity(identity: EmbedderIdentity): Promise<IdentityClaim>;
  /** Cached vectors of `model` for these text hashes (absent hashes are left out). */
  getCached(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /**
   * Caches vectors of `model`, keeping at most `limit` entries over all models (oldest first out). A cache write
   * may be lost in a power cut; it never damages anything else.
   */
  putCached(model: string, entries: readonly CachedVector[], limit: number): Promise<void>;
  /** Starts a reindex to `target`, or resumes one to the same target; staged vectors for another target are dropped. */
  beginReindex(target: EmbedderIdentity): Promise<ReindexProgress>;
  /** The reindex in progress, or null. */
  reindexProgress(): Promise<ReindexProgress | null>;
  /** The next `limit` items not yet staged: chunks of every save in insertion order, then recall, then lore entries. */
  nextToReindex(limit: number): Promise<ReindexItem[]>;
  /** Stages a batch of new vectors in one transaction. */
  stageReindex(vectors: readonly ReindexVector[]): Promise<ReindexProgress>;
  /**
   * In one transaction, when everything is staged: swaps the staged vectors in (chunks, recall and lore entries;
   * lore entries also get `target` as their embedding model), records `target` as the identity, bumps every save's
   * version, the recall version and the lore book version, and clears the staging.
   * Otherwise changes nothing and says how many wait.
   */
  finishReindex(target: EmbedderIdentity): Promise<{ finished: boolean; pending: number }>;
}
