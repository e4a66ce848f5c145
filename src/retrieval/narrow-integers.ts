// Integer sections of a persisted index at the narrowest width that holds every value, widened again when read.
import { SnapshotRejected } from './snapshot-format.js';
import type { ArrayKind, SnapshotReader, SnapshotWriter } from './snapshot-format.js';

/** The integer kinds, narrowest first, with the values each holds. */
const WIDTHS = [
  { kind: 'u8', min: 0, max: 0xff, make: (values: ArrayLike<number>) => Uint8Array.from(values) },
  { kind: 'i8', min: -0x80, max: 0x7f, make: (values: ArrayLike<number>) => Int8Array.from(values) },
  { kind: 'u16', min: 0, max: 0xffff, make: (values: ArrayLike<number>) => Uint16Array.from(values) },
  { kind: 'i32', min: -0x80000000, max: 0x7fffffff, make: (values: ArrayLike<number>) => Int32Array.from(values) },
] as const;
const INTEGER_KINDS: ReadonlySet<ArrayKind> = new Set(WIDTHS.map(({ kind }) => kind));

/**
 * Writes `values` under `name` at the narrowest integer kind that holds every one exactly (u8, i8, u16, i32); a
 * Float64Array with a value no i32 holds (a fraction, NaN, -0, beyond 2^31) is written as it is. `readWidened`
 * reads either back as the same values.
 *
 * @example
 * ```ts
 * writeNarrowest(writer, 'kindIds', Int32Array.of(0, 1, -1)); // an i8 section of 3 bytes
 * ```
 */
export function writeNarrowest(writer: SnapshotWriter, name: string, values: Int32Array | Float64Array): void {
  let min = 0;
  let max = 0;
  for (let index = 0; index < values.length; index++) {
    const value = values[index] as number;
    if (!Number.isInteger(value) || Object.is(value, -0)) {
      writer.array(name, values);
      return;
    }
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const width = WIDTHS.find((candidate) => candidate.min <= min && max <= candidate.max);
  if (width === undefined || (width.kind === 'i32' && values instanceof Int32Array)) writer.array(name, values);
  else writer.array(name, width.make(values));
}

/**
 * A section `writeNarrowest` wrote, as `kind` (i32 or f64): a copy when it was written narrower, the section
 * itself when written as `kind`. A section of another kind refuses the snapshot as corrupt.
 *
 * @example
 * ```ts
 * const kindIds = readWidened(reader, 'kindIds', 'i32');
 * ```
 */
export function readWidened(reader: SnapshotReader, name: string, kind: 'i32'): Int32Array<ArrayBuffer>;
export function readWidened(reader: SnapshotReader, name: string, kind: 'f64'): Float64Array<ArrayBuffer>;
export function readWidened(reader: SnapshotReader, name: string, kind: 'i32' | 'f64'): Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer> {
  const stored = reader.kindOf(name);
  if (stored === kind) return kind === 'i32' ? reader.array(name, 'i32') : reader.array(name, 'f64');
  if (stored === undefined || !INTEGER_KINDS.has(stored)) throw new SnapshotRejected(`section ${name} missing or not ${kind} (${stored ?? 'absent'})`);
  const narrow = reader.array(name, stored);
  return kind === 'i32' ? Int32Array.from(narrow) : Float64Array.from(narrow);
}
