// The Tracer: stamps events with the time and hands them to its sinks (memory list, JSON lines, OpenTelemetry).
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { deepFreeze } from '../core/json-value.js';
import { onceLogger, silentLogger } from '../core/logger.js';
import type { Logger } from '../core/logger.js';
import type { JsonValue } from '../core/types.js';
import { MemoryTraceSink } from './memory-trace-sink.js';
import type { TraceEvent, TraceSink } from './trace-event.js';

/** How a Tracer is made. */
export interface TracerOptions {
  /** Where events go (default: one MemoryTraceSink, read back through `tracer.events`). */
  sinks?: readonly TraceSink[];
  /** Stamps events (milliseconds; events carry seconds). */
  clock?: Clock;
  /** Where a failing sink is reported, once per distinct problem. */
  logger?: Logger;
}

/**
 * Receives the memory operations' events and passes each, stamped with the time, to every sink. A sink that
 * throws is reported through the logger and never breaks the operation being traced.
 *
 * @example
 * ```ts
 * const tracer = new Tracer();
 * const memory = new InMemoryBackend({ tracer });
 * await memory.store('contract_type', 'NDA');
 * tracer.events; // [{ event_type: 'memory_write', timestamp: 1704067200.5, data: { key: 'contract_type', value_type: 'str' } }]
 * ```
 */
export class Tracer {
  readonly sinks: readonly TraceSink[];
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(options: TracerOptions = {}) {
    this.sinks = options.sinks === undefined ? [new MemoryTraceSink()] : [...options.sinks];
    this.clock = options.clock ?? systemClock;
    this.logger = onceLogger(options.logger ?? silentLogger);
  }

  /** The events kept by the first MemoryTraceSink among the sinks (empty when there is none). */
  get events(): readonly TraceEvent[] {
    const memory = this.sinks.find((sink): sink is MemoryTraceSink => sink instanceof MemoryTraceSink);
    return memory?.events ?? [];
  }

  /** Stamps an event with the clock's time in seconds, gives it to every sink and returns it (frozen). */
  emit(eventType: string, data: Record<string, JsonValue>): TraceEvent {
    const event: TraceEvent = deepFreeze({ event_type: eventType, timestamp: this.clock() / 1000, data: { ...data } });
    for (const sink of this.sinks) {
      try {
        sink.write(event);
      } catch (error) {
        this.logger.warn(`trace sink ${sink.constructor.name} failed (${(error as Error).message}); the operation went on untraced there`);
      }
    }
    return event;
  }

  /** Closes every sink that holds something (files). */
  async close(): Promise<void> {
    for (const sink of this.sinks) await sink.close?.();
  }
}
