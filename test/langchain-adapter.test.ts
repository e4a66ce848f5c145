// The LangChain.js adapter through @langchain/core's own interfaces: retrievers in a runnable chain, the BaseStore calls, on a real SQLite store.
import { join } from 'node:path';
import { Document } from '@langchain/core/documents';
import { BaseRetriever } from '@langchain/core/retrievers';
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';
import { BaseStore } from '@langchain/core/stores';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MnemoLoreRetriever, MnemoRecallStore, MnemoRetriever } from '../src/adapters/langchain/index.js';
import { loadPeer } from '../src/adapters/load-peer.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { InMemoryBackend } from '../src/recall/in-memory-backend.js';
import { tempDir } from './helpers.js';
import { MARTA_TAGS, ORIEL_TAGS, SAVE, seedScene } from './serving-fixture.js';

const dir = tempDir();

/** Every value of an async generator (Array.fromAsync needs Node 22). */
async function collect<T>(values: AsyncGenerator<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const value of values) all.push(value);
  return all;
}

describe('LangChain adapter (mnemo-engine/langchain)', () => {
  let memory: Mnemo;

  beforeAll(async () => {
    memory = await openMemory({ path: join(dir, 'chain.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
    await seedScene(memory);
  });
  afterAll(async () => memory?.close());

  describe('MnemoRetriever', () => {
    it('is a BaseRetriever returning Documents best first, with the turn, type, score and explanation in metadata', async () => {
      const retriever = new MnemoRetriever({ memory, saveId: SAVE, k: 3 });
      expect(retriever).toBeInstanceOf(BaseRetriever);
      const documents = await retriever.invoke('smuggled salt under the cellar stairs');
      expect(documents).toHaveLength(3);
      expect(documents[0]).toBeInstanceOf(Document);
      expect(documents[0]?.pageContent).toBe('Marta hides the smuggled salt under the cellar stairs.');
      expect(documents[0]?.metadata).toMatchObject({ saveId: SAVE, turnId: 8, chunkType: 'narrative', entryId: null, score: expect.any(Number), explanation: { lexical: { rank: 1 } } });
      expect(documents[0]?.id).toBe(documents[0]?.metadata.chunkId);
      const scores = documents.map((document) => document.metadata.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    });

    it('leaves out lore chunks and everything after the current turn, read at each query', async () => {
      let turn = 5;
      const retriever = new MnemoRetriever({ memory, saveId: SAVE, k: 20, currentTurnId: () => turn });
      const early = await retriever.invoke('salt lantern house tidelines');
      expect(early.length).toBeGreaterThan(0);
      expect(early.every((document) => document.metadata.turnId <= 5 && document.metadata.chunkType !== 'lore')).toBe(true);
      turn = 12;
      expect((await retriever.invoke('salt cellar stairs')).map((document) => document.metadata.turnId)).toContain(8);
      const lore = new MnemoRetriever({ memory, saveId: SAVE, queryOptions: { chunkType: 'lore' } });
      expect((await lore.invoke('lantern house')).map((document) => document.pageContent)).toEqual(['The Brackwater lantern house stands over tidelines.']);
    });

    it('runs in a runnable chain and in batch', async () => {
      const retriever = new MnemoRetriever({ memory, saveId: SAVE, k: 1 });
      const chain = RunnableSequence.from([retriever, RunnableLambda.from((documents: Document[]) => documents.map((document) => `[turn ${document.metadata['turnId']}] ${document.pageContent}`).join('\n'))]);
      expect(await chain.invoke('letter to the Toll Bridge')).toBe('[turn 12] Marta asks Kaël to carry a letter to the Toll Bridge.');
      const batch = await retriever.batch(['eel pie', 'three silver room']);
      expect(batch.map((documents) => documents[0]?.metadata.turnId)).toEqual([1, 7]);
    });
  });

  describe('MnemoLoreRetriever', () => {
    it('returns only the entries the character may know, as Documents with title and scope', async () => {
      const marta = new MnemoLoreRetriever({ memory, characterTags: MARTA_TAGS, k: 20 });
      expect(marta).toBeInstanceOf(BaseRetriever);
      const titles = (await marta.invoke('lantern house tidelines founding')).map((document) => document.metadata.title);
      expect(titles).toContain('Founding of Brackwater');
      expect(titles).not.toContain('The Brackwater lantern house');
      const oriel = new MnemoLoreRetriever({ memory, characterTags: ORIEL_TAGS, k: 1 });
      const [entry] = await oriel.invoke('tidelines under the marsh');
      expect(entry?.metadata).toMatchObject({ title: 'The tidelines', scopeLevel: 'faction', scopeTags: expect.arrayContaining(['lamplighters']) });
      expect(entry?.id).toBe(entry?.metadata.entryId);
      expect(entry?.pageContent.length).toBeGreaterThan(20);
      const continental = new MnemoLoreRetriever({ memory, characterTags: [], k: 50 });
      expect((await continental.invoke('Brackwater history marsh salt')).every((document) => document.metadata.scopeLevel === 'continental')).toBe(true);
    });
  });

  describe('MnemoRecallStore', () => {
    it('is a BaseStore: mset, mget (undefined when absent), yieldKeys by prefix, mdelete', async () => {
      const store = new MnemoRecallStore({ backend: memory.recall, scope: 'chat-42' });
      expect(store).toBeInstanceOf(BaseStore);
      await store.mset([['user:name', 'Kaël'], ['user:prefs', { tone: 'dry', emoji: false }], ['topic', ['salt', 'debts']]]);
      expect(await store.mget(['user:name', 'user:prefs', 'missing', 'USER:NAME'])).toEqual(['Kaël', { tone: 'dry', emoji: false }, undefined, undefined]);
      await store.mset([['user:name', 'Kaël of the marsh']]);
      expect(await store.mget(['user:name'])).toEqual(['Kaël of the marsh']);
      expect(await collect(store.yieldKeys('user:'))).toEqual(['user:name', 'user:prefs']);
      expect(await collect(store.yieldKeys())).toEqual(['user:name', 'user:prefs', 'topic']);
      await store.mdelete(['user:prefs', 'never-set']);
      expect(await store.mget(['user:prefs', 'topic'])).toEqual([undefined, ['salt', 'debts']]);
      expect((await memory.recall.retrieve('salt debts', 1, 'chat-42'))[0]?.key).toBe('topic');
      const other = new MnemoRecallStore({ backend: memory.recall, scope: 'chat-43' });
      expect(await other.mget(['topic'])).toEqual([undefined]);
    });

    it('forgets values after the decay, and refuses a value that is not JSON', async () => {
      let now = 1_000_000;
      const backend = new InMemoryBackend({ clock: () => now });
      const store = new MnemoRecallStore({ backend, scope: 'cache', decay: '1h' });
      await store.mset([['answer', 42]]);
      expect(await store.mget(['answer'])).toEqual([42]);
      now += 3_600_001;
      expect(await store.mget(['answer'])).toEqual([undefined]);
      await expect(store.mset([['bytes', new Uint8Array([1, 2]) as never]])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(() => new MnemoRecallStore({ backend, scope: '' })).toThrow(/scope/u);
    });
  });

  it('says how to install a missing peer package', async () => {
    const missing = 'mnemo-test-peer-that-does-not-exist';
    await expect(loadPeer(missing, '^1.0.0', 'mnemo-engine/example', () => import(missing))).rejects.toMatchObject({
      code: 'DEPENDENCY_MISSING',
      message: `mnemo-engine/example needs the package ${missing} (^1.0.0), which is not installed. Install it with \`npm install ${missing}\`.`,
    });
    const broken = new Error('boom');
    await expect(loadPeer(missing, '^1.0.0', 'mnemo-engine/example', () => Promise.reject(broken))).rejects.toBe(broken);
  });
});
