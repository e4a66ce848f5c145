// The meta part of the Store seam: the store's own key/value table (embedder identity, missions, settings).

/**
 * A store's key/value table.
 *
 * @example
 * ```ts
 * const meta: MetaStore = openSqliteStore({ path: 'game.db' });
 * await meta.setMeta('settings.theme', 'dark');
 * await meta.getMeta('settings.theme'); // 'dark'
 * ```
 */
export interface MetaStore {
  /** A value from the store's own key/value table, or null. */
  getMeta(key: string): Promise<string | null>;
  /** Sets a value in the store's own key/value table. */
  setMeta(key: string, value: string): Promise<void>;
}
