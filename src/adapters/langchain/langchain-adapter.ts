// The LangChain adapter's classes, in the one module that imports @langchain/core (index.ts loads it lazily).
export { MnemoRetriever, hitDocument } from './mnemo-retriever.js';
export type { HitMetadata, MnemoRetrieverInput } from './mnemo-retriever.js';
export { MnemoLoreRetriever, loreDocument } from './mnemo-lore-retriever.js';
export type { LoreMetadata, MnemoLoreRetrieverInput } from './mnemo-lore-retriever.js';
export { MnemoRecallStore } from './mnemo-recall-store.js';
export type { MnemoRecallStoreInput } from './mnemo-recall-store.js';
