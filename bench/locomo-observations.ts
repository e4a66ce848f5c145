// LoCoMo's gold session observations as facts {conv, statement, evidence[]} (evaluation of the facts arm only: read from the data at run time, never shipped).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { EvaluationFact } from '../src/eval/index.js';

/** The entries of a zip file (stored or deflated), by name. */
function unzip(buffer: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  let end = buffer.length - 22;
  while (end >= 0 && buffer.readUInt32LE(end) !== 0x06054b50) end--;
  const count = buffer.readUInt16LE(end + 10);
  let position = buffer.readUInt32LE(end + 16);
  for (let entry = 0; entry < count; entry++) {
    const method = buffer.readUInt16LE(position + 10);
    const size = buffer.readUInt32LE(position + 20);
    const nameLength = buffer.readUInt16LE(position + 28);
    const extraLength = buffer.readUInt16LE(position + 30);
    const commentLength = buffer.readUInt16LE(position + 32);
    const local = buffer.readUInt32LE(position + 42);
    const name = buffer.toString('utf8', position + 46, position + 46 + nameLength);
    const start = local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
    const raw = buffer.subarray(start, start + size);
    entries.set(name, method === 8 ? inflateRawSync(raw) : raw);
    position += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * The observations of every conversation in `raw/locomo10.zip` under the LoCoMo data folder, each with its evidence
 * turn ids.
 *
 * @example
 * ```ts
 * const facts = locomoObservations('../shared/bench/locomo'); // [{ conv: 'conv-26', statement: '...', evidence: ['D1:3'] }, ...]
 * ```
 */
export function locomoObservations(data: string): EvaluationFact[] {
  const facts: EvaluationFact[] = [];
  for (const [name, content] of unzip(readFileSync(join(data, 'raw', 'locomo10.zip')))) {
    const match = /(\d+)\.json$/.exec(name);
    if (match === null) continue;
    const conversation = JSON.parse(content.toString('utf8')) as Record<string, unknown>;
    for (const [key, value] of Object.entries(conversation)) {
      if (!/^session_\d+_observation$/.test(key) || value === null || typeof value !== 'object') continue;
      for (const observations of Object.values(value as Record<string, [string, string | string[]][]>)) {
        for (const [statement, evidence] of observations) {
          const ids = (Array.isArray(evidence) ? evidence : [evidence]).flatMap((id) => String(id).split(/[;,]\s*/)).map((id) => id.trim()).filter((id) => id !== '');
          if (statement.trim() !== '' && ids.length > 0) facts.push({ conv: `conv-${match[1]}`, statement, evidence: ids });
        }
      }
    }
  }
  return facts;
}
