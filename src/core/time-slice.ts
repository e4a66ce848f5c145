// Cooperative time slicing: long loops give the event loop back every few milliseconds, so /health and other requests go on.

/** How long a loop may hold the event loop before it yields, in milliseconds. */
export const SLICE_MS = 10;

/**
 * A yield point for a long loop: `await slice.tick()` inside it returns at once until SLICE_MS have passed since
 * the last yield, then yields to the event loop (setImmediate), so timers and I/O of other requests run.
 *
 * @example
 * ```ts
 * const slice = new TimeSlice();
 * for (const text of texts) {
 *   await slice.tick();
 *   work(text);
 * }
 * ```
 */
export class TimeSlice {
  private last = performance.now();

  constructor(private readonly budgetMs = SLICE_MS) {}

  async tick(): Promise<void> {
    if (performance.now() - this.last < this.budgetMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}
