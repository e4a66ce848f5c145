// The Tracer and its sinks: in-memory list, JSON-lines file, OpenTelemetry spans; a failing sink never breaks a write.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { trace } from '@opentelemetry/api';
import type { Span, SpanOptions, Tracer as OtelTracer, TracerProvider } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../src/core/clock.js';
import { InMemoryBackend } from '../src/recall/in-memory-backend.js';
import { JsonLinesTraceSink } from '../src/tracing/json-lines-trace-sink.js';
import { MemoryTraceSink } from '../src/tracing/memory-trace-sink.js';
import { OpenTelemetryTraceSink } from '../src/tracing/open-telemetry-trace-sink.js';
import type { TraceEvent } from '../src/tracing/trace-event.js';
import { TraceEventType } from '../src/tracing/trace-event.js';
import { Tracer } from '../src/tracing/tracer.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

/** A tracer of the OpenTelemetry API that records the spans it is asked to make (no SDK needed). */
function recordingProvider(): { provider: TracerProvider; spans: { name: string; options: SpanOptions | undefined; ended: unknown }[] } {
  const spans: { name: string; options: SpanOptions | undefined; ended: unknown }[] = [];
  const tracer = {
    startSpan(name: string, options?: SpanOptions): Span {
      const record = { name, options, ended: undefined as unknown };
      spans.push(record);
      return { end: (time?: unknown) => { record.ended = time ?? 'now'; } } as unknown as Span;
    },
  } as unknown as OtelTracer;
  return { provider: { getTracer: () => tracer }, spans };
}

describe('Tracer', () => {
  afterEach(() => trace.disable());

  it('keeps events in memory by default, stamped in seconds, frozen', () => {
    const clock = manualClock(1_704_067_200_500);
    const tracer = new Tracer({ clock: clock.now });
    const event = tracer.emit(TraceEventType.MEMORY_WRITE, { key: 'contract_summary', value_type: 'dict' });
    expect(event).toEqual({ event_type: 'memory_write', timestamp: 1704067200.5, data: { key: 'contract_summary', value_type: 'dict' } });
    expect(Object.isFrozen(event.data)).toBe(true);
    expect(tracer.events).toEqual([event]);
  });

  it('has no events list when its sinks hold none in memory', () => {
    expect(new Tracer({ sinks: [] }).events).toEqual([]);
  });

  it('writes one JSON line per event, appending to what the file held', async () => {
    const path = join(dir, 'trace.jsonl');
    const clock = manualClock(1_704_067_200_500);
    const memorySink = new MemoryTraceSink();
    const tracer = new Tracer({ clock: clock.now, sinks: [new JsonLinesTraceSink(path), memorySink] });
    const backend = new InMemoryBackend({ tracer, clock: clock.now });
    await backend.store('contract_summary', { parties: ['Acme Corp'] }, { scope: 'LongTermKnowledge' });
    clock.set(1_704_067_205_300);
    await backend.retrieve('contract', 5, 'LongTermKnowledge');
    await tracer.close();
    const again = new Tracer({ clock: clock.now, sinks: [new JsonLinesTraceSink(path)] });
    again.emit('memory_read', { query: 'again', results_count: 0, top_k: 1 });
    await again.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as TraceEvent);
    expect(lines).toEqual([
      { event_type: 'memory_write', timestamp: 1704067200.5, data: { key: 'contract_summary', value_type: 'dict' } },
      { event_type: 'memory_read', timestamp: 1704067205.3, data: { query: 'contract', results_count: 1, top_k: 5 } },
      { event_type: 'memory_read', timestamp: 1704067205.3, data: { query: 'again', results_count: 0, top_k: 1 } },
    ]);
    expect(memorySink.events.map((event) => event.event_type)).toEqual(['memory_write', 'memory_read']);
  });

  it('refuses a trace file it cannot open, with INVALID_INPUT', () => {
    expect(() => new JsonLinesTraceSink(join(dir, 'no-such-folder', 'trace.jsonl'))).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });

  it('logs a failing sink once and lets the traced operation succeed', async () => {
    const warnings: string[] = [];
    const memorySink = new MemoryTraceSink();
    const broken = { write: () => { throw new Error('disk full'); } };
    const tracer = new Tracer({ sinks: [broken, memorySink], logger: { info: () => {}, warn: (message) => warnings.push(message) } });
    const backend = new InMemoryBackend({ tracer });
    await backend.store('a', 1);
    await backend.store('b', 2);
    expect(await backend.count()).toBe(2);
    expect(memorySink.events).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('disk full');
  });

  it('turns each event into an OpenTelemetry span through the API (a registered provider)', async () => {
    const { provider, spans } = recordingProvider();
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    const clock = manualClock(1_704_067_200_500);
    const tracer = new Tracer({ clock: clock.now, sinks: [new OpenTelemetryTraceSink(trace.getTracer('mnemo-test'))] });
    const backend = new InMemoryBackend({ tracer, clock: clock.now });
    await backend.store('contract_summary', { parties: ['Acme Corp'] });
    await backend.retrieve('contract types', 5);
    expect(spans).toEqual([
      { name: 'mnemo.memory_write', options: { startTime: 1704067200500, attributes: { 'mnemo.key': 'contract_summary', 'mnemo.value_type': 'dict' } }, ended: 1704067200500 },
      { name: 'mnemo.memory_read', options: { startTime: 1704067200500, attributes: { 'mnemo.query': 'contract types', 'mnemo.results_count': 0, 'mnemo.top_k': 5 } }, ended: 1704067200500 },
    ]);
  });

  it('works with the API\'s no-op tracer when no provider is registered, and renders nested data as JSON', async () => {
    const sink = new OpenTelemetryTraceSink(trace.getTracer('mnemo-test'), { prefix: 'app.' });
    expect(() => sink.write({ event_type: 'memory_write', timestamp: 1, data: { key: 'k', nested: { a: [1] } } })).not.toThrow();
    const { provider, spans } = recordingProvider();
    new OpenTelemetryTraceSink(provider.getTracer('x'), { prefix: 'app.' }).write({ event_type: 'custom', timestamp: 2, data: { nested: { a: [1] }, none: null } });
    expect(spans[0]?.name).toBe('app.custom');
    expect(spans[0]?.options?.attributes).toEqual({ 'app.nested': '{"a":[1]}', 'app.none': 'null' });
  });
});
