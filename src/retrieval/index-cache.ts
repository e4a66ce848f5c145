// Keeps one CorpusIndex per corpus (a save, the lore book, a recall scope) in memory, in step with the store through its version number.
import { silentLogger } from '../core/logger.js';
import { runStepsSliced, TimeSlice } from '../core/time-slice.js';
import type { Logger } from '../core/logger.js';
import type { WriteResult } from '../seams/store.js';
import { CorpusIndex } from './corpus-index.js';
import type { CorpusIndexOptions, IndexDocument } from './corpus-index.js';
import type { IndexSnapshots } from './snapshot-directory.js';
import type { SnapshotFile } from './snapshot-file.js';
import { SnapshotReader, SnapshotRejected, SnapshotWriter } from './snapshot-format.js';

/** Where the cache reads a corpus and its version from. */
export interface CorpusSource {
  /** Streams the corpus's documents to `visit` (without vectors for an index made with `vectors: false`); returns the version read before them. */
  scan(key: string, visit: (document: IndexDocument) => void): Promise<number>;
  /** The corpus's version: it grows with every write and is 0 only for a corpus never written (it holds nothing). */
  version(key: string): Promise<number>;
  /** About how many rows `scan` will visit (a capacity hint; optional). */
  count?(key: string): Promise<number>;
}

/**
 * How indexes are persisted, so that a corpus opens without a rebuild. A persisted index is used only when its
 * key, its identity, the index configuration and the corpus's version all match, its header's checksum holds and
 * `verify` accepts its first and last live documents; otherwise the index is rebuilt from the store (and the
 * logger says why, once). Its sections are checked as they are read: one found corrupt at its first use (in a
 * query, see `IndexCache.use`) makes the cache drop the index and answer from one rebuilt from the store.
 */
export interface IndexPersistence {
  snapshots: IndexSnapshots;
  /** What else the index must match (the store's instance id, the embedder's identity), read once. */
  identity(): Promise<string>;
  /**
   * True when the corpus still holds these documents (the first and last live ones of the persisted index): a
   * corpus deleted and written again can reach the same version number with other documents.
   */
  verify(key: string, boundaryIds: readonly [string, string]): Promise<boolean>;
  /**
   * How long after the last write the index is persisted again (each write in between puts it off, so a bulk
   * load of many batches persists once, at its end); default 2000 ms.
   */
  delayMs?: number;
  /** The longest a persist is put off by writes that keep coming, from the first write not yet persisted; default 30 × `delayMs`. */
  maxDelayMs?: number;
}

/** How the cache is set up. */
export interface IndexCacheOptions extends CorpusIndexOptions {
  /** Share of removed slots above which an index is rebuilt rather than kept (default 0.5). */
  maxRemovedRatio?: number;
  /** Bytes the cache's indexes may hold together (default: no bound); the least recently used are evicted first. */
  memoryBudgetBytes?: number;
  persistence?: IndexPersistence | null;
  /** Where a persisted index that could not be used is reported (once per reason). */
  logger?: Logger;
}

/**
 * A cache of search indexes, one per key (a save id, a scope). A query checks the corpus's version (one cheap read); when another process
 * wrote, the index is rebuilt from the store. Writes made through this process are applied in place, so a turn
 * added during play costs its own tokens, not a rebuild. With `persistence`, an index is read back from its
 * persisted copy instead of rebuilt, and persisted again in the background after writes. With
 * `memoryBudgetBytes`, the least recently used indexes are evicted (persisted first) to stay within it.
 *
 * @example
 * ```ts
 * const cache = new IndexCache({ scan: (saveId, visit) => store.scanChunks(saveId, (row) => visit(chunkDocument(row))),
 *   version: (saveId) => store.saveVersion(saveId) });
 * const index = await cache.get('campaign-1');
 * ```
 */
