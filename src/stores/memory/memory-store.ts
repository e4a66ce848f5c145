// The in-memory adapter of the Store seam: the same contract as SQLite, held in maps, gone when the process ends.
import { MnemoError } from '../../core/errors.js';
import { requireForkable, saveTaken } from '../../core/fork-rules.js';
import { pickMetadata } from '../../core/pick-metadata.js';
import { runRowProgram } from '../../core/row-program.js';
import type { Chunk, SaveSummary } from '../../core/types.js';
import { newId } from '../../core/ids.js';
import { deleteLiving } from '../../living/store/delete-living.js';
import { forkLiving } from '../../living/store/fork-living.js';
import { writeLivingLayer } from '../../living/store/save-layer.js';
import { rewindLiving } from '../../living/store/rewind-living.js';
import { RowLivingStore } from '../../living/store/row-living-store.js';
import { syncLivingBackend } from '../../living/store/sync-living-backend.js';
import type { ChunkPage, ChunkSelection, DeleteChunksOptions, ListChunksOptions, NewChunk, TurnSummary } from '../../seams/chunk-store.js';
import type { EmbeddingStore } from '../../seams/embedding-store.js';
import type { IndexRow, ScanOptions } from '../../seams/index-row.js';
import type { LoreStore } from '../../seams/lore-store.js';
import type { RecallStore } from '../../seams/recall-store.js';
import type { DeleteCounts, ForkCounts, ImportCounts, RewindCounts, SaveImport } from '../../seams/save-store.js';
import type { Store } from '../../seams/store.js';
import type { WriteResult } from '../../seams/write-result.js';
import { InMemoryEmbeddingStore } from './embedding-store.js';
import { InMemoryRecallStore } from './recall-store.js';
import { InMemoryLoreStore } from './lore-store.js';
import { InMemoryLivingRows } from './living-rows.js';
import type { StoredChunk } from './memory-connection.js';
import { requireListChunksOptions } from '../list-chunks-options.js';

const clone = <T>(value: T): T => structuredClone(value);

function toChunk(stored: StoredChunk): Chunk {
  return {
    id: stored.id,
    saveId: stored.saveId,
    turnId: stored.turnId,
    chunkType: stored.chunkType,
    text: stored.text,
    entryId: stored.entryId,
    metadata: clone(stored.metadata),
    createdAt: stored.createdAt,
  };
}

/** One page of a listing: `offset` items skipped, at most `limit` kept. */
function page<T>(items: T[], options: ListChunksOptions): T[] {
  const start = options.offset ?? 0;
  return items.slice(start, options.limit === undefined ? undefined : start + options.limit);
}

/**
 * A store in process memory: for tests, short-lived agents and caches. Each method is atomic because it runs
 * to completion without yielding.
 *
 * @example
 * ```ts
 * const store = openInMemoryStore();
 * ```
 */
export class InMemoryStore implements Store {
  readonly provider = 'memory';
  readonly location = ':memory:';
  private readonly recallEntries = new InMemoryRecallStore(() => this.ensureOpen());
  private readonly loreEntries = new InMemoryLoreStore(() => this.ensureOpen());
  readonly recall: RecallStore = this.recallEntries;
  readonly lore: LoreStore = this.loreEntries;
  readonly embeddings: EmbeddingStore = new InMemoryEmbeddingStore({
    assertOpen: () => this.ensureOpen(),
    allChunks: () => [...this.chunks.values()].sort((a, b) => a.seq - b.seq),
    bumpEverySave: () => {
      for (const saveId of this.versions.keys()) this.bump(saveId);
    },
    recall: this.recallEntries,
    lore: this.loreEntries,
  });
  private readonly livingRows = new InMemoryLivingRows();
  private readonly whenOpen = <T>(work: () => T): T => {
    this.ensureOpen();
    return work();
  };
  readonly living = new RowLivingStore(syncLivingBackend(this.livingRows, { read: this.whenOpen, write: this.whenOpen }));
  private readonly chunks = new Map<string, StoredChunk>();
  private readonly versions = new Map<string, number>();
  /** The last version of each deleted save: written again, it goes on from there (its versions never repeat). */
  private readonly tombstones = new Map<string, number>();
  private readonly meta = new Map<string, string>();
  private seq = 0;
  private closed = false;

  private ensureOpen(): void {
    if (this.closed) throw new MnemoError('STORE_CLOSED', 'The in-memory store is closed. Open a new one with openMemory().');
  }

  private bump(saveId: string): [number, number] {
    const previous = this.versionOf(saveId);
    this.versions.set(saveId, previous + 1);
    this.tombstones.delete(saveId);
    return [previous, previous + 1];
  }

  private versionOf(saveId: string): number {
    return this.versions.get(saveId) ?? this.tombstones.get(saveId) ?? 0;
  }

  private saveChunks(saveId: string): StoredChunk[] {
    return [...this.chunks.values()].filter((chunk) => chunk.saveId === saveId).sort((a, b) => a.seq - b.seq);
  }

