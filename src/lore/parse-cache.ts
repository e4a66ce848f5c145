// The parse cache of lore imports: validated entries by the sha256 of their file's bytes, kept in the store's meta table.
import type { Store } from '../seams/store.js';
import type { LocatedLoreEntry, LoreParseCache, ValidLoreFile } from './read-lore-repository.js';
import { SCOPE_LEVELS } from './scope-tags.js';

/** The meta key holding the cache. */
export const PARSE_CACHE_KEY = 'lore.parse-cache';

/** Bump when validation rules or the entry shape change: older caches are then ignored. */
const CACHE_VERSION = 2;

interface CachedFile {
  sha256: string;
  entries: LocatedLoreEntry[];
}

const levels: readonly string[] = SCOPE_LEVELS;

function isEntry(value: unknown): value is LocatedLoreEntry {
  const entry = value as Partial<LocatedLoreEntry> | null;
  return typeof entry?.source === 'string' && typeof entry.title === 'string' && typeof entry.content === 'string'
    && typeof entry.scopeLevel === 'string' && levels.includes(entry.scopeLevel)
    && Array.isArray(entry.scopeTags) && entry.scopeTags.every((tag) => typeof tag === 'string')
    && typeof entry.metadata === 'object' && entry.metadata !== null && !Array.isArray(entry.metadata);
}

/**
 * A LoreParseCache read from and written to the store. A damaged or older cache is ignored (files are parsed
 * again); it is written only when the files' bytes differ from what it holds, so an unchanged re-import writes
 * nothing.
 *
 * @example
 * ```ts
 * const cache = await StoredParseCache.load(store);
 * const reading = await readLoreRepository('examples/lore', { cache });
 * await cache.save(store, reading.validFiles);
 * ```
 */
export class StoredParseCache implements LoreParseCache {
  private constructor(private readonly files: Map<string, CachedFile>) {}

  /** Reads the cache from the store (empty when absent, damaged or from another cache version). */
  static async load(store: Store): Promise<StoredParseCache> {
    const text = await store.getMeta(PARSE_CACHE_KEY);
    if (text === null) return new StoredParseCache(new Map());
    try {
      const parsed = JSON.parse(text) as { version?: unknown; files?: Record<string, CachedFile> };
      if (parsed.version !== CACHE_VERSION || typeof parsed.files !== 'object' || parsed.files === null) return new StoredParseCache(new Map());
      const files = Object.entries(parsed.files).filter(([, file]) => typeof file?.sha256 === 'string' && Array.isArray(file.entries) && file.entries.every(isEntry));
      return new StoredParseCache(new Map(files));
    } catch {
      return new StoredParseCache(new Map());
    }
  }

  lookup(file: string, sha256: string): LocatedLoreEntry[] | undefined {
    const cached = this.files.get(file);
    return cached?.sha256 === sha256 ? cached.entries : undefined;
  }

  /** Replaces the cache with `validFiles` when they differ from it; returns true when it wrote. */
  async save(store: Store, validFiles: readonly ValidLoreFile[]): Promise<boolean> {
    const same = validFiles.length === this.files.size && validFiles.every((file) => this.files.get(file.file)?.sha256 === file.sha256);
    if (same) return false;
    const files = Object.fromEntries(validFiles.map((file) => [file.file, { sha256: file.sha256, entries: file.entries }]));
    await store.setMeta(PARSE_CACHE_KEY, JSON.stringify({ version: CACHE_VERSION, files }));
    this.files.clear();
    for (const [path, file] of Object.entries(files)) this.files.set(path, file);
    return true;
  }
}
