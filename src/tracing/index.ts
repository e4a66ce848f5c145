// Tracing of memory operations: the Tracer and its sinks.
export { Tracer } from './tracer.js';
export type { TracerOptions } from './tracer.js';
export { TraceEventType } from './trace-event.js';
export type { TraceEvent, TraceSink } from './trace-event.js';
export { MemoryTraceSink } from './memory-trace-sink.js';
export { JsonLinesTraceSink } from './json-lines-trace-sink.js';
export { OpenTelemetryTraceSink } from './open-telemetry-trace-sink.js';
export type { OpenTelemetryTraceSinkOptions, SpanStarter } from './open-telemetry-trace-sink.js';
