// The shape of a trace event and of the sinks that receive them, as the seed's tracer emits them.
import type { JsonValue } from '../core/types.js';

/** The event types Mnemo emits, named as in the seed (`TraceEventType.MEMORY_WRITE`). */
export const TraceEventType = {
  MEMORY_WRITE: 'memory_write',
  MEMORY_READ: 'memory_read',
} as const;

export type TraceEventType = (typeof TraceEventType)[keyof typeof TraceEventType];

/**
 * One traced operation, in the seed's JSON form: `event_type`, `timestamp` (Unix time in seconds, with
 * milliseconds as the fraction) and `data`. Frozen.
 *
 * @example
 * ```ts
 * const event: TraceEvent = { event_type: 'memory_write', timestamp: 1704067200.5, data: { key: 'contract_summary', value_type: 'dict' } };
 * ```
 */
export interface TraceEvent {
  readonly event_type: string;
  readonly timestamp: number;
  readonly data: Readonly<Record<string, JsonValue>>;
}

/** Receives every event a Tracer emits. `write` should not throw; if it does, the Tracer logs it once and goes on. */
export interface TraceSink {
  write(event: TraceEvent): void;
  /** Flushes and releases whatever the sink holds (a file). */
  close?(): void | Promise<void>;
}
