// A trace sink that turns each event into an OpenTelemetry span (works with any @opentelemetry/api Tracer).
import type { TraceEvent, TraceSink } from './trace-event.js';

/** An attribute value OpenTelemetry accepts. */
type AttributeValue = string | number | boolean;

/**
 * The part of an `@opentelemetry/api` Tracer this sink uses. A real Tracer (`trace.getTracer('my-app')`) fits it;
 * Mnemo does not import the package, so it stays an optional peer dependency.
 */
export interface SpanStarter {
  startSpan(name: string, options?: { startTime?: number; attributes?: Record<string, AttributeValue> }): { end(endTime?: number): void };
}

/** Options of the OpenTelemetry sink. */
export interface OpenTelemetryTraceSinkOptions {
  /** Prefix of span names and attribute keys (default `mnemo.`): a `memory_read` becomes span `mnemo.memory_read`. */
  prefix?: string;
}

/**
 * Emits one span per event: named `<prefix><event_type>`, starting and ending at the event's time (milliseconds),
 * with each data field as an attribute `<prefix><field>` (numbers, strings and booleans as they are, anything
 * else as JSON text).
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * const tracer = new Tracer({ sinks: [new OpenTelemetryTraceSink(trace.getTracer('my-agent'))] });
 * ```
 */
export class OpenTelemetryTraceSink implements TraceSink {
  private readonly prefix: string;

  constructor(private readonly tracer: SpanStarter, options: OpenTelemetryTraceSinkOptions = {}) {
    this.prefix = options.prefix ?? 'mnemo.';
  }

  write(event: TraceEvent): void {
    const attributes: Record<string, AttributeValue> = {};
    for (const [field, value] of Object.entries(event.data)) {
      attributes[`${this.prefix}${field}`] = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value);
    }
    const time = event.timestamp * 1000;
    this.tracer.startSpan(`${this.prefix}${event.event_type}`, { startTime: time, attributes }).end(time);
  }
}
