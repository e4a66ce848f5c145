// A trace sink that keeps events in a list in memory, for tests and for inspecting a run.
import type { TraceEvent, TraceSink } from './trace-event.js';

/**
 * Keeps every event it receives, in order.
 *
 * @example
 * ```ts
 * const sink = new MemoryTraceSink();
 * const tracer = new Tracer({ sinks: [sink] });
 * tracer.emit('memory_read', { query: 'contract', results_count: 2, top_k: 5 });
 * sink.events.length; // 1
 * ```
 */
export class MemoryTraceSink implements TraceSink {
  private readonly list: TraceEvent[] = [];

  /** The events received so far, oldest first. */
  get events(): readonly TraceEvent[] {
    return this.list;
  }

  write(event: TraceEvent): void {
    this.list.push(event);
  }

  /** Forgets the events received so far. */
  clear(): void {
    this.list.length = 0;
  }
}
