// Runs an evidence-retrieval evaluation: one save per conversation, every question asked against its own save.
import { MnemoError } from '../core/errors.js';
import type { QueryOptions } from '../core/types.js';
import type { Mnemo } from '../open-memory.js';
import type { EvaluationQuestion, EvaluationTurn } from './dataset.js';
import { documentText } from './document-text.js';
import type { DocumentMode } from './document-text.js';
import { MetricsAccumulator } from './metrics.js';
import type { EvaluationMetrics } from './metrics.js';

/** How to run an evaluation. */
export interface EvaluationOptions {
  /** What is indexed per turn (default `text`). */
  doc?: DocumentMode;
  /** Cut-offs (default 5, 10, 20). */
  ks?: number[];
  /** Also score category 5 (adversarial), as the LoCoMo paper's protocol does. */
  includeAdversarial?: boolean;
  /** Retrieval options passed to every query (k is set by `depth`). */
  query?: Omit<QueryOptions, 'k'>;
  /** How many ranked ids to keep per question (default max(100, largest k)). */
  depth?: number;
  /** Called after each conversation ingested and each question asked. */
  onProgress?(phase: 'ingest' | 'query', done: number, total: number): void;
}

/** One line of the scorer's run format. */
export interface RunLine {
  qid: string;
  ranked: string[];
}

/** What an evaluation produces. */
export interface EvaluationResult {
  metrics: EvaluationMetrics;
  run: RunLine[];
  /** Query latencies in milliseconds, in question order. */
  latencies: number[];
  scored: number;
  skipped: number;
  ingestSeconds: number;
}

/**
 * Ingests each conversation as its own save (turn order as turnId, the dataset's turn id as entryId; speaker,
 * date and session in metadata), asks each scored question against its own save and scores the ranking.
 *
 * @example
 * ```ts
 * const { metrics } = await runEvaluation(memory, readDataset(turns, qa), { doc: 'full', includeAdversarial: true });
 * ```
 */
export async function runEvaluation(
  memory: Mnemo,
  dataset: { conversations: Map<string, EvaluationTurn[]>; questions: EvaluationQuestion[] },
  options: EvaluationOptions = {},
): Promise<EvaluationResult> {
  const ks = options.ks ?? [5, 10, 20];
  const depth = options.depth ?? Math.max(100, ...ks);
  const doc = options.doc ?? 'text';
  const conversations = [...dataset.conversations.keys()].sort();
  for (const conv of conversations) {
    if ((await memory.count(conv)) > 0) {
      throw new MnemoError('CONFLICT', `Save ${conv} already holds chunks in this database. Run the evaluation on a fresh database (leave out --db).`);
    }
  }

  const started = performance.now();
  for (const [done, conv] of conversations.entries()) {
    const turns = dataset.conversations.get(conv) ?? [];
    await memory.addMany(
      turns.map((turn) => ({
        saveId: conv,
        turnId: turn.turn,
        text: documentText(turn, doc),
        entryId: turn.id,
        metadata: { speaker: turn.speaker ?? null, date: turn.date ?? null, session: turn.session ?? null },
      })),
    );
    options.onProgress?.('ingest', done + 1, conversations.length);
  }
  const ingestSeconds = (performance.now() - started) / 1000;

  const scoredQuestions = dataset.questions.filter((question) => (options.includeAdversarial || question.category !== 5) && question.evidence.length > 0);
  const metrics = new MetricsAccumulator(ks);
  const run: RunLine[] = [];
  const latencies: number[] = [];
  for (const [done, question] of scoredQuestions.entries()) {
    const t0 = performance.now();
    const hits = await memory.query(question.conv, question.question, { ...options.query, k: depth });
    latencies.push(performance.now() - t0);
    const ranked = hits.map((hit) => hit.entryId ?? hit.id);
    run.push({ qid: question.qid, ranked });
    metrics.add(question.category, question.category_name, ranked, question.evidence);
    options.onProgress?.('query', done + 1, scoredQuestions.length);
  }
  return { metrics: metrics.result(), run, latencies, scored: scoredQuestions.length, skipped: dataset.questions.length - scoredQuestions.length, ingestSeconds };
}
