// The Reranker seam: reads (query, document) pairs jointly and scores their relevance in [0, 1].

/** Scores documents against a query. Returns null when it cannot (the fused order then stands). */
export interface Reranker {
  readonly provider: string;
  readonly modelId: string;
  /** Scores aligned 1:1 with `documents`, each in [0, 1], or null when unavailable. Never throws. */
  rerank(query: string, documents: readonly string[]): Promise<number[] | null>;
}
