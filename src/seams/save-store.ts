// The saves part of the Store seam: versions, the list of saves, and the save-level writes (rewind, fork, import).
import type { LivingSaveLayer } from '../core/living-rules.js';
import type { LivingForkCounts, LivingImportCounts, LivingRewindCounts } from '../core/living-types.js';
import type { SaveSummary } from '../core/types.js';
import type { NewChunk } from './chunk-store.js';
import type { WriteResult } from './write-result.js';

/** Counts returned by a rewind, per layer. */
export interface RewindCounts {
  chunks: number;
  /** What the living layer lost (facts, beliefs, models, queued jobs), in the same transaction. */
  living: LivingRewindCounts;
}

/** Counts returned by a fork, per layer. */
export interface ForkCounts {
  chunks: number;
  living: LivingForkCounts;
}

/** Counts returned by a delete, per layer. */
export interface DeleteCounts {
  chunks: number;
  living: LivingForkCounts;
}

/** A whole save as an import writes it (see `importSave`). */
export interface SaveImport {
  /** The chunks in insertion order, in batches read lazily (so a large save is never held whole), ids already new. */
  chunks: Iterable<readonly NewChunk[]>;
  /** The length of the chunks' vectors (null: none), so a store indexing vectors by length prepares before it writes. */
  vectorDimensions: number | null;
  /** The living layer, its ids those of the file (remapped by the store's write). */
  living: LivingSaveLayer;
}

/** Counts returned by an import, per layer. */
export interface ImportCounts {
  chunks: number;
  living: LivingImportCounts;
}

/**
 * A store's saves: each has a version that every write to it bumps (in-memory indexes compare it to know when to
 * refresh). The save-level writes move every layer of a save in one transaction.
 *
 * @example
 * ```ts
 * const saves: SaveStore = openSqliteStore({ path: 'game.db' });
 * await saves.saveVersion('campaign-1'); // 0 for a save never written
 * ```
 */
export interface SaveStore {
  /**
   * The save's current version (0 for a save never written). It never goes back: a deleted save keeps a tombstone
   * one version on, and a save written again under its id goes on from there, so no index of the old save is ever
   * taken as current.
   */
  saveVersion(saveId: string): Promise<number>;
  /** Every save with its counts. */
  listSaves(): Promise<SaveSummary[]>;
  /**
   * Deletes everything of a save from turns after `turnId`, in one transaction across every layer (chunks, facts,
   * beliefs, mental models, queued jobs). Unknown save: all zeros.
   */
  rewind(saveId: string, turnId: number): Promise<WriteResult & { removed: RewindCounts }>;
  /**
   * Creates `newSaveId` holding exactly the state of `saveId` as of `atTurn`, every layer, in one transaction; copied
   * rows get new ids (belief and model sources remapped). The old save is untouched. Fails with CONFLICT when
   * `newSaveId` already holds data, NOT_FOUND when `saveId` holds none.
   */
  fork(saveId: string, newSaveId: string, atTurn: number): Promise<ForkCounts>;
  /**
   * Writes a whole save into `saveId`, every layer, in one transaction: the chunks of every batch `save.chunks`
   * yields (consumed inside the transaction, so it must not wait on anything), then the living layer with new ids
   * (`writeLivingLayer`). Bumps the save's version once. Fails with CONFLICT when `saveId` already holds data;
   * any error writes nothing.
   */
  importSave(saveId: string, save: SaveImport): Promise<WriteResult & { imported: ImportCounts }>;
  /**
   * Removes every layer of a save (chunks with their vectors, facts, beliefs, models and their versions, jobs) and
   * its version row, in one transaction. Unknown save: all zeros. Every statement names the save.
   */
  deleteSave(saveId: string): Promise<DeleteCounts>;
}
