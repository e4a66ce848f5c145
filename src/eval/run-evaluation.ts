// Runs an evidence-retrieval evaluation: one save per conversation, every question asked against its own save.
import { MnemoError } from '../core/errors.js';
import type { QueryOptions } from '../core/types.js';
import type { Mnemo } from '../open-memory.js';
import type { EvaluationFact, EvaluationQuestion, EvaluationTurn } from './dataset.js';
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
  /**
   * Facts stored in each conversation's living memory before the questions (each at every turn of its evidence):
   * the facts arm's input, e.g. a dataset's gold observations standing in for a perfect extractor. Facts naming a
   * turn the dataset lacks are skipped (counted in `factsSkipped`).
   */
  facts?: readonly EvaluationFact[];
  /** Only these conversations (ingested, and their questions asked); default every one. An id the dataset lacks is refused. */
  conversations?: readonly string[];
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
  /** How many conversations were ingested. */
  conversations: number;
  /** Facts stored (one per evidence turn), and facts skipped for naming no known turn. */
  factsStored: number;
  factsSkipped: number;
  scored: number;
  skipped: number;
  ingestSeconds: number;
}

/**
 * Ingests each conversation as its own save (turn order as turnId, the dataset's turn id as entryId; speaker,
 * date and session in metadata, and the speaker, scene and time roles: the speaker, the session, its ISO date), asks each scored question against its own save and scores the ranking.
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
  const conversations = chosenConversations(dataset.conversations, options.conversations);
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
        // The metadata roles' convention: who said it, its scene (the session), when (the session's date).
        metadata: { speaker: turn.speaker ?? null, date: turn.date ?? null, session: turn.session ?? null, scene: turn.session ?? null, time: turn.date_iso ?? null },
      })),
    );
    options.onProgress?.('ingest', done + 1, conversations.length);
  }
  const { stored: factsStored, skipped: factsSkipped } = await storeFacts(memory, dataset.conversations, conversations, options.facts ?? []);
  const ingestSeconds = (performance.now() - started) / 1000;

  const chosen = new Set(conversations);
  const scoredQuestions = dataset.questions.filter((question) => chosen.has(question.conv) && (options.includeAdversarial || question.category !== 5) && question.evidence.length > 0);
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
  return { metrics: metrics.result(), run, latencies, conversations: conversations.length, factsStored, factsSkipped, scored: scoredQuestions.length, skipped: dataset.questions.filter((question) => chosen.has(question.conv)).length - scoredQuestions.length, ingestSeconds };
}

/** The conversations to run, sorted: those asked for (each checked), or every one. */
function chosenConversations(all: ReadonlyMap<string, unknown>, asked: readonly string[] | undefined): string[] {
  if (asked === undefined) return [...all.keys()].sort();
  const missing = asked.filter((conv) => !all.has(conv));
  if (missing.length > 0 || asked.length === 0) {
    throw new MnemoError('INVALID_INPUT', `conversations: expected ids of conversations in the turns file (${[...all.keys()].slice(0, 3).join(', ')}, ...), got ${JSON.stringify(missing.length > 0 ? missing : asked)}.`, { details: { field: 'conversations' } });
  }
  return [...new Set(asked)].sort();
}

/** Stores each fact of the chosen conversations at every turn of its evidence, a turn's facts in one write. */
async function storeFacts(memory: Mnemo, turns: ReadonlyMap<string, EvaluationTurn[]>, chosen: readonly string[], facts: readonly EvaluationFact[]): Promise<{ stored: number; skipped: number }> {
  const wanted = new Set(chosen);
  const byTurn = new Map<string, { conv: string; turn: number; statements: string[] }>();
  let skipped = 0;
  const turnOf = new Map([...turns].map(([conv, list]) => [conv, new Map(list.map((turn) => [turn.id, turn.turn]))]));
  for (const fact of facts) {
    if (!wanted.has(fact.conv)) continue;
    const found = [...new Set(fact.evidence)].map((id) => turnOf.get(fact.conv)?.get(id)).filter((turn): turn is number => turn !== undefined);
    if (found.length === 0) skipped++;
    for (const turn of found) {
      const key = `${fact.conv}\u0000${turn}`;
      const entry = byTurn.get(key) ?? { conv: fact.conv, turn, statements: [] };
      entry.statements.push(fact.statement);
      byTurn.set(key, entry);
    }
  }
  let stored = 0;
  for (const { conv, turn, statements } of byTurn.values()) {
    stored += (await memory.living.addFacts(conv, turn, statements)).length;
  }
  return { stored, skipped };
}
