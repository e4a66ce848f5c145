// The lore book: import a YAML repository, search it as a given character, and embed a save's lore (timeless chunks).
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { MnemoError } from '../core/errors.js';
import { LIMITS, limitExceeded } from '../core/limits.js';
import { resolveMetadataWhere } from '../core/metadata-filter.js';
import { onceLogger, silentLogger } from '../core/logger.js';
import type { Logger } from '../core/logger.js';
import { LORE_CHUNK_TYPE } from '../core/types.js';
import type { Explanation, Hit, Metadata, MetadataWhere, QueryOptions } from '../core/types.js';
import { optionalCount, requireSaveId } from '../core/validate.js';
import { NarrativeMemory } from '../narrative/narrative-memory.js';
import type { Analyzer, IndexDocument } from '../retrieval/corpus-index.js';
import { IndexCache } from '../retrieval/index-cache.js';
import { corpusAnalyzer, resolveSearchRequest, searchOptionsOf } from '../retrieval/resolve-search-request.js';
import type { SearchOptions } from '../retrieval/resolve-search-request.js';
import { CORPUS_DEFAULTS } from '../retrieval/retrieval-defaults.js';
import { searchCorpus } from '../retrieval/search-corpus.js';
import type { Embedder } from '../seams/embedder.js';
import type { LoreEntry, LoreIndexRow, LoreOrigin, LoreOriginIdentity, ScopeLevel } from '../seams/lore-store.js';
import type { Reranker } from '../seams/reranker.js';
import type { Store } from '../seams/store.js';
import { buildLoreChangeSet, embedLoreTexts, textsToEmbed } from './lore-change-set.js';
import type { LoreEntryDraft, LoreEntryInput } from './lore-schema.js';
import { loreInvalidError } from './lore-problem.js';
import { StoredParseCache } from './parse-cache.js';
import { planLoreImport } from './plan-lore-import.js';
import type { LoreChangeField, LoreChangeSummary } from './plan-lore-import.js';
import { readLoreRepository } from './read-lore-repository.js';
import { requireCharacterTags } from './scope-tags.js';
import { loreSourceOf } from './sources/lore-source-of.js';
import type { LoreRepository } from './sources/lore-source-of.js';
import { validateLoreEntries } from './validate-lore-entries.js';
import { writeLoreRepository } from './write-lore-repository.js';
import type { LoreExportReport } from './write-lore-repository.js';

export { LORE_CHUNK_TYPE } from '../core/types.js';

/** The turn a save's lore chunks sit at: 0, so no rewind (which deletes turns after N >= 0) ever removes them. */
export const LORE_TURN = 0;

/** What the lore book is built from. */
export interface LoreBookOptions {
  store: Store;
  embedder?: Embedder | null;
  reranker?: Reranker | null;
  logger?: Logger;
  clock?: Clock;
  /** Index terms of a text (default: `createAnalyzer()`, as narrative memory). */
  analyzer?: Analyzer;
  /** Defaults for every search; the retrieval ones (fusion, weights, feedback, caps, k, ...) apply to lore too. */
  queryDefaults?: QueryOptions;
  /** The narrative memory a save's lore chunks are written through (one is made when absent). */
  narrative?: NarrativeMemory;
}

/** Options of an import. */
export interface LoreImportOptions {
  /** Validate and report what would change, without writing or embedding anything. */
  dryRun?: boolean;
  /** Called after each batch of vectors: (texts embedded so far, texts to embed). */
  onProgress?: (done: number, total: number) => void;
}

/** What an import did (or, in a dry run, would do). */
export interface LoreImportReport {
  dryRun: boolean;
  /** The content files read, in manifest order (empty when entries came from code). */
  files: string[];
  /** Entries in the repository. */
  entries: number;
  created: LoreChangeSummary[];
  /** Updated entries, with the fields that changed (`embedder` when only the vectors were stale). */
  updated: (LoreChangeSummary & { changes: LoreChangeField[] })[];
  /** How many entries were already in line (no write, no embedding call). */
  unchanged: number;
  removed: LoreChangeSummary[];
  /** Texts sent to the embedder (0 in a dry run, and when nothing changed). */
  embedded: number;
  /** True when a transaction ran (false in a dry run and when nothing changed). */
  written: boolean;
  /** The book's version after the import. */
  version: number;
  /** Where this import read its lore: reader, location (no credentials), ref and the commit it resolved to. */
  origin: LoreOriginIdentity;
  /** Where the live lore came from before this import (null: never imported, or wiped); its commit to `origin.commit` is the range brought in. */
  previous: LoreOrigin | null;
}

/** What the book holds and where its live lore came from. */
export interface LoreStatus {
  entries: number;
  version: number;
  /** Recorded by the last import that wrote (null: never imported, or wiped). */
  origin: LoreOrigin | null;
}

