// The shapes shared by every layer: chunks, queries, hits and their explanations.

/** A JSON value, as metadata may hold it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Free metadata keys attached to a chunk. */
export type Metadata = { [key: string]: JsonValue };

/** The chunk type used when none is given. */
export const DEFAULT_CHUNK_TYPE = 'narrative';

/** The chunk type of a save's lore chunks (`LoreBook.syncToSave`): left out of every chunk search unless asked for. */
export const LORE_CHUNK_TYPE = 'lore';

/** What a caller hands in to store one piece of text. */
export interface ChunkInput {
  /** The save (game, conversation, agent run) this text belongs to. */
  saveId: string;
  /** The turn that produced it: an integer >= 0. Rewinding to N deletes every chunk with turnId > N. */
  turnId: number;
  /** The text to remember; never empty. */
  text: string;
  /** What kind of text it is (default `narrative`); queries can keep or exclude a type. */
  chunkType?: string;
  /** The id of the record this chunk stands for (a lore entry, a message), returned with every hit. */
  entryId?: string | null;
  /** Extra keys. The core keys (saveId, turnId, chunkType, entryId) always win over these. */
  metadata?: Metadata;
}

/** A stored chunk. `metadata` holds the extra keys merged under the core keys. */
export interface Chunk {
  id: string;
  saveId: string;
  turnId: number;
  chunkType: string;
  text: string;
  entryId: string | null;
  metadata: Metadata;
  createdAt: number;
}

/** Filters applied before ranking. */
export interface ChunkFilter {
  /** Only chunks with turnId <= maxTurnId (a history window). */
  maxTurnId?: number;
  /** The present turn: only chunks with turnId <= currentTurnId. With maxTurnId too, the smaller bound holds. */
  currentTurnId?: number;
  /** Keep only this chunk type. */
  chunkType?: string;
  /** Drop this chunk type. */
  excludeChunkType?: string;
  /**
   * Let a save's lore chunks (type `lore`) rank among the others. Default false: a chunk search leaves them out
   * unless `chunkType: 'lore'` asks for them, so lore (the whole book, whatever a character may know) never takes
   * the narrative's k budget and reaches a character only through its tags (`lore.search`).
   */
  includeLore?: boolean;
}

/** A chunk filter as every arm of a search applies it (see `resolveChunkFilter`): the lore rule already applied. */
export interface ChunkSearchFilter {
  /** Only chunks with turnId <= maxTurnId. */
  maxTurnId?: number;
  /** Only chunks of this type. */
  chunkType?: string;
  /** No chunks of these types. */
  excludeChunkTypes?: readonly string[];
}

/** Options of a hybrid query. */
export interface QueryOptions extends ChunkFilter {
  /** How many hits to return (1..1000, default 5). */
  k?: number;
  /** "Here and now" terms (location, characters on scene): a chunk mentioning one gets `focusBoost` added. */
  focusTerms?: readonly string[];
  /** Cap on each arm's ranked list before fusion (default max(50, 5k)); 0 disables the cap. */
  capPerSource?: number;
  /** The Reciprocal Rank Fusion constant (default 60). */
  rrfK?: number;
  /** How the arms are merged: `zscore` (default: standardised scores, weighted) or `rrf` (by rank, the seed's). */
  fusion?: 'rrf' | 'zscore';
  /**
   * Pseudo-relevance feedback for the lexical arm: add the best `terms` of the top `documents` at `weight`
   * (default 3 documents, 5 terms, weight 0.5; null turns it off).
   */
  feedback?: { documents: number; terms: number; weight: number } | null;
  /** Arm weights for `zscore` fusion (default 1 each). */
  weights?: { lexical?: number; semantic?: number };
  /** The additive boost for a focus-term mention (default 0.005 with RRF, about 20 ranks of one arm near the top; 0.5 standard deviations with zscore). */
  focusBoost?: number;
  /** Rerank the fused list with the configured reranker (default true when one is configured). */
  rerank?: boolean;
  /** How many fused candidates the reranker reads (default max(20, 2k)). */
  rerankTop?: number;
}

/** One arm's opinion of a hit. */
export interface ArmRank {
  /** 1-based rank within the arm. */
  rank: number;
  /** The arm's own score (BM25, or cosine similarity). */
  score: number;
}

/** Why a hit ranked where it did. */
export interface Explanation {
  lexical: ArmRank | null;
  semantic: ArmRank | null;
  /** The fused score (Reciprocal Rank Fusion, or the weighted sum of z-scores). */
  fused: number;
  /** The focus-term boost added (0 when none). */
  boost: number;
  /** The reranker's score in [0, 1], or null when no reranking happened. */
  rerank: number | null;
  /** The focus terms this chunk mentions. */
  focusMatches: string[];
}

/** A query result: the chunk, its final score and its explanation. */
export interface Hit extends Chunk {
  /** The final score: the rerank score when reranked, else fused + boost. */
  score: number;
  explanation: Explanation;
}

/** A summary of one save. */
export interface SaveSummary {
  saveId: string;
  chunks: number;
  /** How many distinct turns hold chunks. */
  turns: number;
  minTurnId: number | null;
  maxTurnId: number | null;
  version: number;
}
