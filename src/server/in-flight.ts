// Counts work in progress so a shutdown can wait for it: each tracked promise, and a promise of the moment none is left.

/**
 * Tracks promises in flight.
 *
 * @example
 * ```ts
 * const work = new InFlight();
 * void work.track(memory.add(chunk));
 * await work.idle(); // resolves once nothing tracked is pending
 * ```
 */
export class InFlight {
  private pending = 0;
  private waiters: (() => void)[] = [];

  /** Number of tracked promises not yet settled. */
  get size(): number {
    return this.pending;
  }

  /** Tracks `work` until it settles; returns it unchanged. */
  async track<T>(work: Promise<T>): Promise<T> {
    this.pending++;
    try {
      return await work;
    } finally {
      this.pending--;
      if (this.pending === 0) for (const resolve of this.waiters.splice(0)) resolve();
    }
  }

  /** Resolves when nothing tracked is pending (at once if nothing is). */
  idle(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}
