// A trace sink that appends each event as one JSON line to a file (written synchronously, so order holds).
import { closeSync, openSync, writeSync } from 'node:fs';
import { MnemoError } from '../core/errors.js';
import type { TraceEvent, TraceSink } from './trace-event.js';

/**
 * Appends events to a JSON-lines file: one `{"event_type":...,"timestamp":...,"data":{...}}` per line. The file is
 * created if absent and never truncated. Each line is written with one system call as the event happens.
 *
 * @example
 * ```ts
 * const sink = new JsonLinesTraceSink('trace.jsonl');
 * const tracer = new Tracer({ sinks: [sink] });
 * // ... later
 * await tracer.close();
 * ```
 */
export class JsonLinesTraceSink implements TraceSink {
  private descriptor: number | null;

  constructor(readonly path: string) {
    try {
      this.descriptor = openSync(path, 'a');
    } catch (error) {
      throw new MnemoError('INVALID_INPUT', `trace file: could not open ${path} for appending (${(error as Error).message}). Check that its folder exists and is writable.`, {
        cause: error,
        details: { field: 'path', path },
      });
    }
  }

  write(event: TraceEvent): void {
    if (this.descriptor === null) throw new MnemoError('STORE_CLOSED', `The trace file ${this.path} is closed.`);
    writeSync(this.descriptor, `${JSON.stringify(event)}\n`);
  }

  close(): void {
    if (this.descriptor === null) return;
    closeSync(this.descriptor);
    this.descriptor = null;
  }
}
