// A rerank endpoint client (Cohere / Jina style `POST /rerank`): never throws, logs its first failure once.
import { z } from 'zod';
import type { Logger } from '../../core/logger.js';
import { silentLogger } from '../../core/logger.js';
import { postJson } from '../../http/index.js';
import type { HttpProviderOptions } from '../../http/index.js';
import type { Reranker } from '../../seams/reranker.js';
import { toUnitScores } from '../unit-scores.js';
import type { ScoreKind } from '../unit-scores.js';

/** Options of the HTTP reranker. */
export interface HttpRerankerOptions extends HttpProviderOptions {
  /** The reranking model, e.g. `rerank-v3.5`, `jina-reranker-v2-base-multilingual`. */
  model: string;
  /** The endpoint under baseUrl (default `rerank`). */
  path?: string;
  /** What the server's scores are (default `auto`: kept when all in [0, 1], else squashed by a sigmoid). */
  scores?: ScoreKind;
  /** Fields added to every request body as they are. */
  providerOptions?: Record<string, unknown>;
  /** The provider name (default `http-rerank`). */
  provider?: string;
  logger?: Logger;
}

const RerankAnswer = z.object({
  results: z.array(z.object({ index: z.number().int().nonnegative(), relevance_score: z.number().optional(), score: z.number().optional() })),
});

/**
 * A Reranker over HTTP: sends `{ model, query, documents, top_n }` and reads `results: [{ index,
 * relevance_score }]` (or `score`). Any failure (network, timeout after retries, malformed answer, a document
 * left unscored) gives null, so the fused order stands; the first failure is logged, later ones are not.
 *
 * @example
 * ```ts
 * const reranker = httpReranker({ baseUrl: 'https://api.jina.ai/v1', apiKey, model: 'jina-reranker-v2-base-multilingual' });
 * ```
 */
export function httpReranker(options: HttpRerankerOptions): Reranker {
  const logger = options.logger ?? silentLogger;
  let logged = false;
  const fail = (reason: string): null => {
    if (!logged) logger.warn(`reranker ${options.model} at ${options.baseUrl} failed (${reason}); keeping the fused order (further failures are not logged)`);
    logged = true;
    return null;
  };
  return {
    provider: options.provider ?? 'http-rerank',
    modelId: options.model,
    async rerank(query, documents) {
      if (documents.length === 0) return [];
      try {
        const raw = await postJson({ maxRetries: 1, timeoutMs: 10_000, ...options }, options.path ?? 'rerank', {
          ...options.providerOptions,
          model: options.model,
          query,
          documents: [...documents],
          top_n: documents.length,
        });
        const answer = RerankAnswer.safeParse(raw);
        if (!answer.success) return fail('the answer is not { results: [{ index, relevance_score }] }');
        const scores = new Array<number | undefined>(documents.length).fill(undefined);
        for (const result of answer.data.results) {
          const score = result.relevance_score ?? result.score;
          if (result.index < documents.length && score !== undefined) scores[result.index] = score;
        }
        if (scores.some((score) => score === undefined)) return fail(`expected a score for each of ${documents.length} documents, got ${answer.data.results.length}`);
        return toUnitScores(scores as number[], options.scores ?? 'auto') ?? fail('a score is not a number');
      } catch (error) {
        return fail((error as Error).message);
      }
    },
  };
}
