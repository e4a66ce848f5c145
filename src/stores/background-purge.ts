// The schedule of a store's background purge of rewound rows: short steps one after another, save by save, retried after a failure.

/** What a store's purge does in one step, and how long it waits after a failed one. */
export interface PurgeSteps {
  /** One short transaction of the purge of `saveId`'s hidden rows (null: any save's); resolves whether rows are left. */
  step(saveId: string | null): Promise<{ pending: boolean }>;
  /**
   * The wait in ms before the step is tried again after `error` (`previousMs`: the wait after the failure before,
   * null after a success), or null to give the save up until it is scheduled again.
   */
  retryAfter(error: unknown, previousMs: number | null): number | null;
}

/**
 * Runs a store's purge in the background: `schedule(saveId)` queues a save, and steps run one at a time, each after
 * the one before has finished, until no save in the queue has rows left. Reads never see the hidden rows, so when a
 * step runs changes nothing they return; the timers do not keep the process alive.
 *
 * @example
 * ```ts
 * const purge = new BackgroundPurge({
 *   step: (saveId) => store.transaction((client) => purgeRewoundRows(client, tables, 2000, saveId)),
 *   retryAfter: (_error, previous) => (previous === null ? 1000 : Math.min(60_000, previous * 2)),
 * });
 * purge.schedule('campaign-1'); // after a rewind
 * await purge.stop(); // on close
 * ```
 */
export class BackgroundPurge {
  /** The saves it has to empty, in order (null: any save, to resume a purge cut short). */
  private readonly queue = new Set<string | null>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastWait: number | null = null;
  private stopped = false;

  constructor(private readonly steps: PurgeSteps) {}

  /** Queues `saveId` (null: any save) and starts the purge after `delayMs` unless a step is already due or running. */
  schedule(saveId: string | null, delayMs = 0): void {
    if (this.stopped) return;
    this.queue.add(saveId);
    if (this.timer !== undefined || this.running !== undefined) return;
    this.timer = setTimeout(() => this.runNext(), delayMs);
    this.timer.unref();
  }

  /** Schedules no more steps; resolves once the step running now (if any) has finished. */
  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    return this.running ?? Promise.resolve();
  }

  private runNext(): void {
    this.timer = undefined;
    const next = this.queue.values().next();
    if (this.stopped || next.done === true) return;
    const saveId = next.value;
    this.running = this.steps
      .step(saveId)
      .then(
        ({ pending }) => {
          this.lastWait = null;
          if (!pending) this.queue.delete(saveId);
          return 0;
        },
        (error: unknown) => {
          const wait = this.steps.retryAfter(error, this.lastWait);
          this.lastWait = wait;
          if (wait === null) this.queue.delete(saveId);
          return wait ?? 0;
        },
      )
      .then((wait) => {
        this.running = undefined;
        const again = this.queue.values().next();
        if (again.done !== true) this.schedule(again.value, wait);
      });
  }
}
