// The corpora every engine receives: the synthetic one and LoCoMo's turns, with vectors computed once, in files.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStaticEmbedder } from '../../src/embedders/static/index.js';
import { readDataset } from '../../src/eval/index.js';
import type { EvaluationQuestion, EvaluationTurn } from '../../src/eval/index.js';
import { seededRandom, sentences } from '../synthetic-corpus.js';

/** Vector length of the static embedder, the one that computes every vector of this benchmark. */
export const DIMENSIONS = 100;

/** One row handed to an engine: an id, its text and its vector (the same for every engine). */
export interface CorpusRow {
  id: string;
  text: string;
  vector: Float32Array;
  /** Position in its conversation or corpus (Mnemo's turnId). */
  turn: number;
  /** The filtered mode's group (a metadata field): FILTER_GROUPS groups in the synthetic corpus, 0 in LoCoMo. */
  group: number;
}

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The LoCoMo folder in ../shared (or MNEMO_SHARED), found as test/shared-path.ts finds it; never copied into
 * the repository (CC BY-NC).
 */
export function locomoFolder(): string | null {
  const candidates = [process.env['MNEMO_SHARED'], join(repositoryRoot, '..', 'shared'), '/work/shared'].filter((path): path is string => path !== undefined);
  for (const base of candidates) {
    const folder = join(base, 'bench', 'locomo');
    if (existsSync(join(folder, 'locomo.turns.jsonl'))) return folder;
  }
  return null;
}

/** The words the synthetic corpus is drawn from: GloVe's 20,000 most frequent after the first 100 (as `npm run bench --embedder static`). */
async function corpusWords(): Promise<string[]> {
  const { table } = await loadStaticEmbedder();
  return table.words.slice(100, 20_100);
}

/** The synthetic corpus's sentences, the first `count` (a smaller corpus is a prefix of a larger one). */
export async function syntheticTexts(count: number): Promise<Generator<string>> {
  return sentences(count, 42, 20_000, await corpusWords());
}

/** The synthetic queries: `count` spans of four words from the first 5,000 sentences, seeded. */
export async function syntheticQueries(count: number): Promise<string[]> {
  const corpus = [...(await syntheticTexts(5000))];
  const random = seededRandom(7);
  return Array.from({ length: count }, () => {
    const words = (corpus[Math.floor(random() * corpus.length)] as string).replace('.', '').split(' ');
    const from = Math.floor(random() * Math.max(1, words.length - 4));
    return words.slice(from, from + 4).join(' ');
  });
}

/** Writes float32 vectors to a file (atomically), `DIMENSIONS` per row. */
function writeVectors(path: string, vectors: Iterable<Float32Array>): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  const handle = openSync(temporary, 'w');
  try {
    for (const vector of vectors) writeSync(handle, new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
  } finally {
    closeSync(handle);
  }
  renameSync(temporary, path);
}

/** Reads rows `from`..`from + count` of a vector file written by writeVectors. */
export function readVectors(path: string, from: number, count: number): Float32Array[] {
  const bytes = new Uint8Array(count * DIMENSIONS * 4);
  const handle = openSync(path, 'r');
  try {
    let done = 0;
    while (done < bytes.length) {
      const read = readSync(handle, bytes, done, bytes.length - done, from * DIMENSIONS * 4 + done);
      if (read === 0) throw new Error(`${path}: expected ${count} vectors from row ${from}, the file ends early`);
      done += read;
    }
  } finally {
    closeSync(handle);
  }
  const all = new Float32Array(bytes.buffer);
  return Array.from({ length: count }, (_, row) => all.slice(row * DIMENSIONS, (row + 1) * DIMENSIONS));
}

/** Paths of the prepared files in the work folder. */
export function preparedPaths(work: string) {
  return {
    syntheticVectors: join(work, 'synthetic.f32'),
    syntheticSize: join(work, 'synthetic.size'),
    queryVectors: join(work, 'queries.f32'),
    queryTexts: join(work, 'queries.json'),
    locomoTurnVectors: join(work, 'locomo-turns.f32'),
    locomoQuestionVectors: join(work, 'locomo-questions.f32'),
    identity: join(work, 'identity.json'),
  };
}

/**
 * Computes, once, the static embedder's vectors of the synthetic corpus (up to `size` rows), of the queries and
 * of LoCoMo's turns and questions, and writes them to `work`. Files already there for at least `size` rows are
 * kept (the embedder is deterministic).
 */
export async function prepareVectors(work: string, size: number, queryCount: number, locomo: string | null): Promise<{ seconds: number }> {
  const started = performance.now();
  const paths = preparedPaths(work);
  const embedder = await loadStaticEmbedder();
  mkdirSync(work, { recursive: true });
  writeFileSync(paths.identity, JSON.stringify({ provider: embedder.provider, modelId: embedder.modelId, dimensions: embedder.dimensions }));
  const embedAll = async function* (texts: Iterable<string>): AsyncGenerator<Float32Array> {
    let batch: string[] = [];
    for (const text of texts) {
      batch.push(text);
      if (batch.length === 4096) {
        yield* await embedder.embed(batch);
        batch = [];
      }
    }
    if (batch.length > 0) yield* await embedder.embed(batch);
  };
  const collect = async (texts: Iterable<string>) => {
    const vectors: Float32Array[] = [];
    for await (const vector of embedAll(texts)) vectors.push(vector);
    return vectors;
  };
  const prepared = existsSync(paths.syntheticSize) ? Number(readFileSync(paths.syntheticSize, 'utf8')) : 0;
  if (prepared < size || !existsSync(paths.syntheticVectors)) {
    const temporary = `${paths.syntheticVectors}.${process.pid}.tmp`;
    const handle = openSync(temporary, 'w');
    try {
      for await (const vector of embedAll(await syntheticTexts(size))) writeSync(handle, new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
    } finally {
      closeSync(handle);
    }
    renameSync(temporary, paths.syntheticVectors);
    writeFileSync(paths.syntheticSize, String(size));
  }
  const queries = await syntheticQueries(queryCount);
  writeFileSync(paths.queryTexts, JSON.stringify(queries));
  writeVectors(paths.queryVectors, await collect(queries));
  if (locomo !== null) {
    const { conversations, questions } = loadLocomo(locomo);
    writeVectors(paths.locomoTurnVectors, await collect([...conversations.values()].flat().map((turn) => turn.text)));
    writeVectors(paths.locomoQuestionVectors, await collect(questions.map((question) => question.question)));
  }
  return { seconds: (performance.now() - started) / 1000 };
}

/** LoCoMo under the scorer's default protocol: every conversation's turns, and the non-adversarial questions with evidence. */
export function loadLocomo(folder: string): { conversations: Map<string, EvaluationTurn[]>; questions: EvaluationQuestion[] } {
  const dataset = readDataset(join(folder, 'locomo.turns.jsonl'), join(folder, 'locomo.qa.jsonl'));
  const sorted = new Map([...dataset.conversations.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { conversations: sorted, questions: dataset.questions.filter((question) => question.category !== 5 && question.evidence.length > 0) };
}
