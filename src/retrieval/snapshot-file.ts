// Positional reads of a persisted index: an open file (or bytes in memory) read where a section lies, nothing more.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** A persisted index open for reading: its length, reads at a position, and a close once nothing more is read. */
export interface SnapshotFile {
  /** Bytes in the file. */
  readonly byteLength: number;
  /** Fills `target` with the bytes from `position` on (throws when the file ends first or the read fails). */
  read(target: Uint8Array, position: number): void;
  /** Closes the file; further reads fail. Calling it twice is harmless. */
  close(): void;
}

/**
 * The file at `path` open for positional reads (`fs.readSync` into the caller's array: no second copy), or null
 * when there is none. The file stays open until `close`, so a newer file renamed over it does not change what
 * this one reads.
 *
 * @example
 * ```ts
 * const file = openSnapshotFile('game.db.index/1b32c2.index');
 * const head = new Uint8Array(24);
 * file?.read(head, 0);
 * file?.close();
 * ```
 */
export function openSnapshotFile(path: string): SnapshotFile | null {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let open = true;
  return {
    byteLength: fstatSync(descriptor).size,
    read(target, position) {
      if (!open) throw new Error('the snapshot file is closed');
      for (let at = 0; at < target.byteLength; ) {
        const read = readSync(descriptor, target, at, target.byteLength - at, position + at);
        if (read === 0) throw new Error(`the snapshot file ends at ${position + at} bytes, before ${position + target.byteLength}`);
        at += read;
      }
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(descriptor);
    },
  };
}

/**
 * Bytes in memory read as a snapshot file (a snapshot just written, a test's copy).
 *
 * @example
 * ```ts
 * const reader = SnapshotReader.open(bytesSnapshotFile(writer.finish({ version: 4 })));
 * ```
 */
export function bytesSnapshotFile(bytes: Uint8Array): SnapshotFile {
  return {
    byteLength: bytes.byteLength,
    read(target, position) {
      if (position + target.byteLength > bytes.byteLength) throw new Error(`the snapshot ends at ${bytes.byteLength} bytes, before ${position + target.byteLength}`);
      target.set(bytes.subarray(position, position + target.byteLength));
    },
    close() {},
  };
}