export class IndexCache {
  /** In order of use, the least recently used first. */
  private readonly indexes = new Map<string, CorpusIndex>();
  private readonly building = new Map<string, Promise<CorpusIndex>>();
  /** Keys whose index changed since it was last persisted: the timer that will persist it, and the latest time it may fire (ms). */
  private readonly dirty = new Map<string, { timer: NodeJS.Timeout; latest: number }>();
  /** The write being applied to each key's index, in slices (see `afterWrite`); later writes of the key queue behind it. */
  private readonly applying = new Map<string, Promise<void>>();
  /** Each key whose index is being persisted: its writes wait for it (see `holdWrites`). */
  private readonly holding = new Map<string, Promise<void>>();
  /** The persist running for each key (writes of one key never overlap). */
  private readonly writing = new Map<string, Promise<void>>();
  /** Keys whose persisted index was found corrupt in use: their next open rebuilds from the store (and persists anew). */
  private readonly unusable = new Set<string>();
  /**
   * Indexes started empty by a corpus's first write (see `applyWrite`) and not asked for since: while only appends
   * came, each is the index a build from the store makes; the first write that removes a document drops it.
   */
  private readonly appendedOnly = new WeakSet<CorpusIndex>();
  /** Queries running on each index (`use`): one dropped or evicted meanwhile closes its file when the last ends. */
  private readonly users = new Map<CorpusIndex, number>();
  private identity: Promise<string> | null = null;
  private readonly persistence: IndexPersistence | null;
  private readonly logger: Logger;

  /** With `vectors: false` (the store searches vectors itself) indexes hold only the vectors' lengths. */
  constructor(private readonly source: CorpusSource, private readonly options: IndexCacheOptions = {}) {
    this.persistence = options.persistence ?? null;
    this.logger = options.logger ?? silentLogger;
  }

  /** The index of a corpus, refreshed if the store moved on. */
  async get(key: string): Promise<CorpusIndex> {
    // A write being applied in slices is seen whole or not at all: wait for it (and for any queued after it).
    await this.applied(key);
    const cached = this.indexes.get(key);
    const version = await this.source.version(key);
    if (cached !== undefined && cached.version === version) {
      this.appendedOnly.delete(cached);
      this.indexes.delete(key);
      this.indexes.set(key, cached);
      return cached;
    }
    const pending = this.building.get(key);
    if (pending !== undefined) return pending;
    const build = this.open(key, version).finally(() => this.building.delete(key));
    this.building.set(key, build);
    return build;
  }

  /**
   * Runs `work` on the index of `key` (as `get` gives it). When `work` meets a part of a persisted index that is
   * corrupt (a SnapshotRejected: its sections are read and checked at their first use), the index is dropped,
   * the log says so once, and `work` runs again on an index rebuilt from the store: no answer comes from a
   * corrupt section.
   *
   * @example
   * ```ts
   * const hits = await cache.use('campaign-1', (index) => index.semantic(vector, 10));
   * ```
   */
  async use<T>(key: string, work: (index: CorpusIndex) => T | Promise<T>): Promise<T> {
    const index = await this.get(key);
    this.users.set(index, (this.users.get(index) ?? 0) + 1);
    try {
      return await work(index);
    } catch (error) {
      if (!(error instanceof SnapshotRejected)) throw error;
      if (this.indexes.get(key) === index) this.drop(key);
      this.reject(key, error);
      return await work(await this.get(key));
    } finally {
      const users = (this.users.get(index) as number) - 1;
      if (users > 0) this.users.set(index, users);
      else {
        this.users.delete(index);
        // Dropped or evicted while this query ran: its file is released now that nobody reads it.
        if (this.indexes.get(key) !== index) index.closeSnapshot();
      }
    }
  }

  /** Says a persisted index (dropped) had a corrupt part found in use: the next open of `key` rebuilds it from the store. */
  private reject(key: string, error: SnapshotRejected): void {
    this.unusable.add(key);
    this.logger.info(`the persisted index of ${key} was not used: it is unreadable: ${error.message}; rebuilt from the store`);
  }

  /** True when `key`'s index is held in memory now (its next query reads nothing to open it). */
  holds(key: string): boolean {
    return this.indexes.has(key);
  }

  /** Indexes held in memory now, and their estimated bytes. */
  get held(): { indexes: number; bytes: number } {
    let bytes = 0;
    for (const index of this.indexes.values()) bytes += index.byteSize;
    return { indexes: this.indexes.size, bytes };
  }

  private async open(key: string, version: number): Promise<CorpusIndex> {
    const loaded = this.persistence === null || this.unusable.delete(key) ? null : await this.load(key, version, this.persistence);
    const index = loaded ?? (await this.build(key));
    const previous = this.indexes.get(key);
    if (previous !== undefined) this.release(previous);
    this.indexes.delete(key);
    this.indexes.set(key, index);
    if (loaded === null && this.persistence !== null) this.markDirty(key, 0);
    this.evict(key);
    return index;
  }

