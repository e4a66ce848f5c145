// A stored chunk as a search index reads it (Store.scanChunks, VectorSearch.scanChunks).

/** What the search index needs of a stored chunk. */
export interface IndexRow {
  id: string;
  turnId: number;
  chunkType: string;
  text: string;
  embedding: Float32Array | null;
  /** The vector's length when the scan left `embedding` out (`VectorSearch.scanChunks`); absent otherwise. */
  dimensions?: number | null;
}
