// The chunks part of the Store seam: writing a save's chunks, reading them back, and scanning them for an index.
import type { Chunk } from '../core/types.js';
import type { IndexRow, ScanOptions } from './index-row.js';
import type { WriteResult } from './write-result.js';

/** A chunk with its vector (null without one): what a write takes (`NewChunk`) and an export's page reads. */
export interface ChunkWithVector extends Chunk {
  embedding: Float32Array | null;
}

/** A chunk ready to be written: validated, with its id, and its vector when an embedder made one. */
export type NewChunk = ChunkWithVector;

/** Which chunks a listing returns: a turn range, one type left out, and a page (offset, limit). */
export interface ListChunksOptions {
  fromTurnId?: number;
  toTurnId?: number;
  /** Leave out chunks of this type (e.g. `lore`). */
  excludeChunkType?: string;
  /** Skip this many chunks of the ordered listing first (for paging). */
  offset?: number;
  limit?: number;
  /**
   * Ends the page with the chunk whose text brings the page's texts to this many UTF-8 bytes (a page holds at least
   * one chunk, and at most this plus one chunk's text); the store counts the bytes without reading the texts it
   * leaves out. Absent: no bound (listChunks only).
   */
  maxTextBytes?: number;
}

/** Which chunks of a save a delete removes: these ids, or every chunk of one entry (`entryId`). */
export type ChunkSelection = { ids: readonly string[] } | { entryId: string };

/** Options of `deleteChunks`. */
export interface DeleteChunksOptions {
  /** Leave chunks of this type in place (a non-admin token's delete leaves the save's `lore` chunks alone). */
  excludeChunkType?: string;
}

/** One turn of a save: how many chunks it holds, and of which types (sorted). */
export interface TurnSummary {
  turnId: number;
  chunks: number;
  chunkTypes: string[];
}

/** One page of a save's chunks in insertion order (see `pageChunks`). */
export interface ChunkPage {
  chunks: ChunkWithVector[];
  /** Pass as `after` to read the next page; null after the last. */
  next: number | null;
}

/**
 * A store's chunks. Every write is one transaction that bumps the save's version (see `SaveStore.saveVersion`).
 *
 * @example
 * ```ts
 * const chunks: ChunkStore = openSqliteStore({ path: 'game.db' });
 * await chunks.countChunks('campaign-1'); // 0
 * ```
 */
export interface ChunkStore {
  /** Writes chunks in one transaction (a whole turn lands, or nothing does). */
  insertChunks(chunks: readonly NewChunk[]): Promise<WriteResult>;
  /** Deletes a turn's chunks of one type and writes the new ones, in one transaction. */
  replaceTurn(saveId: string, turnId: number, chunkType: string, chunks: readonly NewChunk[]): Promise<WriteResult & { removed: number }>;
  /**
   * Deletes the selected chunks of `saveId` (their vectors with them) in one transaction and returns the ids it
   * removed (unknown ids, other saves' chunks and `excludeChunkType` ones are left out). Bumps the save's version
   * only when something went. Every statement names the save.
   */
  deleteChunks(saveId: string, selection: ChunkSelection, options?: DeleteChunksOptions): Promise<WriteResult & { removed: string[] }>;
  /** Counts a save's chunks, optionally of one type. */
  countChunks(saveId: string, chunkType?: string): Promise<number>;
  /**
   * Reads chunks by id, in the order asked (unknown ids are left out). With `saveId`, only that save's chunks (a
   * store sharded by save then reads one shard; a query always passes its save).
   */
  getChunks(ids: readonly string[], saveId?: string): Promise<Chunk[]>;
  /** Lists a save's chunks in turn order (then insertion order), optionally within a turn range, one page at a time. */
  listChunks(saveId: string, options?: ListChunksOptions): Promise<Chunk[]>;
  /** Lists a save's turns in order, each with its chunk count and chunk types, one page at a time. */
  listTurns(saveId: string, options?: ListChunksOptions): Promise<TurnSummary[]>;
  /**
   * Streams every chunk of a save in insertion order to `visit` (for building a search index) and returns the
   * save's version read before the rows, so an index built from them is never newer than it claims. With
   * `metadataKeys`, each row carries those of its metadata keys (and no others).
   */
  scanChunks(saveId: string, visit: (row: IndexRow) => void, options?: ScanOptions): Promise<number>;
  /**
   * One page of a save's chunks in insertion order, with their vectors when `vectors` is true (default), from after
   * the cursor `after` (a page's `next`; 0 or absent for the first). Pages read by keyset, so reading a large save
   * page by page costs one pass.
   */
  pageChunks(saveId: string, options: { after?: number; limit: number; vectors?: boolean }): Promise<ChunkPage>;
}