  private async build(key: string): Promise<CorpusIndex> {
    const index = new CorpusIndex(0, this.options);
    if (this.source.count !== undefined) index.reserve(await this.source.count(key));
    index.version = await this.source.scan(key, (document) => index.add([document]));
    return index;
  }

  /** The persisted index of `key` if it stands for the corpus at `version`; null (said once in the log) otherwise. */
  private async load(key: string, version: number, persistence: IndexPersistence): Promise<CorpusIndex | null> {
    const configuration = new CorpusIndex(0, this.options).configuration;
    if (configuration === null) return null;
    let file: SnapshotFile | null;
    try {
      file = persistence.snapshots.open(key);
    } catch (error) {
      this.logger.warn(`the persisted index of ${key} in ${persistence.snapshots.location} could not be read (${(error as Error).message}); rebuilt from the store`);
      return null;
    }
    if (file === null) return null;
    let problem: string;
    let reader: SnapshotReader | null = null;
    try {
      reader = SnapshotReader.open(file);
      const { header } = reader;
      if (header['key'] !== key || header['identity'] !== (await this.identityOf(persistence)) || header['configuration'] !== configuration) {
        problem = 'it was made for another store, embedder, analyzer or save';
      } else if (header['version'] !== version) {
        problem = `it is stale (version ${String(header['version'])}, the store is at ${version})`;
      } else {
        const index = CorpusIndex.readState(reader, version, this.options);
        // The sections the first query does not need stay in the file until used (it closes once they are read).
        reader.done();
        const boundary = index.boundaryIds;
        if (boundary === null || (await persistence.verify(key, boundary))) return index;
        problem = 'its documents are no longer in the store';
      }
    } catch (error) {
      problem = `it is unreadable: ${(error as Error).message}`;
    }
    reader?.close();
    this.logger.info(`the persisted index of ${key} was not used: ${problem}; rebuilt from the store`);
    return null;
  }

  private identityOf(persistence: IndexPersistence): Promise<string> {
    this.identity ??= persistence.identity();
    return this.identity;
  }

  /**
   * Applies a write this process made, once the writes of `key` applied before it are. When the cached index was
   * exactly one step behind, `apply` updates it in place (it may take several turns of the event loop: `get` and
   * the persisted copy wait until it is done, so no query sees half a write); otherwise (another writer got in
   * between, or too much was removed) the index is dropped and rebuilt lazily. Resolves once the index is in step
   * (never rejects: an `apply` that fails drops the index, said in the log).
   */
  afterWrite(key: string, result: WriteResult, apply: (index: CorpusIndex) => void | Promise<void>): Promise<void> {
    // Behind the writes of the key being applied, or else behind a persist of its index under way.
    const previous = this.applying.get(key) ?? this.holding.get(key);
    const outcome = previous === undefined ? this.applyWrite(key, result, apply) : previous.then(() => this.applyWrite(key, result, apply));
    if (outcome === undefined) return Promise.resolve();
    const tracked = outcome.catch((error: unknown) => {
      this.drop(key);
      // A part of its persisted copy found corrupt (read whole before the index changes): never opened again.
      if (error instanceof SnapshotRejected) return this.reject(key, error);
      this.logger.warn(`the index of ${key} could not take a write in place (${(error as Error).message}); it will be rebuilt from the store`);
    }).finally(() => {
      if (this.applying.get(key) === tracked) this.applying.delete(key);
    });
    this.applying.set(key, tracked);
    return tracked;
  }

  /**
   * Applies one write to the cached index (synchronously when `apply` is), then persists and evicts as needed. The
   * first write of a corpus (from version 0, so it held nothing) starts its index empty and in memory: a bulk load
   * builds the index as it writes, and its first query (or `warm`) neither reads the store back nor rebuilds.
   * Until it is first asked for, a write that removes documents drops it (it is built from the store when asked):
   * an index whose documents were removed in place holds their slots, which a build from the store would not.
   */
  private applyWrite(key: string, result: WriteResult, apply: (index: CorpusIndex) => void | Promise<void>): Promise<void> | undefined {
    if (result.version === result.previousVersion) return undefined;
    const cached = this.indexes.get(key) ?? (result.previousVersion === 0 && !this.building.has(key) ? this.startEmpty(key) : undefined);
    if (cached === undefined) return undefined;
    if (cached.version !== result.previousVersion) {
      this.drop(key);
      return undefined;
    }
    const applying = apply(cached);
    if (applying === undefined) {
      this.settle(key, cached, result.version);
      return undefined;
    }
    return applying.then(() => this.settle(key, cached, result.version));
  }

