// The saves part of the Store seam: versions, the list of saves, and the save-level writes (rewind, fork).
import type { LivingForkCounts, LivingRewindCounts } from '../core/living-types.js';
import type { SaveSummary } from '../core/types.js';
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
  /** The save's current version (0 for a save never written). */
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
}
