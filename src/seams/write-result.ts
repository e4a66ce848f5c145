// The version of a save (or of a layer) before and after a write, as every store write returns it.

/** The version of a save before and after a write: indexes held in memory use it to stay in step. */
export interface WriteResult {
  /** The save's version before the write. */
  previousVersion: number;
  /** The save's version after the write (equal to previousVersion when nothing changed). */
  version: number;
  /** How many chunks the write added or removed. */
  count: number;
}