/** The origin of entries given in code. */
const ENTRIES_ORIGIN: LoreOriginIdentity = { reader: 'entries', location: null, ref: null, commit: null };

const sameOrigin = (a: LoreOriginIdentity | null, b: LoreOriginIdentity) => a !== null && a.reader === b.reader && a.location === b.location && a.ref === b.ref && a.commit === b.commit;

/** Options of a lore search: the ranking options of every corpus (`k`, `fusion`, `feedback`, ...), and the character's tags. */
export interface LoreSearchOptions extends SearchOptions {
  /** The character's lore tags ([] = continental lore only). Required unless `ignoreScope` is set. */
  tags?: readonly string[];
  /** Search every entry whatever its scope (for authors and admins, never for a character's prompt). */
  ignoreScope?: boolean;
  /**
   * Conditions on the entries' metadata, every one of which must hold (AND), as in a chunk query (`MetadataWhere`:
   * a value, `{ in: [...] }`, `{ exists: boolean }`). Applied before ranking in both arms, with the tags.
   */
  where?: MetadataWhere;
}

/** A lore search result: the entry it maps back to, its score and why it ranked. */
export interface LoreHit {
  entryId: string;
  title: string;
  source: string;
  scopeLevel: ScopeLevel;
  scopeTags: string[];
  content: string;
  metadata: Metadata;
  score: number;
  explanation: Explanation;
}

/** A save's lore, as `syncToSave` takes it: one chunk per entry. */
export interface SaveLoreEntry {
  entryId: string;
  text: string;
  metadata?: Metadata;
}

/** A hit among a save's lore chunks, with the book entry it stands for (null when the id is not in the book). */
export interface SaveLoreHit extends Hit {
  entry: LoreEntry | null;
}

const BOOK = 'lore-book';

function summary(entry: { source: string; title: string; scopeLevel: ScopeLevel }): LoreChangeSummary {
  return { source: entry.source, title: entry.title, scopeLevel: entry.scopeLevel };
}

/** An entry as the book's index holds it: its content, its scope tags as labels (none for continental lore, which everyone knows), its metadata as fields. */
function loreDocument(row: LoreIndexRow): IndexDocument {
  return { id: row.id, text: row.content, embedding: row.embedding, labels: row.scopeLevel === 'continental' ? [] : row.scopeTags, fields: row.metadata };
}

/**
 * World knowledge shared by every save, scoped by tags: continental entries reach every character, any other entry
 * only a character holding all of its tags. The book is brought in line with a YAML repository by an import that
 * re-embeds only what changed, in one transaction.
 *
 * @example
 * ```ts
 * const memory = await openMemory({ path: 'game.db', embedder });
 * await memory.lore.importRepository('examples/lore');
 * const hits = await memory.lore.search('what runs under the marsh?', { tags: ['brackwater', 'lamplighters'], k: 3 });
 * ```
 */
export class LoreBook {
  readonly store: Store;
  readonly embedder: Embedder | null;
  readonly reranker: Reranker | null;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly cache: IndexCache;
  private readonly narrative: NarrativeMemory;
  private readonly searchDefaults: LoreSearchOptions;

  constructor(options: LoreBookOptions) {
    this.store = options.store;
    this.embedder = options.embedder ?? null;
    this.reranker = options.reranker ?? null;
    this.logger = onceLogger(options.logger ?? silentLogger);
    this.clock = options.clock ?? systemClock;
    this.narrative = options.narrative ?? new NarrativeMemory(options);
    const lore = this.store.lore;
    this.cache = new IndexCache(
      { scan: (_key, visit) => lore.scan((row) => visit(loreDocument(row))), version: () => lore.version() },
      { analyzer: corpusAnalyzer('lore', options.analyzer), neighbourWeight: CORPUS_DEFAULTS.lore.neighbourWeight },
    );
    this.searchDefaults = searchOptionsOf(options.queryDefaults ?? {});
  }

  /** The identity of the vectors this book makes, stored with each entry: `provider/model/dimensions`. */
  get embeddingModel(): string | null {
    return this.embedder === null ? null : `${this.embedder.provider}/${this.embedder.modelId}/${this.embedder.dimensions}`;
  }

