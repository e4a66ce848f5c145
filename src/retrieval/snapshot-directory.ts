// Persisted indexes as files in one directory: one file per corpus key, written to a temporary file, synced, then renamed.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openSnapshotFile } from './snapshot-file.js';
import type { SnapshotFile } from './snapshot-file.js';

/** Where persisted indexes are kept, one per key (a save id). */
export interface IndexSnapshots {
  /** Where they are (a folder), for messages. */
  readonly location: string;
  /** The file last written for `key`, open for positional reads (close it when done), or null when there is none. */
  open(key: string): SnapshotFile | null;
  /**
   * Replaces what is kept for `key` with `bytes` (or with its pieces in order), atomically: a reader sees the old
   * bytes or the new ones, never a part.
   */
  write(key: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<void>;
  /** Forgets what is kept for `key` (a deleted save). */
  remove(key: string): Promise<void>;
}

/** The file name of a key: any string may be a save id, so the name is its hash. */
function fileNameOf(key: string): string {
  return `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.index`;
}

/**
 * Persisted indexes in `directory` (created when first written). A write goes to `<name>.<pid>.tmp`, is synced
 * to disk and renamed over the file, so a crash at any point leaves the old file or the new one (a leftover
 * `.tmp` file is never read). A file is opened for positional reads: a reader reads the parts it uses (a file
 * renamed over it meanwhile does not change what it reads).
 *
 * @example
 * ```ts
 * const snapshots = snapshotDirectory('game.db.index');
 * await snapshots.write('save-1', bytes);
 * snapshots.open('save-1'); // the file, to read with SnapshotReader.open
 * ```
 */
export function snapshotDirectory(directory: string): IndexSnapshots {
  let created = false;
  return {
    location: directory,
    open(key) {
      return openSnapshotFile(join(directory, fileNameOf(key)));
    },
    async write(key, bytes) {
      if (!created) {
        mkdirSync(directory, { recursive: true });
        created = true;
      }
      const file = join(directory, fileNameOf(key));
      const temporary = `${file}.${process.pid}.tmp`;
      const handle = await open(temporary, 'w');
      try {
        for (const piece of bytes instanceof Uint8Array ? [bytes] : bytes) {
          for (let at = 0; at < piece.byteLength; ) at += (await handle.write(piece, at, piece.byteLength - at)).bytesWritten;
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    },
    async remove(key) {
      await rm(join(directory, fileNameOf(key)), { force: true });
    },
  };
}
