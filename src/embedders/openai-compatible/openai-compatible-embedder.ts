// Embeddings from any server speaking OpenAI's /v1/embeddings: OpenAI, Ollama, llama.cpp, vLLM, LM Studio.
import { z } from 'zod';
import { MnemoError } from '../../core/errors.js';
import { postJson } from '../../http/index.js';
import type { HttpProviderOptions } from '../../http/index.js';
import type { Embedder } from '../../seams/embedder.js';

/** Options of the OpenAI-compatible embedder. */
export interface OpenAiCompatibleEmbedderOptions extends HttpProviderOptions {
  /** The model name the server knows, e.g. `text-embedding-3-small`, `nomic-embed-text`. */
  model: string;
  /** The length of the vectors the model returns (checked on every answer). */
  dimensions: number;
  /** Texts per request (default 64). */
  maxBatchSize?: number;
  /** Fields added to every request body as they are, e.g. `{ dimensions: 256 }` for OpenAI's v3 models. */
  providerOptions?: Record<string, unknown>;
  /** The provider name recorded with the vectors (default `openai-compatible`). */
  provider?: string;
}

const EmbeddingsAnswer = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int().nonnegative().optional() })),
});

function normalise(values: readonly number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) / norm;
  return vector;
}

/**
 * An Embedder over HTTP. Each `embed` call is one POST to `<baseUrl>/embeddings` (callers batch by
 * maxBatchSize); answers are validated (one vector per text, each of `dimensions`, ordered by `index`) and
 * normalised. Failures are MnemoErrors: PROVIDER_TIMEOUT, or PROVIDER_FAILURE naming the URL and what arrived.
 *
 * @example
 * ```ts
 * const embedder = openAiCompatibleEmbedder({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', dimensions: 768 });
 * const memory = await openMemory({ path: 'game.db', embedder });
 * ```
 */
export function openAiCompatibleEmbedder(options: OpenAiCompatibleEmbedderOptions): Embedder {
  if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) {
    throw new MnemoError('INVALID_INPUT', `dimensions: expected the model's vector length (a positive integer), got ${JSON.stringify(options.dimensions)}. Use discoverDimensions() to ask the server.`, { details: { field: 'dimensions' } });
  }
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  return {
    provider: options.provider ?? 'openai-compatible',
    modelId: options.model,
    dimensions: options.dimensions,
    maxBatchSize: options.maxBatchSize ?? 64,
    async embed(texts) {
      if (texts.length === 0) return [];
      const answer = EmbeddingsAnswer.safeParse(await postJson(options, 'embeddings', { ...options.providerOptions, model: options.model, input: [...texts] }));
      if (!answer.success) {
        throw new MnemoError('PROVIDER_FAILURE', `POST ${url}: expected { data: [{ embedding: number[], index }] }, got an answer that does not match (${answer.error.issues[0]?.message ?? 'invalid'} at ${answer.error.issues[0]?.path.join('.') ?? '?'}).`, { details: { url } });
      }
      const data = answer.data.data;
      if (data.length !== texts.length) {
        throw new MnemoError('PROVIDER_FAILURE', `POST ${url}: expected ${texts.length} vectors, got ${data.length}. The server may not support batched input; lower maxBatchSize.`, { details: { url, expected: texts.length, got: data.length } });
      }
      const ordered = data.every((item) => item.index !== undefined) ? [...data].sort((a, b) => (a.index as number) - (b.index as number)) : data;
      return ordered.map((item, position) => {
        if (item.index !== undefined && item.index !== position) throw new MnemoError('PROVIDER_FAILURE', `POST ${url}: expected vector indexes 0..${texts.length - 1}, got a gap or a repeat at ${item.index}.`, { details: { url } });
        if (item.embedding.length !== options.dimensions) {
          throw new MnemoError('PROVIDER_FAILURE', `POST ${url}: expected vectors of ${options.dimensions} dimensions from ${options.model}, got ${item.embedding.length}. Set dimensions to ${item.embedding.length} (and run mnemo reindex if vectors were stored).`, { details: { url, expected: options.dimensions, got: item.embedding.length } });
        }
        return normalise(item.embedding);
      });
    },
  };
}

/**
 * Asks the server for one vector and returns its length, for when the model's dimensions are not known.
 *
 * @example
 * ```ts
 * const dimensions = await discoverDimensions({ baseUrl, model: 'nomic-embed-text' }); // 768
 * ```
 */
export async function discoverDimensions(options: Omit<OpenAiCompatibleEmbedderOptions, 'dimensions'>): Promise<number> {
  const answer = EmbeddingsAnswer.safeParse(await postJson(options, 'embeddings', { ...options.providerOptions, model: options.model, input: ['dimension probe'] }));
  const length = answer.success ? answer.data.data[0]?.embedding.length : undefined;
  if (length === undefined || length === 0) throw new MnemoError('PROVIDER_FAILURE', `POST ${options.baseUrl}/embeddings: expected one vector for a probe text, got none. Check the model name.`, { details: { url: options.baseUrl } });
  return length;
}