  private insertAll(chunks: readonly NewChunk[]): void {
    for (const chunk of chunks) {
      if (this.chunks.has(chunk.id)) throw new MnemoError('CONFLICT', `A chunk with id ${chunk.id} already exists.`);
    }
    for (const chunk of chunks) {
      this.chunks.set(chunk.id, { ...clone(chunk), embedding: chunk.embedding === null ? null : new Float32Array(chunk.embedding), seq: ++this.seq });
    }
  }

  async insertChunks(chunks: readonly NewChunk[]): Promise<WriteResult> {
    this.ensureOpen();
    if (chunks.length === 0) return { previousVersion: 0, version: 0, count: 0 };
    const saveIds = new Set(chunks.map((chunk) => chunk.saveId));
    if (saveIds.size !== 1) throw new MnemoError('INVALID_INPUT', `One write holds chunks of one save, got ${saveIds.size} saves. Write each save separately.`);
    this.insertAll(chunks);
    const [previousVersion, version] = this.bump(chunks[0]!.saveId);
    return { previousVersion, version, count: chunks.length };
  }

  async replaceTurn(saveId: string, turnId: number, chunkType: string, chunks: readonly NewChunk[]): Promise<WriteResult & { removed: number }> {
    this.ensureOpen();
    const doomed = this.saveChunks(saveId).filter((chunk) => chunk.turnId === turnId && chunk.chunkType === chunkType);
    for (const chunk of chunks) {
      if (this.chunks.has(chunk.id)) throw new MnemoError('CONFLICT', `A chunk with id ${chunk.id} already exists.`);
    }
    for (const chunk of doomed) this.chunks.delete(chunk.id);
    this.insertAll(chunks);
    if (doomed.length === 0 && chunks.length === 0) {
      const version = this.versionOf(saveId);
      return { previousVersion: version, version, count: 0, removed: 0 };
    }
    const [previousVersion, version] = this.bump(saveId);
    return { previousVersion, version, count: chunks.length, removed: doomed.length };
  }

  async deleteChunks(saveId: string, selection: ChunkSelection, options: DeleteChunksOptions = {}): Promise<WriteResult & { removed: string[] }> {
    this.ensureOpen();
    const ids = 'entryId' in selection ? null : new Set(selection.ids);
    const selected = (chunk: StoredChunk) => (ids === null ? chunk.entryId === (selection as { entryId: string }).entryId : ids.has(chunk.id));
    const doomed = this.saveChunks(saveId).filter((chunk) => selected(chunk) && chunk.chunkType !== options.excludeChunkType);
    for (const chunk of doomed) this.chunks.delete(chunk.id);
    const removed = doomed.map((chunk) => chunk.id);
    if (removed.length === 0) {
      const version = this.versions.get(saveId) ?? 0;
      return { previousVersion: version, version, count: 0, removed };
    }
    const [previousVersion, version] = this.bump(saveId);
    return { previousVersion, version, count: removed.length, removed };
  }

  async rewind(saveId: string, turnId: number): Promise<WriteResult & { removed: RewindCounts }> {
    this.ensureOpen();
    const doomed = this.saveChunks(saveId).filter((chunk) => chunk.turnId > turnId);
    for (const chunk of doomed) this.chunks.delete(chunk.id);
    const living = runRowProgram(rewindLiving(saveId, turnId), this.livingRows);
    if (doomed.length === 0) {
      const version = this.versionOf(saveId);
      return { previousVersion: version, version, count: 0, removed: { chunks: 0, living } };
    }
    const [previousVersion, version] = this.bump(saveId);
    return { previousVersion, version, count: doomed.length, removed: { chunks: doomed.length, living } };
  }

  async fork(saveId: string, newSaveId: string, atTurn: number): Promise<ForkCounts> {
    this.ensureOpen();
    const holdsData = (id: string) => this.versions.has(id) || this.livingRows.holdsData(id);
    requireForkable(saveId, newSaveId, { targetHoldsData: holdsData(newSaveId), sourceHoldsData: holdsData(saveId) });
    const copies = this.saveChunks(saveId).filter((chunk) => chunk.turnId <= atTurn)
      .map((chunk) => ({ ...chunk, id: newId(), saveId: newSaveId, metadata: { ...chunk.metadata, saveId: newSaveId } }));
    this.insertAll(copies);
    this.bump(newSaveId);
    return { chunks: copies.length, living: runRowProgram(forkLiving(saveId, newSaveId, atTurn), this.livingRows) };
  }

  async deleteSave(saveId: string): Promise<DeleteCounts> {
    this.ensureOpen();
    const doomed = this.saveChunks(saveId);
    for (const chunk of doomed) this.chunks.delete(chunk.id);
    const living = runRowProgram(deleteLiving(saveId), this.livingRows);
    const version = this.versions.get(saveId);
    if (version !== undefined) this.tombstones.set(saveId, version + 1);
    this.versions.delete(saveId);
    return { chunks: doomed.length, living };
  }

