// mnemo-engine/langchain: retrievers over a save and over the lore book, and a BaseStore over remember / recall (`@langchain/core` is an optional peer).
import { loadPeer } from '../load-peer.js';

const adapter = await loadPeer('@langchain/core', '^1.0.0', 'mnemo-engine/langchain', () => import('./langchain-adapter.js'));

/** A LangChain retriever over one save's narrative memory (see mnemo-retriever.ts). */
export const MnemoRetriever = adapter.MnemoRetriever;
export type MnemoRetriever = InstanceType<typeof MnemoRetriever>;
/** A LangChain retriever over the lore one character may know (see mnemo-lore-retriever.ts). */
export const MnemoLoreRetriever = adapter.MnemoLoreRetriever;
export type MnemoLoreRetriever = InstanceType<typeof MnemoLoreRetriever>;
/** A LangChain BaseStore over remember / recall (see mnemo-recall-store.ts). */
export const MnemoRecallStore = adapter.MnemoRecallStore;
export type MnemoRecallStore = InstanceType<typeof MnemoRecallStore>;
/** A narrative hit as a Document. */
export const hitDocument = adapter.hitDocument;
/** A lore hit as a Document. */
export const loreDocument = adapter.loreDocument;
export type { HitMetadata, LoreMetadata, MnemoLoreRetrieverInput, MnemoRecallStoreInput, MnemoRetrieverInput } from './langchain-adapter.js';
