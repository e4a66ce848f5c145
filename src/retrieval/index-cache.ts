// Keeps one CorpusIndex per corpus (a save, the lore book, a recall scope) in memory, in step with the store through its version number.
import type { WriteResult } from '../seams/store.js';
import { CorpusIndex } from './corpus-index.js';
import type { CorpusIndexOptions, IndexDocument } from './corpus-index.js';

/** Where the cache reads a corpus and its version from. */
export interface CorpusSource {
  /** Streams the corpus's documents to `visit` (without vectors for an index made with `vectors: false`); returns the version read before them. */
  scan(key: string, visit: (document: IndexDocument) => void): Promise<number>;
  version(key: string): Promise<number>;
  /** About how many rows `scan` will visit (a capacity hint; optional). */
  count?(key: string): Promise<number>;
}

/**
 * A cache of search indexes, one per key (a save id, a scope). A query checks the corpus's version (one cheap read); when another process
 * wrote, the index is rebuilt from the store. Writes made through this process are applied in place, so a turn
 * added during play costs its own tokens, not a rebuild.
 *
 * @example
 * ```ts
 * const cache = new IndexCache({ scan: (saveId, visit) => store.scanChunks(saveId, (row) => visit(chunkDocument(row))),
 *   version: (saveId) => store.saveVersion(saveId) });
 * const index = await cache.get('campaign-1');
 * ```
 */
export class IndexCache {
  private readonly indexes = new Map<string, CorpusIndex>();
  private readonly building = new Map<string, Promise<CorpusIndex>>();

  /** With `vectors: false` (the store searches vectors itself) indexes hold only the vectors' lengths. */
  constructor(private readonly source: CorpusSource, private readonly options: CorpusIndexOptions & { maxRemovedRatio?: number } = {}) {}

  /** The index of a corpus, refreshed if the store moved on. */
  async get(key: string): Promise<CorpusIndex> {
    const cached = this.indexes.get(key);
    if (cached !== undefined && cached.version === (await this.source.version(key))) return cached;
    const pending = this.building.get(key);
    if (pending !== undefined) return pending;
    const build = this.build(key).finally(() => this.building.delete(key));
    this.building.set(key, build);
    return build;
  }

  private async build(key: string): Promise<CorpusIndex> {
    const index = new CorpusIndex(0, this.options);
    if (this.source.count !== undefined) index.reserve(await this.source.count(key));
    index.version = await this.source.scan(key, (document) => index.add([document]));
    this.indexes.set(key, index);
    return index;
  }

  /**
   * Applies a write this process made. When the cached index was exactly one step behind, `apply` updates it in
   * place; otherwise (another writer got in between, or too much was removed) it is dropped and rebuilt lazily.
   */
  afterWrite(key: string, result: WriteResult, apply: (index: CorpusIndex) => void): void {
    const cached = this.indexes.get(key);
    if (cached === undefined || result.version === result.previousVersion) return;
    if (cached.version !== result.previousVersion) {
      this.indexes.delete(key);
      return;
    }
    apply(cached);
    cached.version = result.version;
    if (cached.removedRatio > (this.options.maxRemovedRatio ?? 0.5)) this.indexes.delete(key);
  }

  /** Forgets the index of one corpus (it rebuilds on its next query). */
  forget(key: string): void {
    this.indexes.delete(key);
  }

  /** Forgets every index (they rebuild on the next query). */
  clear(): void {
    this.indexes.clear();
  }
}
