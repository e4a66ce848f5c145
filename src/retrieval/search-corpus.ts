// The one search pipeline of every corpus (chunks, lore, recall): embed the query, run the hybrid ranking, read the hits' documents once.
import type { Logger } from '../core/logger.js';
import type { Explanation } from '../core/types.js';
import type { Embedder } from '../seams/embedder.js';
import type { Reranker } from '../seams/reranker.js';
import type { CorpusIndex, SlotFilter } from './corpus-index.js';
import { embedQuery } from './embed-query.js';
import { armsToRun, hybridSearch } from './hybrid-search.js';
import type { RankedId, VectorArm } from './hybrid-search.js';
import type { SearchRequest } from './resolve-search-request.js';
import { CORPUS_DEFAULTS } from './retrieval-defaults.js';

/** One search over one corpus index. */
export interface CorpusSearch<Document> {
  /** What to search for and how (see `resolveSearchRequest`). */
  request: SearchRequest;
  index: CorpusIndex;
  /** Embeds the query for the semantic arm; without one (or without vectors in the index), words alone. */
  embedder: Embedder | null;
  logger: Logger;
  /** Which documents may rank, applied to every arm before ranking. */
  accept?: SlotFilter;
  /** True when `accept` is what the caller may see: scores then use the statistics of those documents alone (see `HybridSearchInput`). */
  statisticsOfAccepted?: boolean;
  /** Re-sorts the fused head, unless the request turned it off. */
  reranker?: Reranker | null;
  /** The semantic arm searched where the vectors live (the store's vector search), instead of the index's own vectors. */
  vectorArm?: VectorArm;
  /** Reads documents by id (any order; unknown ids left out). Each document is read at most once per search. */
  read(ids: readonly string[]): Promise<readonly Document[]>;
  /** A document's id, as the index holds it. */
  idOf(document: Document): string;
  /** The text focus terms and the reranker read. */
  textOf(document: Document): string;
  /** Ranked hits to drop before their documents are read (recall's similarity floor); default: keep every hit. */
  keep?: (hit: RankedId) => boolean;
}

/** A hit: its document, its final score and why it ranked. */
export interface CorpusHit<Document> {
  document: Document;
  score: number;
  explanation: Explanation;
}

/**
 * Runs one search: embeds the query (only when the semantic arm runs), ranks with `hybridSearch`, and reads the
 * documents of the hits, reusing those already read for focus terms or the reranker, so no document is read
 * twice. Hits whose document is gone (removed since the index was read) are left out. `queryVector` is the
 * vector the semantic arm searched with (null: words alone). An empty index gives no hits and embeds nothing.
 *
 * @example
 * ```ts
 * const request = resolveSearchRequest('lore', 'who guards the gate?', { k: 3 });
 * const { hits } = await searchCorpus({ request, index, embedder, logger, read: (ids) => store.lore.get(ids),
 *   idOf: (entry) => entry.id, textOf: (entry) => entry.content });
 * ```
 */
export async function searchCorpus<Document>(search: CorpusSearch<Document>): Promise<{ hits: CorpusHit<Document>[]; queryVector: Float32Array | null }> {
  const { request, index } = search;
  if (index.size === 0) return { hits: [], queryVector: null };
  const queryVector = armsToRun(request).semantic ? await embedQuery(search.embedder, request.queryText, index.vectorDimensions, search.logger, CORPUS_DEFAULTS[request.corpus].label) : null;
  const documents = new Map<string, Document>();
  const readMissing = async (ids: readonly string[]): Promise<void> => {
    const missing = ids.filter((id) => !documents.has(id));
    if (missing.length === 0) return;
    for (const document of await search.read(missing)) documents.set(search.idOf(document), document);
  };
  const ranked = await hybridSearch({
    index,
    queryText: request.queryText,
    queryVector,
    accept: search.accept,
    statisticsOfAccepted: search.statisticsOfAccepted,
    k: request.ranked,
    capPerSource: request.capPerSource,
    rrfK: request.rrfK,
    fusion: request.fusion,
    weights: request.weights,
    feedback: request.feedback,
    windowSum: request.windowSum,
    signals: request.signals,
    softMatch: request.softMatch,
    softTail: request.softTail,
    adaptiveWeight: request.adaptiveWeight,
    scaffolding: request.scaffolding,
    sceneDiversity: request.sceneDiversity,
    coveragePass: request.coveragePass,
    semanticNormaliser: request.semanticNormaliser,
    vectorFeedback: request.vectorFeedback,
    entityLinks: request.entityLinks,
    replyHandoff: request.replyHandoff,
    lengthSignal: request.lengthSignal,
    focusTerms: request.focusTerms,
    focusBoost: request.focusBoost,
    reranker: request.rerank ? (search.reranker ?? null) : null,
    rerankTop: request.rerankTop,
    loadTexts: async (ids) => {
      await readMissing(ids);
      const texts = new Map<string, string>();
      for (const id of ids) {
        const document = documents.get(id);
        if (document !== undefined) texts.set(id, search.textOf(document));
      }
      return texts;
    },
    vectorArm: search.vectorArm,
  });
  const keep = search.keep;
  const kept = keep === undefined ? ranked : ranked.filter((hit) => keep(hit));
  await readMissing(kept.map((hit) => hit.id));
  const hits = kept.flatMap(({ id, score, explanation }) => {
    const document = documents.get(id);
    return document === undefined ? [] : [{ document, score, explanation }];
  });
  return { hits, queryVector };
}
