// The write half of an import: embed what is new or changed (before any write), then build the one change set to apply.
import { MnemoError, isMnemoError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { embedInBatches } from '../embedders/embed-in-batches.js';
import type { Embedder } from '../seams/embedder.js';
import type { LoreChangeSet, LoreEntryUpdate, NewLoreEntry } from '../seams/lore-store.js';
import type { LoreImportPlan } from './plan-lore-import.js';

/**
 * Embeds the texts in the embedder's batches, calling `onProgress(done, total)` before the first and after each.
 * A failure becomes PROVIDER_FAILURE saying nothing was written (this runs before the transaction).
 *
 * @example
 * ```ts
 * const vectors = await embedLoreTexts(embedder, ['The tide bell rings twice.'], (done, total) => bar.update(done));
 * ```
 */
export async function embedLoreTexts(embedder: Embedder, texts: readonly string[], onProgress?: (done: number, total: number) => void): Promise<Float32Array[]> {
  const batch = Math.max(1, embedder.maxBatchSize);
  const vectors: Float32Array[] = [];
  onProgress?.(0, texts.length);
  for (let start = 0; start < texts.length; start += batch) {
    try {
      vectors.push(...(await embedInBatches(embedder, texts.slice(start, start + batch))));
    } catch (error) {
      const reason = isMnemoError(error) ? error.message : (error as Error).message;
      throw new MnemoError('PROVIDER_FAILURE', `Embedding lore entries with ${embedder.provider}/${embedder.modelId} failed (${reason}); nothing was written. Retry, or import without an embedder for search by words only.`, { cause: error });
    }
    onProgress?.(vectors.length, texts.length);
  }
  return vectors;
}

/** The texts an import embeds, in the order `buildLoreChangeSet` takes their vectors: the creates, then the updates that re-embed. */
export function textsToEmbed(plan: LoreImportPlan): string[] {
  return [...plan.create.map((entry) => entry.content), ...plan.update.flatMap(({ draft, reembed }) => (reembed ? [draft.content] : []))];
}

/**
 * The change set of a plan: creates with new ids, updates keeping ids, removals by id. `vectors` are aligned with
 * `textsToEmbed(plan)` (null: stored without vectors); an update of metadata alone keeps its stored vector.
 *
 * @example
 * ```ts
 * await store.lore.apply(buildLoreChangeSet(plan, vectors, 'hashing/hashing-64/64', Date.now()));
 * ```
 */
export function buildLoreChangeSet(plan: LoreImportPlan, vectors: readonly Float32Array[] | null, embeddingModel: string | null, now: number): LoreChangeSet {
  const vectorAt = (index: number) => (vectors === null ? null : (vectors[index] ?? null));
  const create: NewLoreEntry[] = plan.create.map((draft, index) => ({
    id: newId(), source: draft.source, title: draft.title, content: draft.content, scopeLevel: draft.scopeLevel, scopeTags: draft.scopeTags,
    metadata: draft.metadata, contentHash: draft.contentHash, embeddingModel, embedding: vectorAt(index), createdAt: now, updatedAt: now,
  }));
  let next = plan.create.length;
  const update: LoreEntryUpdate[] = plan.update.map(({ existing, draft, contentHash, reembed }) => ({
    id: existing.id, content: draft.content, scopeLevel: draft.scopeLevel, scopeTags: draft.scopeTags, metadata: draft.metadata, contentHash,
    ...(reembed ? { vector: { embeddingModel, embedding: vectorAt(next++) } } : {}), updatedAt: now,
  }));
  return { expectedVersion: plan.expectedVersion, create, update, remove: plan.remove.map((entry) => entry.id) };
}
