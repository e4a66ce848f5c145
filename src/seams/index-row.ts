// A stored chunk as a search index reads it (Store.scanChunks, VectorSearch.scanChunks).
import type { Metadata } from '../core/types.js';

/** What the search index needs of a stored chunk. */
export interface IndexRow {
  id: string;
  turnId: number;
  chunkType: string;
  text: string;
  embedding: Float32Array | null;
  /** The vector's length when the scan left `embedding` out (`VectorSearch.scanChunks`); absent otherwise. */
  dimensions?: number | null;
  /** The metadata keys the scan was asked for (`ScanOptions.metadataKeys`) that the chunk holds; absent when none were asked. */
  metadata?: Metadata;
}

/** What a scan reads besides the index's own columns. */
export interface ScanOptions {
  /**
   * Metadata keys to read with each row (the index's speaker, scene and time, see `MetadataRoles`): each row's
   * `metadata` then holds those of them the chunk has, and nothing else; `'all'`: every key (a save's index keeps
   * them for `where` filters). None: no metadata is read.
   */
  metadataKeys?: readonly string[] | 'all';
}
