// The search indexes of remembered entries: one corpus per scope (and one for all scopes), kept in step with writes.
import type { Clock } from '../core/clock.js';
import type { Analyzer, CorpusIndex, IndexDocument } from '../retrieval/corpus-index.js';
import { IndexCache } from '../retrieval/index-cache.js';
import { corpusAnalyzer } from '../retrieval/resolve-search-request.js';
import type { RecallIndexRow, RecallStore, RecallWriteResult } from '../seams/recall-store.js';

/** The text an entry is searched by: its key, then its value's text. */
export function searchText(key: string, valueText: string): string {
  return `${key}\n${valueText}`;
}

/** The corpus of one scope, or of every scope. */
function corpusOf(scope: string | null): string {
  return scope === null ? 'all' : `scope:${scope}`;
}

/** An entry as the corpus index holds it: its id is its seq (kept when the entry is replaced), its text its key and value. */
function recallDocument(row: Pick<RecallIndexRow, 'seq' | 'key' | 'valueText' | 'embedding'>): IndexDocument {
  return { id: String(row.seq), text: searchText(row.key, row.valueText), embedding: row.embedding };
}

/**
 * Keeps a CorpusIndex per scope (BM25 statistics of the scope searched) and one for searches over every scope,
 * each built on first use from the store and then updated in place by this process's writes. The recall store
 * has one version number: a write by another process makes every index rebuild on its next use.
 *
 * @example
 * ```ts
 * const index = new RecallIndex(store.recall, Date.now);
 * const corpus = await index.get('LegalKnowledge');
 * ```
 */
export class RecallIndex {
  private readonly cache: IndexCache;
  private readonly corpora = new Set<string>();

  constructor(private readonly store: RecallStore, private readonly clock: Clock, analyzer?: Analyzer) {
    this.cache = new IndexCache(
      {
        scan: (corpus, visit) => this.store.scan(corpus === 'all' ? null : corpus.slice('scope:'.length), this.clock(), (row) => visit(recallDocument(row))),
        version: () => this.store.version(),
      },
      { analyzer: corpusAnalyzer('recall', analyzer) },
    );
  }

  /** The index of one scope's live entries, or of every scope's (null). */
  async get(scope: string | null): Promise<CorpusIndex> {
    const corpus = corpusOf(scope);
    this.corpora.add(corpus);
    return this.cache.get(corpus);
  }

  /** Applies a put made by this process: the entry (re)enters its scope's index and the all-scopes index. */
  afterPut(result: RecallWriteResult & { seq: number; replaced: boolean }, row: Pick<RecallIndexRow, 'seq' | 'scope' | 'key' | 'valueText' | 'embedding'>): void {
    const own = corpusOf(row.scope);
    for (const corpus of this.corpora) {
      void this.cache.afterWrite(corpus, result, (index) => {
        if (corpus !== own && corpus !== 'all') return;
        if (result.replaced) index.remove([String(row.seq)]);
        index.add([recallDocument(row)]);
      });
    }
  }

  /** Applies a removal made by this process (a clear or a purge). */
  afterRemove(result: RecallWriteResult): void {
    if (result.removedSeqs.length === 0) return;
    const removed = result.removedSeqs.map(String);
    for (const corpus of this.corpora) {
      void this.cache.afterWrite(corpus, result, (index) => {
        index.remove(removed);
      });
    }
  }
}
