// mem0 in the peer benchmark: its TypeScript OSS Memory (mem0ai/oss) on its local vector store, infer off, given vectors.
import { join } from 'node:path';
import type { CorpusRow } from './corpus.js';
import { DIMENSIONS } from './corpus.js';
import type { Engine, EngineCollection, QueryMode } from './engine.js';
import { importPeer, peerInstalled, peerVersion } from './peer-package.js';

/** The part of mem0ai/oss's Memory the benchmark calls. */
interface Mem0Memory {
  add(messages: { role: string; content: string }[], config: { userId: string; metadata: Record<string, unknown>; infer: boolean }): Promise<unknown>;
  search(query: string, config: { filters: Record<string, string>; topK: number; threshold: number }): Promise<{ results: { metadata?: Record<string, unknown> }[] }>;
}
type Mem0Module = { Memory: new (config: object) => Mem0Memory };

/**
 * The embedder mem0 is given: a LangChain-shaped object (mem0's `langchain` provider takes any object with
 * embedQuery and embedDocuments) that hands back the benchmark's vectors. Other texts (mem0 embeds the entities
 * it finds in a query, to boost memories linked to them; with infer off none is linked) get a zero vector.
 */
class GivenVectors {
  private readonly vectors = new Map<string, number[]>();
  give(text: string, vector: Float32Array): void {
    this.vectors.set(text, Array.from(vector));
  }
  clear(): void {
    this.vectors.clear();
  }
  async embedQuery(text: string): Promise<number[]> {
    return this.vectors.get(text) ?? new Array<number>(DIMENSIONS).fill(0);
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.all(texts.map((text) => this.embedQuery(text)));
  }
}

/** A user id per filter group: mem0 scopes every memory and every search to one (userId, agentId or runId). */
const userOf = (group: number) => `group-${group}`;

class Mem0Collection implements EngineCollection {
  constructor(private readonly memory: Mem0Memory, private readonly vectors: GivenVectors) {}

  /** One add per row (a memory's metadata, here the benchmark's id, is given per add call), infer off: stored as given. */
  async add(rows: readonly CorpusRow[]): Promise<void> {
    for (const row of rows) {
      this.vectors.give(row.text, row.vector);
      await this.memory.add([{ role: 'user', content: row.text }], { userId: userOf(row.group), metadata: { rowId: row.id }, infer: false });
    }
    this.vectors.clear();
  }

  /** mem0 commits each add to its SQLite file: nothing to build. */
  async finish(): Promise<void> {}

  /** Memory.search, mem0's one query: within a user, vector candidates re-scored with its BM25; threshold 0 keeps every candidate. */
  async query(mode: QueryMode, text: string, vector: Float32Array, k: number, group: number): Promise<string[]> {
    if (mode !== 'filtered') throw new Error(`mem0 searches within a user only (filtered mode), not ${mode}`);
    this.vectors.give(text, vector);
    const { results } = await this.memory.search(text, { filters: { user_id: userOf(group) }, topK: k, threshold: 0 });
    this.vectors.clear();
    return results.map((result) => String(result.metadata?.['rowId']));
  }

  async close(): Promise<void> {}
}

// Read when mem0ai/oss loads: no telemetry event, no notice flag fetched. Loaded with this module (the worker loads
// it before timing), as every other engine's modules are.
process.env['MEM0_TELEMETRY'] = 'false';
const mem0 = peerInstalled('mem0ai') ? await importPeer<Mem0Module>('mem0ai', 'mem0ai/oss') : null;

async function openCollection(folder: string): Promise<EngineCollection> {
  const { Memory } = mem0 ?? (await importPeer<Mem0Module>('mem0ai', 'mem0ai/oss'));
  const vectors = new GivenVectors();
  const memory = new Memory({
    embedder: { provider: 'langchain', config: { model: vectors, embeddingDims: DIMENSIONS } },
    vectorStore: { provider: 'memory', config: { collectionName: 'bench', dimension: DIMENSIONS, dbPath: join(folder, 'vector_store.db') } },
    // Never called with infer off; mem0 builds its LLM client at construction, which wants a key.
    llm: { provider: 'openai', config: { apiKey: 'unused-infer-off' } },
    disableHistory: true,
  });
  return new Mem0Collection(memory, vectors);
}

/** mem0's TypeScript OSS Memory, as a user runs it without a server: the `memory` vector store (one SQLite file). */
export const mem0Engine: Engine = {
  name: 'mem0',
  version: peerInstalled('mem0ai') ? `mem0ai ${peerVersion('mem0ai')} (mem0ai/oss, memory vector store)` : 'mem0ai (not installed)',
  modes: ['filtered'],
  create: openCollection,
  open: openCollection,
};