  /**
   * Brings the book in line with a repository: a folder (a path, or `{ folder }`), or a git repository at a ref
   * (`{ git: { url, ref } }`, read without a checkout; see gitLoreSource). Everything is validated first: any
   * problem (reported with file, entry and line:column) or a repository without entries refuses the run and
   * writes nothing. Then new entries are created and embedded, changed ones updated and re-embedded, unchanged
   * ones left alone (no embedding call), and entries gone from the repository removed, in one transaction that
   * also records where the lore came from (reader, location, ref, commit, time). With `dryRun`, the report says
   * what would change (and the commit range) and nothing is written or embedded. Files whose bytes were already
   * validated by an earlier import are not parsed again (see StoredParseCache).
   *
   * @example
   * ```ts
   * const report = await memory.lore.importRepository({ git: { url: 'https://git.example/lore.git', ref: 'main' } }, { dryRun: true });
   * console.log(report.previous?.commit, '->', report.origin.commit, report.created.length);
   * ```
   */
  async importRepository(repository: LoreRepository, options: LoreImportOptions = {}): Promise<LoreImportReport> {
    const snapshot = await loreSourceOf(repository).snapshot();
    const cache = await StoredParseCache.load(this.store);
    const reading = await readLoreRepository(snapshot, { cache });
    if (reading.problems.length > 0) throw loreInvalidError(reading.problems);
    const report = await this.importValid(reading.entries, reading.files, reading.origin, options);
    if (!report.dryRun) await cache.save(this.store, reading.validFiles);
    return report;
  }

  /** The same contract as `importRepository`, for entries given in code: `{ source, title, content, scopeLevel, scopeTags }`. */
  async importEntries(entries: readonly LoreEntryInput[], options: LoreImportOptions = {}): Promise<LoreImportReport> {
    if (Array.isArray(entries) && entries.length > LIMITS.loreEntries) throw limitExceeded('entries', 'loreEntries', entries.length, 'Split the world into several books, or trim the list.', 'entries');
    const checked = validateLoreEntries(entries);
    if (checked.problems.length > 0) throw loreInvalidError(checked.problems);
    return this.importValid(checked.entries, [], ENTRIES_ORIGIN, options);
  }

  private async importValid(drafts: readonly LoreEntryDraft[], files: string[], origin: LoreOriginIdentity, options: LoreImportOptions): Promise<LoreImportReport> {
    if (drafts.length > LIMITS.loreEntries) throw limitExceeded('entries', 'loreEntries', drafts.length, 'Split the world into several books, or trim the repository.', 'entries');
    if (drafts.length === 0) {
      throw new MnemoError('LORE_EMPTY', 'The lore repository resolved no entries, so the import was refused rather than taken to mean the lore was deleted; nothing was written. List content files with entries in index.yaml, or use `lore wipe` to empty the book on purpose.', {
        details: { files: files.length },
      });
    }
    const expectedVersion = await this.store.lore.version();
    const previous = await this.store.lore.origin();
    const plan = planLoreImport(drafts, await this.store.lore.list(), expectedVersion, this.embeddingModel);
    const report: LoreImportReport = {
      dryRun: options.dryRun === true,
      files,
      entries: drafts.length,
      created: plan.create.map(summary),
      updated: plan.update.map(({ draft, changes }) => ({ ...summary(draft), changes })),
      unchanged: plan.unchanged.length,
      removed: plan.remove.map(summary),
      embedded: 0,
      written: false,
      version: expectedVersion,
      origin,
      previous,
    };
    const changes = plan.create.length + plan.update.length + plan.remove.length > 0;
    if (report.dryRun || (!changes && sameOrigin(previous, origin))) return report;
    const texts = textsToEmbed(plan);
    const vectors = this.embedder === null || texts.length === 0 ? null : await embedLoreTexts(this.embedder, texts, options.onProgress);
    const now = this.clock();
    const result = await this.store.lore.apply({ ...buildLoreChangeSet(plan, vectors, vectors === null ? null : this.embeddingModel, now), origin: { ...origin, importedAt: now } });
    return { ...report, embedded: vectors === null ? 0 : texts.length, written: true, version: result.version };
  }

  /**
   * Writes the whole book as a lore repository into a new or empty folder (see writeLoreRepository): index.yaml and
   * one YAML file per source, metadata included, which `importRepository` reads back with nothing to change.
   *
   * @example
   * ```ts
   * const { files, entries } = await memory.lore.exportRepository('lore-backup');
   * ```
   */
  async exportRepository(folder: string): Promise<LoreExportReport> {
    return writeLoreRepository(await this.store.lore.list(), folder);
  }

  /** How many entries the book holds, its version, and where its live lore came from. */
  async status(): Promise<LoreStatus> {
    return { entries: await this.store.lore.count(), version: await this.store.lore.version(), origin: await this.store.lore.origin() };
  }

  /** Deletes every entry of the book in one transaction; returns how many. An import restores them. */
  async wipe(): Promise<number> {
    return (await this.store.lore.wipe()).removed;
  }

  /**
   * Entries ordered by source and title; `tags` keeps those a character holding them may know (filtered in the
   * store's query); `offset` and `limit` page through them (in the store's query too).
   */
  async list(options: { tags?: readonly string[]; source?: string; offset?: number; limit?: number } = {}): Promise<LoreEntry[]> {
    return this.store.lore.list({
      accessibleTo: options.tags === undefined ? undefined : requireCharacterTags(options.tags),
      source: options.source,
      offset: optionalCount(options.offset, 'offset'),
      limit: optionalCount(options.limit, 'limit'),
    });
  }

