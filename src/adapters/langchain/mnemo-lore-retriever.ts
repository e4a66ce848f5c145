// A LangChain retriever over the lore book as one character may know it: each entry a Document with its title and scope.
import { Document } from '@langchain/core/documents';
import { BaseRetriever } from '@langchain/core/retrievers';
import type { BaseRetrieverInput } from '@langchain/core/retrievers';
import type { LoreHit, LoreSearchOptions } from '../../lore/lore-book.js';
import type { Mnemo } from '../../open-memory.js';

/** What a MnemoLoreRetriever searches. */
export interface MnemoLoreRetrieverInput extends BaseRetrieverInput {
  memory: Mnemo;
  /** The character's lore tags ([] = continental lore only): entries it may not know are filtered out before ranking. */
  characterTags: readonly string[];
  /** Documents per query (default 5). */
  k?: number;
  /** Other search options (focus terms, fusion, ...). */
  searchOptions?: Omit<LoreSearchOptions, 'k' | 'tags' | 'ignoreScope'>;
}

/** The metadata of a lore Document. */
export type LoreMetadata = Omit<LoreHit, 'content'>;

/** A lore hit as a Document: the content is the page content, the entry id the document id. */
export function loreDocument(hit: LoreHit): Document<LoreMetadata> {
  const { content, ...metadata } = hit;
  return new Document({ pageContent: content, metadata, id: hit.entryId });
}

/**
 * A LangChain retriever over the lore book, scoped to one character: continental entries, and the entries whose
 * every tag the character holds. (`tags` is LangChain's own field for run tags, so the character's are
 * `characterTags`.)
 *
 * @example
 * ```ts
 * import { MnemoLoreRetriever } from 'mnemo-engine/langchain';
 * const lore = new MnemoLoreRetriever({ memory, characterTags: ['brackwater', 'brackwater_docks'], k: 3 });
 * const [entry] = await lore.invoke('Who founded Brackwater?');
 * entry?.metadata.title; // 'Founding of Brackwater'
 * ```
 */
export class MnemoLoreRetriever extends BaseRetriever<LoreMetadata> {
  lc_namespace = ['mnemo', 'retrievers'];
  readonly memory: Mnemo;
  readonly characterTags: readonly string[];
  readonly k: number;
  private readonly searchOptions: MnemoLoreRetrieverInput['searchOptions'];

  constructor(fields: MnemoLoreRetrieverInput) {
    super(fields);
    this.memory = fields.memory;
    this.characterTags = [...fields.characterTags];
    this.k = fields.k ?? 5;
    this.searchOptions = fields.searchOptions;
  }

  override async _getRelevantDocuments(query: string): Promise<Document<LoreMetadata>[]> {
    return (await this.memory.lore.search(query, { ...this.searchOptions, tags: this.characterTags, k: this.k })).map(loreDocument);
  }
}
