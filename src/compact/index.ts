// Compact, LLM-friendly text for tool results (MCP, AI SDK): one line per item, short ids, scores only when asked.
export { compactHits, compactLoreHits } from './compact-hits.js';
export type { CompactOptions } from './compact-hits.js';
export { compactEntries, compactEntry } from './compact-entries.js';
export { compactBeliefs, compactFacts, compactModels, compactSaves } from './compact-living.js';
