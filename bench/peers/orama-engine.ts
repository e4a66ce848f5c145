// Orama in the peer benchmark: one in-memory database persisted as JSON (save/load), hybrid search on its defaults.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create, insertMultiple, load, save, search } from '@orama/orama';
import type { AnyOrama } from '@orama/orama';
import type { CorpusRow } from './corpus.js';
import { DIMENSIONS } from './corpus.js';
import type { Engine, EngineCollection, QueryMode } from './engine.js';
import { packageVersion } from './package-version.js';

const schema = { id: 'string', text: 'string', embedding: `vector[${DIMENSIONS}]`, group: 'number' } as const;
/** The persisted database: one JSON file per part of its save() (`orama.<part>.json`). */
const PART = /^orama\.(.+)\.json$/;

/**
 * The vector similarity threshold. Orama's default (0.8) returns nothing for most queries on these vectors,
 * so a low one gives a real top k (measured in ../shared/bench/README.md).
 */
const SIMILARITY = 0.1;

class OramaCollection implements EngineCollection {
  constructor(private readonly database: AnyOrama, private readonly folder: string) {}

  async add(rows: readonly CorpusRow[]): Promise<void> {
    await insertMultiple(this.database, rows.map((row) => ({ id: row.id, text: row.text, embedding: Array.from(row.vector), group: row.group })), rows.length);
  }

  /**
   * Orama lives in memory: persisting is writing its save() as JSON, a file per part (at 100k rows the whole
   * save() as one string passes V8's longest string, about 512 MB).
   */
  async finish(): Promise<void> {
    for (const [part, value] of Object.entries(await save(this.database))) writeFileSync(join(this.folder, `orama.${part}.json`), JSON.stringify(value));
  }

  /** Filtered: a vector search with `where: { group: { eq } }`. */
  async query(mode: QueryMode, text: string, vector: Float32Array, k: number, group: number): Promise<string[]> {
    // includeVectors: true, because without it a vector hit sets the stored document's vector to null (3.1.18).
    const common = { limit: k, includeVectors: true, properties: ['text'] };
    const vectorParameter = { value: Array.from(vector), property: 'embedding' };
    const result =
      mode === 'lexical'
        ? await search(this.database, { ...common, term: text })
        : mode === 'vector' || mode === 'filtered'
          ? await search(this.database, { ...common, mode: 'vector', vector: vectorParameter, similarity: SIMILARITY, where: mode === 'filtered' ? { group: { eq: group } } : undefined })
          : await search(this.database, { ...common, mode: 'hybrid', term: text, vector: vectorParameter, similarity: SIMILARITY });
    return result.hits.map((hit) => String(hit.id));
  }

  async close(): Promise<void> {}
}

const version = packageVersion('@orama/orama');

/** Orama with its defaults (English tokenizer, BM25; hybrid = weighted sum of max-normalised scores). */
export const oramaEngine: Engine = {
  name: 'Orama',
  version: `@orama/orama ${version}`,
  async create(folder) {
    return new OramaCollection(create({ schema }), folder);
  },
  async open(folder) {
    const database = create({ schema });
    const parts = readdirSync(folder).flatMap((file) => {
      const part = PART.exec(file)?.[1];
      return part === undefined ? [] : [[part, JSON.parse(readFileSync(join(folder, file), 'utf8')) as unknown] as const];
    });
    load(database, Object.fromEntries(parts) as unknown as Parameters<typeof load>[1]);
    return new OramaCollection(database, folder);
  },
};
