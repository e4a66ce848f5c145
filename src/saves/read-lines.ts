// Reads a save file line by line, synchronously and in bounded memory, from a file or from text held in memory.
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { MnemoError } from '../core/errors.js';
import { MAX_SAVE_FILE_LINE } from './save-file.js';

/** Where a save file is read from: a file on disk, or its text (an HTTP body, a test). */
export type SaveFileSource = { path: string } | { text: string };

/** One line of a save file, numbered from 1. */
export interface NumberedLine {
  number: number;
  text: string;
}

const BUFFER_BYTES = 1024 * 1024;

/** The name of a source in messages: its path, or "the save file". */
export function sourceName(source: SaveFileSource): string {
  return 'path' in source ? source.path : 'the save file';
}

function tooLong(source: SaveFileSource, number: number): MnemoError {
  return new MnemoError('SAVE_FILE_INVALID', `${sourceName(source)} line ${number}: longer than ${MAX_SAVE_FILE_LINE} bytes, the longest line a save file may have. Export the save again with Mnemo.`, {
    details: { line: number },
  });
}

/**
 * The non-blank lines of a save file in order, read synchronously (so an import can consume them inside a
 * synchronous transaction) with a 1 MiB buffer: memory stays bounded whatever the file's size. `\r\n` ends a line
 * too. A file that cannot be read fails with NOT_FOUND or STORE_FAILURE naming it.
 *
 * @example
 * ```ts
 * for (const line of readSaveFileLines({ path: 'save.jsonl' })) console.log(line.number, line.text.length);
 * ```
 */
export function* readSaveFileLines(source: SaveFileSource): Generator<NumberedLine> {
  if ('text' in source) {
    yield* splitLines(source, [source.text]);
    return;
  }
  let descriptor: number;
  try {
    descriptor = openSync(source.path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new MnemoError(code === 'ENOENT' ? 'NOT_FOUND' : 'STORE_FAILURE', `Could not open the save file ${source.path}: ${(error as Error).message}. Check the path.`, { cause: error, details: { path: source.path } });
  }
  try {
    const buffer = Buffer.alloc(BUFFER_BYTES);
    const decoder = new StringDecoder('utf8');
    const pieces = function* (): Generator<string> {
      for (;;) {
        const read = readSync(descriptor, buffer, 0, BUFFER_BYTES, null);
        if (read === 0) break;
        yield decoder.write(buffer.subarray(0, read));
      }
      yield decoder.end();
    };
    yield* splitLines(source, pieces());
  } finally {
    closeSync(descriptor);
  }
}

function* splitLines(source: SaveFileSource, pieces: Iterable<string>): Generator<NumberedLine> {
  let pending = '';
  let number = 0;
  for (const piece of pieces) {
    pending += piece;
    let start = 0;
    for (let end = pending.indexOf('\n', start); end >= 0; end = pending.indexOf('\n', start)) {
      number++;
      const line = pending.slice(start, end).replace(/\r$/u, '');
      start = end + 1;
      if (line.length > MAX_SAVE_FILE_LINE) throw tooLong(source, number);
      if (line.trim() !== '') yield { number, text: line };
    }
    pending = pending.slice(start);
    if (pending.length > MAX_SAVE_FILE_LINE) throw tooLong(source, number + 1);
  }
  if (pending.trim() !== '') yield { number: number + 1, text: pending.replace(/\r$/u, '') };
}
