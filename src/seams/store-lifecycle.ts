// The lifecycle part of the Store seam: what the store is, where its data lives, and closing it.

/**
 * What a store says about itself, and how it is released.
 *
 * @example
 * ```ts
 * const store: StoreLifecycle = openSqliteStore({ path: 'game.db' });
 * store.provider; // 'sqlite'
 * await store.close();
 * ```
 */
export interface StoreLifecycle {
  /** The adapter's name, e.g. `sqlite`. */
  readonly provider: string;
  /** Where the data lives (a file path, `:memory:`, a URL without its password). */
  readonly location: string;
  /** Releases the connection. Further calls fail with STORE_CLOSED. */
  close(): Promise<void>;
}
