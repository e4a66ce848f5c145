// Mnemo in the peer benchmark: the embedded default (SQLite file, narrative defaults), fed the shared vectors.
// PrecomputedEmbedder and MnemoCollection are shared with mnemo-postgres-engine.ts (the same engine on PostgreSQL).
import { join } from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { openMemory } from '../../src/open-memory.js';
import type { Mnemo } from '../../src/open-memory.js';
import type { Embedder } from '../../src/seams/embedder.js';
import type { EmbedderIdentity } from '../../src/seams/embedding-store.js';
import type { CorpusRow } from './corpus.js';
import type { Engine, EngineCollection, QueryMode } from './engine.js';
import { packageVersion } from './package-version.js';

const SAVE = 'bench';

/**
 * An embedder that computes nothing: it hands back the vectors the benchmark computed once with the static
 * embedder (the same ones every engine gets), under the static embedder's identity. A text it was not given is
 * an error, so no vector is ever made behind the benchmark's back.
 */
export class PrecomputedEmbedder implements Embedder {
  readonly provider: string;
  readonly modelId: string;
  readonly dimensions: number;
  readonly maxBatchSize = 100_000;
  readonly cacheable = false;
  private readonly vectors = new Map<string, Float32Array>();

  constructor(identity: EmbedderIdentity) {
    this.provider = identity.provider;
    this.modelId = identity.modelId;
    this.dimensions = identity.dimensions;
  }

  /** Makes `vector` the answer for `text` until `clear`. */
  give(text: string, vector: Float32Array): void {
    this.vectors.set(text, vector);
  }

  clear(): void {
    this.vectors.clear();
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const vector = this.vectors.get(text);
      if (vector === undefined) throw new Error(`the benchmark gave no vector for ${JSON.stringify(text.slice(0, 60))}`);
      return vector;
    });
  }
}

/** One Mnemo (one save) fed precomputed vectors; the store behind it is whatever `openMemory` was given. */
export class MnemoCollection implements EngineCollection {
  constructor(protected readonly memory: Mnemo, private readonly embedder: PrecomputedEmbedder) {}

  async add(rows: readonly CorpusRow[]): Promise<void> {
    for (const row of rows) this.embedder.give(row.text, row.vector);
    await this.memory.addMany(rows.map((row) => ({ saveId: SAVE, turnId: row.turn, text: row.text, entryId: row.id, metadata: { group: row.group } })));
    this.embedder.clear();
  }

  /** Builds the save's index and persists it (as a kept save's index is, so the next process opens it without a rebuild). */
  async finish(): Promise<void> {
    await this.memory.warm(SAVE);
  }

  /** Vector only and filtered = the semantic arm alone (`weights: { lexical: 0 }`), filtered with `where` on the group. */
  async query(mode: QueryMode, text: string, vector: Float32Array, k: number, group: number): Promise<string[]> {
    this.embedder.give(text, vector);
    const weights = mode === 'vector' || mode === 'filtered' ? { lexical: 0 } : mode === 'lexical' ? { semantic: 0 } : undefined;
    const hits = await this.memory.query(SAVE, text, { k, weights, where: mode === 'filtered' ? { group } : undefined });
    this.embedder.clear();
    return hits.map((hit) => hit.entryId ?? hit.id);
  }

  close(): Promise<void> {
    return this.memory.close();
  }
}

const version = packageVersion('mnemo');
const sqliteVersion = packageVersion('better-sqlite3');

/**
 * Mnemo on its embedded default (one SQLite file; z-score fusion, neighbour context, feedback), its vectors
 * recorded under `identity`, the static embedder that computed them (so loading the word table is not counted).
 */
export function mnemoEngine(identity: EmbedderIdentity): Engine {
  const openCollection = async (folder: string): Promise<EngineCollection> => {
    const embedder = new PrecomputedEmbedder(identity);
    const memory = await openMemory({ path: join(folder, 'mnemo.db'), embedder, embeddingCache: false, logger: silentLogger });
    return new MnemoCollection(memory, embedder);
  };
  return { name: 'Mnemo', version: `mnemo ${version} (SQLite, better-sqlite3 ${sqliteVersion})`, create: openCollection, open: openCollection };
}