  /** One entry by id, or null. */
  async get(id: string): Promise<LoreEntry | null> {
    return (await this.store.lore.get([id]))[0] ?? null;
  }

  /** Number of entries in the book. */
  async count(): Promise<number> {
    return this.store.lore.count();
  }

  /**
   * Hybrid search of the book as one character: entries it may not know are filtered out before ranking in both
   * arms, so when the best matches are hidden from it, the ones it may know still fill k, and every statistic a
   * score rests on (BM25's, the z-score standardisation) is that of the entries it may know: adding, changing or
   * removing an entry it may not know changes none of its scores. A `where` filter on the entries' metadata is
   * applied the same way (before ranking, with the tags; the scores are then those of the entries both let
   * through). Each hit maps back to its entry and says why it ranked.
   *
   * @example
   * ```ts
   * await memory.lore.search('who collects the toll?', { tags: ['brackwater'], where: { quest: 'salt' }, k: 3 });
   * ```
   */
  async search(query: string, searchOptions: LoreSearchOptions = {}): Promise<LoreHit[]> {
    const options: LoreSearchOptions = { ...this.searchDefaults, ...searchOptions };
    const request = resolveSearchRequest('lore', query, options);
    const held = options.ignoreScope === true ? undefined : requireCharacterTags(options.tags);
    const fields = resolveMetadataWhere(options.where);
    const index = await this.cache.get(BOOK);
    const { hits } = await searchCorpus({
      request,
      index,
      embedder: this.embedder,
      logger: this.logger,
      accept: index.filterFor({ labelsWithin: held, fields }),
      // The entries a character may not know weigh on no score: a score or an order never tells what they hold.
      statisticsOfAccepted: true,
      reranker: this.reranker,
      read: (ids) => this.store.lore.get(ids),
      idOf: (entry) => entry.id,
      textOf: (entry) => entry.content,
    });
    return hits.map(({ document: entry, score, explanation }) => ({ entryId: entry.id, title: entry.title, source: entry.source, scopeLevel: entry.scopeLevel, scopeTags: entry.scopeTags, content: entry.content, metadata: entry.metadata, score, explanation }));
  }

  /**
   * Embeds a save's lore as chunks of type `lore` at turn 0 (so they survive any rewind), each carrying its entry
   * id and metadata (the entry's own keys, under its title, source, scopeLevel and scopeTags, which win), replacing the save's previous lore chunks in one transaction (idempotent). Without `entries`, the whole
   * book is used. Returns the number of chunks written. Chunk queries leave them out unless they ask for them
   * (`chunkType: 'lore'` or `includeLore`), so lore never takes the narrative's k budget; `searchSave` searches
   * these chunks on their own.
   */
  async syncToSave(saveId: string, entries?: readonly SaveLoreEntry[]): Promise<number> {
    requireSaveId(saveId);
    if (entries !== undefined && !Array.isArray(entries)) {
      throw new MnemoError('INVALID_INPUT', 'entries: expected an array of { entryId, text }, got something else. Leave it out to use the whole lore book.');
    }
    const chunks = entries === undefined
      ? (await this.store.lore.list()).map((entry) => ({ entryId: entry.id, text: entry.content, metadata: { ...entry.metadata, title: entry.title, source: entry.source, scopeLevel: entry.scopeLevel, scopeTags: entry.scopeTags } }))
      : entries.map((entry, index) => {
        if (typeof entry?.entryId !== 'string' || entry.entryId === '') {
          throw new MnemoError('INVALID_INPUT', `entries[${index}].entryId: expected the id of the lore entry (a non-empty string), got ${JSON.stringify(entry?.entryId)}.`, { details: { field: `entries[${index}].entryId` } });
        }
        return { entryId: entry.entryId, text: entry.text, metadata: entry.metadata };
      });
    return (await this.narrative.replaceTurn({ saveId, turnId: LORE_TURN, chunkType: LORE_CHUNK_TYPE, chunks })).length;
  }

  /** Searches only a save's lore chunks (its own k budget), each hit with the book entry it stands for. */
  async searchSave(saveId: string, query: string, options: Omit<QueryOptions, 'chunkType' | 'excludeChunkType' | 'includeLore'> = {}): Promise<SaveLoreHit[]> {
    const hits = await this.narrative.query(saveId, query, { ...options, chunkType: LORE_CHUNK_TYPE });
    const ids = [...new Set(hits.flatMap((hit) => (hit.entryId === null ? [] : [hit.entryId])))];
    const entries = new Map((await this.store.lore.get(ids)).map((entry) => [entry.id, entry]));
    return hits.map((hit) => ({ ...hit, entry: hit.entryId === null ? null : (entries.get(hit.entryId) ?? null) }));
  }
}