  async importSave(saveId: string, save: SaveImport): Promise<WriteResult & { imported: ImportCounts }> {
    this.ensureOpen();
    if (this.versions.has(saveId) || this.livingRows.holdsData(saveId)) throw saveTaken(saveId, 'import');
    // All or nothing: the chunks are gathered first (a failing batch leaves the store as it was), then written.
    const chunks = [...save.chunks].flat();
    this.insertAll(chunks);
    const living = runRowProgram(writeLivingLayer(saveId, save.living), this.livingRows);
    const [previousVersion, version] = this.bump(saveId);
    return { previousVersion, version, count: chunks.length, imported: { chunks: chunks.length, living } };
  }

  async pageChunks(saveId: string, options: { after?: number; limit: number; vectors?: boolean }): Promise<ChunkPage> {
    this.ensureOpen();
    const after = options.after ?? 0;
    const page = this.saveChunks(saveId).filter((chunk) => chunk.seq > after).slice(0, options.limit);
    const chunks = page.map((chunk) => ({ ...toChunk(chunk), embedding: options.vectors === false || chunk.embedding === null ? null : new Float32Array(chunk.embedding) }));
    return { chunks, next: page.length < options.limit ? null : (page[page.length - 1] as StoredChunk).seq };
  }

  async countChunks(saveId: string, chunkType?: string): Promise<number> {
    this.ensureOpen();
    return this.saveChunks(saveId).filter((chunk) => chunkType === undefined || chunk.chunkType === chunkType).length;
  }

  async getChunks(ids: readonly string[], saveId?: string): Promise<Chunk[]> {
    this.ensureOpen();
    return ids.flatMap((id) => {
      const chunk = this.chunks.get(id);
      return chunk === undefined || (saveId !== undefined && chunk.saveId !== saveId) ? [] : [toChunk(chunk)];
    });
  }

  async listChunks(saveId: string, given?: ListChunksOptions): Promise<Chunk[]> {
    const options = requireListChunksOptions(given);
    this.ensureOpen();
    const chunks = page(this.listed(saveId, options), options);
    const maxBytes = options.maxTextBytes;
    if (maxBytes === undefined) return chunks.map(toChunk);
    let before = 0;
    const within = chunks.findIndex((chunk) => (before += Buffer.byteLength(chunk.text)) >= maxBytes);
    return (within < 0 ? chunks : chunks.slice(0, within + 1)).map(toChunk);
  }

  async listTurns(saveId: string, given?: ListChunksOptions): Promise<TurnSummary[]> {
    const options = requireListChunksOptions(given);
    this.ensureOpen();
    const turns = new Map<number, { chunks: number; types: Set<string> }>();
    for (const chunk of this.listed(saveId, options)) {
      const turn = turns.get(chunk.turnId) ?? { chunks: 0, types: new Set<string>() };
      turn.chunks += 1;
      turn.types.add(chunk.chunkType);
      turns.set(chunk.turnId, turn);
    }
    return page([...turns].map(([turnId, turn]) => ({ turnId, chunks: turn.chunks, chunkTypes: [...turn.types].sort() })), options);
  }

  /** A save's chunks within the listing's turn range and type filter, in turn then insertion order. */
  private listed(saveId: string, options: ListChunksOptions): StoredChunk[] {
    const from = options.fromTurnId ?? 0;
    const to = options.toTurnId ?? Number.MAX_SAFE_INTEGER;
    return this.saveChunks(saveId)
      .filter((chunk) => chunk.turnId >= from && chunk.turnId <= to && chunk.chunkType !== options.excludeChunkType)
      .sort((a, b) => a.turnId - b.turnId || a.seq - b.seq);
  }

  async scanChunks(saveId: string, visit: (row: IndexRow) => void, options: ScanOptions = {}): Promise<number> {
    this.ensureOpen();
    for (const chunk of this.saveChunks(saveId)) {
      const row: IndexRow = { id: chunk.id, turnId: chunk.turnId, chunkType: chunk.chunkType, text: chunk.text, embedding: chunk.embedding === null ? null : new Float32Array(chunk.embedding) };
      const metadata = pickMetadata(chunk.metadata, options.metadataKeys);
      if (metadata !== undefined) row.metadata = structuredClone(metadata);
      visit(row);
    }
    return this.versionOf(saveId);
  }

  async saveVersion(saveId: string): Promise<number> {
    this.ensureOpen();
    return this.versionOf(saveId);
  }

  async listSaves(): Promise<SaveSummary[]> {
    this.ensureOpen();
    return [...this.versions.keys()].sort().map((saveId) => {
      const chunks = this.saveChunks(saveId);
      let minTurnId: number | null = null;
      let maxTurnId: number | null = null;
      for (const { turnId } of chunks) {
        minTurnId = minTurnId === null ? turnId : Math.min(minTurnId, turnId);
        maxTurnId = maxTurnId === null ? turnId : Math.max(maxTurnId, turnId);
      }
      return { saveId, version: this.versionOf(saveId), chunks: chunks.length, turns: new Set(chunks.map((chunk) => chunk.turnId)).size, minTurnId, maxTurnId };
    });
  }

  async getMeta(key: string): Promise<string | null> {
    this.ensureOpen();
    return this.meta.get(key) ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.ensureOpen();
    this.meta.set(key, value);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
