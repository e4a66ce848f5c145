// Reads an evaluation dataset: a turns file and a questions file in JSON lines (the LoCoMo converter's format).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MnemoError } from '../core/errors.js';

const turnSchema = z.object({
  conv: z.string().min(1),
  id: z.string().min(1),
  session: z.union([z.number(), z.string()]).optional(),
  turn: z.number().int().nonnegative(),
  speaker: z.string().optional(),
  date: z.string().optional(),
  date_iso: z.string().optional(),
  text: z.string(),
  caption: z.string().optional(),
});

const questionSchema = z.object({
  conv: z.string().min(1),
  qid: z.string().min(1),
  question: z.string(),
  answer: z.unknown().optional(),
  category: z.number().int(),
  category_name: z.string().optional(),
  evidence: z.array(z.string()).default([]),
});

const factSchema = z.object({
  conv: z.string().min(1),
  statement: z.string().min(1),
  evidence: z.array(z.string()).min(1),
});

/** One turn of a conversation. */
export type EvaluationTurn = z.infer<typeof turnSchema>;
/** A fact about a conversation with the ids of the turns it comes from (evaluation of the facts arm). */
export type EvaluationFact = z.infer<typeof factSchema>;
/** One question with the ids of the turns that hold its evidence. */
export type EvaluationQuestion = z.infer<typeof questionSchema>;

function readJsonLines<T>(path: string, schema: z.ZodType<T>, what: 'turns' | 'qa' | 'facts'): T[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new MnemoError('INVALID_INPUT', `--${what}: expected a readable JSON-lines file, got ${path} (${(error as Error).message}).`, { cause: error });
  }
  const rows: T[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new MnemoError('INVALID_INPUT', `${path}:${index + 1}: expected one JSON object per line, got malformed JSON (${(error as Error).message}).`, { cause: error });
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new MnemoError('INVALID_INPUT', `${path}:${index + 1}: ${issue?.path.join('.') || 'row'}: ${issue?.message ?? 'invalid'}. Each ${what} line needs ${{ turns: '{conv, id, turn, text}', qa: '{conv, qid, question, category, evidence[]}', facts: '{conv, statement, evidence[]}' }[what]}.`);
    }
    rows.push(parsed.data);
  });
  return rows;
}

/**
 * Reads and checks both files; turns are grouped by conversation in turn order.
 *
 * @example
 * ```ts
 * const { conversations, questions } = readDataset('locomo.turns.jsonl', 'locomo.qa.jsonl');
 * ```
 */
export function readDataset(turnsPath: string, questionsPath: string): { conversations: Map<string, EvaluationTurn[]>; questions: EvaluationQuestion[] } {
  const turns = readJsonLines(turnsPath, turnSchema, 'turns');
  const questions = readJsonLines(questionsPath, questionSchema, 'qa');
  const conversations = new Map<string, EvaluationTurn[]>();
  for (const turn of turns) {
    const list = conversations.get(turn.conv) ?? [];
    list.push(turn);
    conversations.set(turn.conv, list);
  }
  for (const list of conversations.values()) list.sort((a, b) => a.turn - b.turn);
  for (const question of questions) {
    if (!conversations.has(question.conv)) {
      throw new MnemoError('INVALID_INPUT', `${questionsPath}: question ${question.qid} names conversation ${question.conv}, which the turns file does not hold.`);
    }
  }
  return { conversations, questions };
}

/**
 * Reads a facts file: JSON lines `{conv, statement, evidence[]}`, the evidence being turn ids of the turns file
 * (for `mnemo eval --facts`, standing in for what an extractor would distil; evaluation only).
 *
 * @example
 * ```ts
 * const facts = readFacts('locomo.facts.jsonl'); // [{ conv: 'conv-26', statement: '...', evidence: ['D1:3'] }, ...]
 * ```
 */
export function readFacts(path: string): EvaluationFact[] {
  return readJsonLines(path, factSchema, 'facts');
}
