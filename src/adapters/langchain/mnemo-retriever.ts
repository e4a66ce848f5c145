// A LangChain retriever over one save's narrative memory: Mnemo's hybrid search, each hit a Document with its turn and metadata.
import { Document } from '@langchain/core/documents';
import { BaseRetriever } from '@langchain/core/retrievers';
import type { BaseRetrieverInput } from '@langchain/core/retrievers';
import type { Hit, QueryOptions } from '../../core/types.js';
import { LORE_CHUNK_TYPE } from '../../lore/lore-book.js';
import type { Mnemo } from '../../open-memory.js';

/** What a MnemoRetriever searches. */
export interface MnemoRetrieverInput extends BaseRetrieverInput {
  memory: Mnemo;
  /** The save searched. */
  saveId: string;
  /** Documents per query (default 5, at most 1000). */
  k?: number;
  /** The present turn (a number, or a function read at each query): nothing later comes back. */
  currentTurnId?: number | (() => number | undefined);
  /** Other query options (chunk type, focus terms, fusion, ...). Lore chunks are left out unless `chunkType` asks for them. */
  queryOptions?: Omit<QueryOptions, 'k' | 'currentTurnId'>;
}

/** The metadata of a narrative Document: the hit's own metadata keys, then its core fields, its score and why it ranked. */
export type HitMetadata = Record<string, unknown> & Pick<Hit, 'saveId' | 'turnId' | 'chunkType' | 'entryId' | 'score' | 'explanation'> & { chunkId: string };

/** A hit as a Document: the text is the page content, the chunk id the document id. */
export function hitDocument(hit: Hit): Document<HitMetadata> {
  const metadata: HitMetadata = { ...hit.metadata, chunkId: hit.id, saveId: hit.saveId, turnId: hit.turnId, chunkType: hit.chunkType, entryId: hit.entryId, score: hit.score, explanation: hit.explanation };
  return new Document({ pageContent: hit.text, metadata, id: hit.id });
}

/**
 * A LangChain retriever over one save: `invoke(query)` runs Mnemo's hybrid search (words and meaning, filters
 * before ranking) and returns Documents best first, each with `metadata.turnId`, `chunkType`, `score` and the
 * explanation. Use it in any chain or agent that takes a retriever.
 *
 * @example
 * ```ts
 * import { MnemoRetriever } from 'mnemo-engine/langchain';
 * const retriever = new MnemoRetriever({ memory, saveId: 'run-1', k: 4, currentTurnId: () => game.turn });
 * const documents = await retriever.invoke('where is the silver key?');
 * documents[0]?.metadata.turnId; // 12
 * ```
 */
export class MnemoRetriever extends BaseRetriever<HitMetadata> {
  lc_namespace = ['mnemo', 'retrievers'];
  readonly memory: Mnemo;
  readonly saveId: string;
  readonly k: number;
  private readonly currentTurnId: MnemoRetrieverInput['currentTurnId'];
  private readonly queryOptions: MnemoRetrieverInput['queryOptions'];

  constructor(fields: MnemoRetrieverInput) {
    super(fields);
    this.memory = fields.memory;
    this.saveId = fields.saveId;
    this.k = fields.k ?? 5;
    this.currentTurnId = fields.currentTurnId;
    this.queryOptions = fields.queryOptions;
  }

  override async _getRelevantDocuments(query: string): Promise<Document<HitMetadata>[]> {
    const currentTurnId = typeof this.currentTurnId === 'function' ? this.currentTurnId() : this.currentTurnId;
    const options: QueryOptions = { ...(this.queryOptions?.chunkType === undefined ? { excludeChunkType: LORE_CHUNK_TYPE } : {}), ...this.queryOptions, k: this.k, currentTurnId };
    return (await this.memory.query(this.saveId, query, options)).map(hitDocument);
  }
}