  /** An empty index for `key` at version 0, held as if built (a corpus never written holds nothing). */
  private startEmpty(key: string): CorpusIndex {
    const index = new CorpusIndex(0, this.options);
    this.indexes.set(key, index);
    this.appendedOnly.add(index);
    return index;
  }

  private settle(key: string, index: CorpusIndex, version: number): void {
    index.version = version;
    // Dropped, forgotten or evicted while the write was applied: nothing more to keep in step.
    if (this.indexes.get(key) !== index) return;
    if (index.removedRatio > (this.appendedOnly.has(index) ? 0 : (this.options.maxRemovedRatio ?? 0.5))) {
      this.drop(key);
      return;
    }
    if (this.persistence !== null) {
      const delayMs = this.persistence.delayMs ?? 2000;
      this.markDirty(key, delayMs, this.persistence.maxDelayMs ?? 30 * delayMs);
    }
    this.evict(key);
  }

  /**
   * Says a write of `key` is starting (its store write and embedding come before `afterWrite`): a persist due is put
   * off as a write applied would put it off, so the batches of a bulk load, back to back, are not persisted between
   * them (each persist would hold the next batch and make its int8 copy again).
   *
   * @example
   * ```ts
   * cache.writeStarting(saveId);
   * const result = await store.insertChunks(chunks);
   * await cache.afterWrite(saveId, result, (index) => index.addSliced(documents));
   * ```
   */
  writeStarting(key: string): void {
    if (this.persistence === null || !this.dirty.has(key)) return;
    const delayMs = this.persistence.delayMs ?? 2000;
    this.markDirty(key, delayMs, this.persistence.maxDelayMs ?? 30 * delayMs);
  }

  /** Resolves once no write of `key` is being applied. */
  private async applied(key: string): Promise<void> {
    for (let pending = this.applying.get(key); pending !== undefined; pending = this.applying.get(key)) await pending;
  }

  /**
   * Forgets the index of one corpus (it rebuilds on its next query), in memory and its persisted copy: the file is
   * removed in the background after any write of the key already running (`flush` waits for it).
   */
  forget(key: string): void {
    this.drop(key);
    const persistence = this.persistence;
    if (persistence === null) return;
    const previous = this.writing.get(key) ?? Promise.resolve();
    const removal = previous
      .then(() => persistence.snapshots.remove(key))
      .catch((error: unknown) => this.logger.warn(`the persisted index of ${key} in ${persistence.snapshots.location} could not be removed (${(error as Error).message}); it will not be used (its save's version or chunks differ)`))
      .finally(() => {
        if (this.writing.get(key) === removal) this.writing.delete(key);
      });
    this.writing.set(key, removal);
  }

  /** Forgets every index (they rebuild on the next query). */
  clear(): void {
    for (const key of [...this.indexes.keys()]) this.drop(key);
  }

  /** Persists every index changed since it was last persisted, now, and waits for the writes. */
  async flush(): Promise<void> {
    await Promise.all([...this.applying.keys()].map((key) => this.applied(key)));
    for (const key of [...this.dirty.keys()]) this.persistNow(key);
    await Promise.all(this.writing.values());
  }

  private drop(key: string): void {
    const index = this.indexes.get(key);
    if (index !== undefined) this.release(index);
    this.indexes.delete(key);
    clearTimeout(this.dirty.get(key)?.timer);
    this.dirty.delete(key);
  }

  /**
   * Persists `key`'s index `delayMs` from now: a persist already due is put off to then (writes in between fold
   * in), but never past `maxDelayMs` after the write that first made it due.
   */
  private markDirty(key: string, delayMs: number, maxDelayMs = delayMs): void {
    const now = Date.now();
    const due = this.dirty.get(key);
    const latest = due?.latest ?? now + maxDelayMs;
    clearTimeout(due?.timer);
    const entry = { timer: setTimeout(() => this.persistDue(key, entry, delayMs, maxDelayMs), Math.max(0, Math.min(delayMs, latest - now))), latest };
    entry.timer.unref();
    this.dirty.set(key, entry);
  }

