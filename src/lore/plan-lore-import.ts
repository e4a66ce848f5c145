// Compares the entries of a repository with the stored book: what to create, update, leave alone and remove.
import { isDeepStrictEqual } from 'node:util';
import type { LoreEntry, ScopeLevel } from '../seams/lore-store.js';
import { loreContentHash } from './content-hash.js';
import type { LoreEntryDraft } from './lore-schema.js';

/** Why an entry is updated: a field that changed, or vectors made by another embedder (all but `metadata` re-embed it). */
export type LoreChangeField = 'content' | 'scope_level' | 'scope_tags' | 'metadata' | 'embedder';

/** An entry named in a report. */
export interface LoreChangeSummary {
  source: string;
  title: string;
  scopeLevel: ScopeLevel;
}

/** What an import will do (or, after it ran, did). */
export interface LoreImportPlan {
  /** The book version the plan was made against. */
  expectedVersion: number;
  create: (LoreEntryDraft & { contentHash: string })[];
  /** `reembed` is false when only the metadata changed: the stored vector stays. */
  update: { existing: LoreEntry; draft: LoreEntryDraft; contentHash: string; changes: LoreChangeField[]; reembed: boolean }[];
  unchanged: LoreEntry[];
  remove: LoreEntry[];
}

const sameTags = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((tag, index) => tag === b[index]);

/**
 * Matches drafts to stored entries on (source, title). New ones are created; ones whose content hash differs are
 * updated (the report says which fields changed); ones whose vectors came from another embedder are re-embedded;
 * ones whose metadata alone differs (keys in any order) are updated without re-embedding; the rest are unchanged;
 * stored entries the drafts no longer have are removed. Pure: reads and writes nothing.
 *
 * @example
 * ```ts
 * const plan = planLoreImport(drafts, await store.lore.list(), await store.lore.version(), 'hashing/hashing-64/64');
 * ```
 */
export function planLoreImport(drafts: readonly LoreEntryDraft[], existing: readonly LoreEntry[], expectedVersion: number, embeddingModel: string | null): LoreImportPlan {
  const stored = new Map(existing.map((entry) => [JSON.stringify([entry.source, entry.title]), entry]));
  const plan: LoreImportPlan = { expectedVersion, create: [], update: [], unchanged: [], remove: [] };
  const seen = new Set<string>();
  for (const draft of drafts) {
    const key = JSON.stringify([draft.source, draft.title]);
    seen.add(key);
    const contentHash = loreContentHash(draft);
    const current = stored.get(key);
    if (current === undefined) {
      plan.create.push({ ...draft, contentHash });
      continue;
    }
    const changes: LoreChangeField[] = [];
    if (current.contentHash !== contentHash) {
      if (current.content !== draft.content) changes.push('content');
      if (current.scopeLevel !== draft.scopeLevel) changes.push('scope_level');
      if (!sameTags(current.scopeTags, draft.scopeTags)) changes.push('scope_tags');
      if (changes.length === 0) changes.push('content');
    } else if (embeddingModel !== null && current.embeddingModel !== embeddingModel) {
      changes.push('embedder');
    }
    const reembed = changes.length > 0;
    if (!isDeepStrictEqual(current.metadata, draft.metadata)) changes.push('metadata');
    if (changes.length === 0) plan.unchanged.push(current);
    else plan.update.push({ existing: current, draft, contentHash, changes, reembed });
  }
  plan.remove = existing.filter((entry) => !seen.has(JSON.stringify([entry.source, entry.title])));
  return plan;
}
