// Programs over a row-level port, written once as generators: SQLite and the in-memory store run them
// synchronously inside their transactions, PostgreSQL awaits each step on its transaction's client.

/** One step of a program: a call of one port method (one statement, or one batch of rows). */
export interface RowCall<Port> {
  method: keyof Port;
  args: readonly unknown[];
}

/** A program over `Port` that yields port calls and returns `T`. Compose programs with `yield*`. */
export type RowProgram<Port, T> = Generator<RowCall<Port>, T, unknown>;

/** The methods of a port, asynchronous (what a PostgreSQL port implements). */
export type AsyncPort<Port> = {
  [K in keyof Port]: Port[K] extends (...args: infer Args) => infer Result ? (...args: Args) => Promise<Result> : never;
};

/** The methods of a port as steps of a program: `yield* steps.insertFacts(saveId, facts)` returns its result. */
export type PortSteps<Port> = {
  [K in keyof Port]: Port[K] extends (...args: infer Args) => infer Result ? (...args: Args) => RowProgram<Port, Result> : never;
};

/**
 * The steps of a port: each method, called with its arguments, is a one-step program yielding that call.
 *
 * @example
 * ```ts
 * interface Counter { add(amount: number): number }
 * const counter = portSteps<Counter>();
 * function* twice(): RowProgram<Counter, number> { yield* counter.add(1); return yield* counter.add(1); }
 * ```
 */
export function portSteps<Port>(): PortSteps<Port> {
  return new Proxy({}, {
    get: (_target, method) => function* step(...args: unknown[]): Generator<RowCall<Port>, unknown, unknown> {
      return yield { method: method as keyof Port, args };
    },
  }) as PortSteps<Port>;
}

type AnyMethod = (...args: unknown[]) => unknown;

/**
 * Runs a program to its end against a synchronous port (inside the caller's transaction, if any). An error a port
 * call throws is thrown into the program, so it ends the program as it would a plain function.
 *
 * @example
 * ```ts
 * const total = runRowProgram(twice(), { add: (amount) => (sum += amount) });
 * ```
 */
export function runRowProgram<Port, T>(program: RowProgram<Port, T>, port: Port): T {
  let step = program.next();
  while (!step.done) {
    const { method, args } = step.value;
    let result: unknown;
    try {
      result = (port[method] as AnyMethod).apply(port, args as unknown[]);
    } catch (error) {
      step = program.throw(error);
      continue;
    }
    step = program.next(result);
  }
  return step.value;
}

/**
 * Runs a program against an asynchronous port, one awaited call at a time (on one transaction's client).
 *
 * @example
 * ```ts
 * const total = await runRowProgramAsync(twice(), { add: async (amount) => (sum += amount) });
 * ```
 */
export async function runRowProgramAsync<Port, T>(program: RowProgram<Port, T>, port: AsyncPort<Port>): Promise<T> {
  let step = program.next();
  while (!step.done) {
    const { method, args } = step.value;
    let result: unknown;
    try {
      result = await (port[method] as AnyMethod).apply(port, args as unknown[]);
    } catch (error) {
      step = program.throw(error);
      continue;
    }
    step = program.next(result);
  }
  return step.value;
}
