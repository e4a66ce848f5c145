// The in-memory adapter of the recall sub-store: the same contract as SQLite, held in a map.
import type { JsonValue, Metadata } from '../../core/types.js';
import { renderValue } from '../../core/json-value.js';
import type { NewRecallEntry, RecallIndexRow, RecallStore, RecallWriteResult, StoredRecallEntry } from '../../seams/recall-store.js';

/** An entry as held, with its vector (shared with the embedding sub-store, which re-embeds it). */
export interface Held extends StoredRecallEntry {
  embedding: Float32Array | null;
}

const identity = (scope: string | null, key: string): string => `${scope ?? ''}\u0000${key}`;
const isLive = (entry: Held, now: number): boolean => entry.expiresAt === null || entry.expiresAt >= now;

function copyOut(entry: Held): StoredRecallEntry {
  return {
    seq: entry.seq,
    scope: entry.scope,
    key: entry.key,
    value: structuredClone(entry.value) as JsonValue,
    metadata: structuredClone(entry.metadata) as Metadata,
    createdAt: entry.createdAt,
    expiresAt: entry.expiresAt,
  };
}

/**
 * Remembered entries in process memory. Each method runs to completion without yielding, so each is atomic.
 *
 * @example
 * ```ts
 * const store = openInMemoryStore();
 * await store.recall.count(null, Date.now()); // 0
 * ```
 */
export class InMemoryRecallStore implements RecallStore {
  /** Entries by (scope, key), in seq order (a replacement keeps its place, as its seq is kept). */
  private readonly entries = new Map<string, Held>();
  private seq = 0;
  private currentVersion = 0;

  constructor(private readonly ensureOpen: () => void) {}

  private bump(): [number, number] {
    this.currentVersion++;
    return [this.currentVersion - 1, this.currentVersion];
  }

  private unchanged(): RecallWriteResult {
    return { previousVersion: this.currentVersion, version: this.currentVersion, count: 0, removedSeqs: [] };
  }

  private live(scope: string | null, now: number): Held[] {
    return [...this.entries.values()].filter((entry) => (scope === null || entry.scope === scope) && isLive(entry, now));
  }

  async put(entry: NewRecallEntry): Promise<RecallWriteResult & { seq: number; replaced: boolean }> {
    this.ensureOpen();
    const id = identity(entry.scope, entry.key);
    const existing = this.entries.get(id);
    const seq = existing?.seq ?? ++this.seq;
    this.entries.set(id, {
      seq,
      scope: entry.scope,
      key: entry.key,
      value: structuredClone(entry.value) as JsonValue,
      metadata: structuredClone(entry.metadata) as Metadata,
      createdAt: entry.createdAt,
      expiresAt: entry.expiresAt,
      embedding: entry.embedding === null ? null : new Float32Array(entry.embedding),
    });
    const [previousVersion, version] = this.bump();
    return { previousVersion, version, count: 1, removedSeqs: [], seq, replaced: existing !== undefined };
  }

  async getEntries(seqs: readonly number[]): Promise<StoredRecallEntry[]> {
    this.ensureOpen();
    const bySeq = new Map([...this.entries.values()].map((entry) => [entry.seq, entry]));
    return seqs.flatMap((seq) => {
      const entry = bySeq.get(seq);
      return entry === undefined ? [] : [copyOut(entry)];
    });
  }

  /** Every entry in seq order, live objects: for the embedding sub-store's reindex, never handed out. */
  heldEntries(): Held[] {
    return [...this.entries.values()].sort((a, b) => a.seq - b.seq);
  }

  /** Bumps the version after the embedding sub-store replaced vectors (indexes rebuild). */
  bumpVersion(): void {
    this.bump();
  }

  async findByFoldedKey(foldedKey: string, scope: string | null, now: number): Promise<StoredRecallEntry[]> {
    this.ensureOpen();
    return this.live(scope, now).filter((entry) => entry.key.toLowerCase() === foldedKey).map(copyOut);
  }

  async scan(scope: string | null, now: number, visit: (row: RecallIndexRow) => void): Promise<number> {
    this.ensureOpen();
    for (const entry of this.live(scope, now)) {
      visit({
        seq: entry.seq,
        scope: entry.scope,
        key: entry.key,
        valueText: renderValue(entry.value),
        createdAt: entry.createdAt,
        expiresAt: entry.expiresAt,
        embedding: entry.embedding === null ? null : new Float32Array(entry.embedding),
      });
    }
    return this.currentVersion;
  }

  async version(): Promise<number> {
    this.ensureOpen();
    return this.currentVersion;
  }

  async count(scope: string | null, now: number): Promise<number> {
    this.ensureOpen();
    return this.live(scope, now).length;
  }

  async listScopes(now: number): Promise<{ scope: string | null; entries: number }[]> {
    this.ensureOpen();
    const counts = new Map<string | null, number>();
    for (const entry of this.live(null, now)) counts.set(entry.scope, (counts.get(entry.scope) ?? 0) + 1);
    return [...counts].map(([scope, entries]) => ({ scope, entries })).sort((a, b) => ((a.scope ?? '') < (b.scope ?? '') ? -1 : (a.scope ?? '') > (b.scope ?? '') ? 1 : 0));
  }

  async clear(scope: string | null): Promise<RecallWriteResult> {
    this.ensureOpen();
    return this.remove((entry) => scope === null || entry.scope === scope);
  }

  async deleteKeys(scope: string | null, keys: readonly string[]): Promise<RecallWriteResult> {
    this.ensureOpen();
    const doomed = new Set(keys.map((key) => identity(scope, key)));
    return this.remove((entry) => doomed.has(identity(entry.scope, entry.key)));
  }

  async purgeExpired(now: number): Promise<RecallWriteResult> {
    this.ensureOpen();
    return this.remove((entry) => entry.expiresAt !== null && entry.expiresAt < now);
  }

  private remove(doomed: (entry: Held) => boolean): RecallWriteResult {
    const removedSeqs: number[] = [];
    for (const [id, entry] of this.entries) {
      if (!doomed(entry)) continue;
      this.entries.delete(id);
      removedSeqs.push(entry.seq);
    }
    if (removedSeqs.length === 0) return this.unchanged();
    const [previousVersion, version] = this.bump();
    return { previousVersion, version, count: removedSeqs.length, removedSeqs };
  }
}
