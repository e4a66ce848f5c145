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

/** Loops written as `Steps` may pause before a row (a document, a vector) whose index has these bits clear: every 64 rows. */
export const STEP_ROWS = 63;

/**
 * Work written as a generator that yields wherever it may pause: `runSteps` runs it at once, `runStepsSliced`
 * gives the event loop back between its steps every few milliseconds. The same code either way, so the two
 * give the same result.
 */
export type Steps<T> = Generator<void, T, void>;

/**
 * Steps that are done already (work with nothing left to do).
 *
 * @example
 * ```ts
 * prepareSteps(): Steps<void> { return this.prepared ? noSteps() : this.preparing(); }
 * ```
 */
export function* noSteps(): Steps<void> {
  yield* [];
}

/**
 * Runs `steps` to the end at once and returns its result.
 *
 * @example
 * ```ts
 * const fresh = runSteps(index.compactedSteps());
 * ```
 */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * Runs `steps` to the end, yielding to the event loop when `slice` says (every SLICE_MS), and returns its result.
 *
 * @example
 * ```ts
 * const fresh = await runStepsSliced(index.compactedSteps());
 * ```
 */
export async function runStepsSliced<T>(steps: Steps<T>, slice = new TimeSlice()): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await slice.tick();
  }
}