  /**
   * The timer of a persist due: persists now, unless a write of the key is being applied (a bulk load's next batch,
   * in slices); the end of that write puts the persist off again, so a persist never waits for it and then holds
   * the next batch. Re-armed here when that write did not (its index was replaced meanwhile).
   */
  private persistDue(key: string, entry: { timer: NodeJS.Timeout; latest: number }, delayMs: number, maxDelayMs: number): void {
    const applying = this.applying.get(key);
    if (applying === undefined) return this.persistNow(key);
    void applying.then(() => {
      if (this.dirty.get(key) === entry) this.markDirty(key, delayMs, maxDelayMs);
    });
  }

  /**
   * Writes `key`'s index as it is now, after any earlier write of the key, in the background and in slices of a
   * few milliseconds (compacting, the int8 copy, the sections, the checksum), so other requests go on. Writes of
   * the key wait meanwhile (they queue as `afterWrite` queues them; queries go on, but one that comes after a queued
   * write waits for it), so the bytes are the index at the version they name. A failure is logged; the store is untouched.
   */
  private persistNow(key: string): void {
    const persistence = this.persistence;
    const given = this.indexes.get(key);
    clearTimeout(this.dirty.get(key)?.timer);
    this.dirty.delete(key);
    if (persistence === null || given === undefined || given.configuration === null) return;
    const configuration = given.configuration;
    const previous = this.writing.get(key) ?? Promise.resolve();
    const write = previous
      .then(async () => {
        const identity = await this.identityOf(persistence);
        // Held from the moment no write of the key is being applied (one can begin while `applied` returns).
        do await this.applied(key);
        while (this.applying.has(key));
        const release = this.holdWrites(key);
        try {
          const slice = new TimeSlice();
          let index = this.indexes.get(key) ?? given;
          // A bulk load's index, not asked for yet and without its int8 copy: the copy is made for the file only.
          const forFileOnly = this.appendedOnly.has(index) && !index.prepared;
          // An index changed in place is persisted as a fresh build of its documents would be (its int8 copy made
          // again, or a compacted copy that replaces it in memory once its int8 copy is made, so no query makes it).
          const fresh = await runStepsSliced(index.freshSteps(), slice);
          await runStepsSliced(fresh.prepareSteps(), slice);
          if (fresh !== index && this.indexes.get(key) === index) this.indexes.set(key, fresh);
          index = fresh;
          const writer = new SnapshotWriter();
          const scalars = await runStepsSliced(index.writeStateSteps(writer), slice);
          const pieces = await runStepsSliced(writer.finishSteps({ key, identity, configuration, version: index.version, ...scalars }), slice);
          await persistence.snapshots.write(key, pieces);
          // Kept, it would be kept in step with every later batch, made again at the load's end, and held meanwhile.
          if (forFileOnly && this.appendedOnly.has(index)) index.releaseMadeForFile();
        } finally {
          release();
        }
      })
      .catch((error: unknown) => {
        // A part of the persisted copy it was read from is corrupt (met while writing it out): drop it.
        if (error instanceof SnapshotRejected) {
          if (this.indexes.get(key) === given) this.drop(key);
          return this.reject(key, error);
        }
        this.logger.warn(`the index of ${key} could not be persisted in ${persistence.snapshots.location} (${(error as Error).message}); it will be rebuilt when next opened`);
      })
      .finally(() => {
        if (this.writing.get(key) === write) this.writing.delete(key);
      });
    this.writing.set(key, write);
  }

  /** Makes the writes of `key` that come from now wait (behind `afterWrite`'s queue) until the returned function is called. */
  private holdWrites(key: string): () => void {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    this.holding.set(key, held);
    return () => {
      if (this.holding.get(key) === held) this.holding.delete(key);
      release();
    };
  }

  /** Closes the persisted file of an index leaving the cache, now or (a query reads it) when the last query ends. */
  private release(index: CorpusIndex): void {
    if (!this.users.has(index)) index.closeSnapshot();
  }

  /** Evicts the least recently used indexes (persisting those with changes) until the rest fit the budget; `keep` stays. */
  private evict(keep: string): void {
    const budget = this.options.memoryBudgetBytes;
    if (budget === undefined || !Number.isFinite(budget)) return;
    let bytes = this.held.bytes;
    for (const [key, index] of this.indexes) {
      if (bytes <= budget) break;
      if (key === keep) continue;
      // A changed index was read whole from its file before it changed; one not changed releases its file now.
      if (this.dirty.has(key)) this.persistNow(key);
      else this.release(index);
      bytes -= index.byteSize;
      this.indexes.delete(key);
    }
  }
}
