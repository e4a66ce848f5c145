// What is indexed for each evaluation turn: its text, "speaker: text", or LoCoMo's own RAG unit.
import { MnemoError } from '../core/errors.js';
import type { EvaluationTurn } from './dataset.js';

/** The three document forms of the LoCoMo scorer. */
export const DOCUMENT_MODES = ['text', 'speaker', 'full'] as const;
export type DocumentMode = (typeof DOCUMENT_MODES)[number];

/**
 * The text indexed for a turn, exactly as the scorer's baseline builds it.
 *
 * @example
 * ```ts
 * documentText({ conv: 'c', id: 'D1:1', turn: 0, speaker: 'Ann', date: '8 May', text: 'Hi' }, 'full');
 * // '(8 May) Ann said, "Hi"'
 * ```
 */
export function documentText(turn: EvaluationTurn, mode: DocumentMode): string {
  switch (mode) {
    case 'text':
      return turn.text;
    case 'speaker':
      return `${turn.speaker ?? ''}: ${turn.text}`;
    case 'full':
      return `(${turn.date ?? ''}) ${turn.speaker ?? ''} said, "${turn.text}"` + (turn.caption ? ` [shares ${turn.caption}]` : '');
    default:
      throw new MnemoError('INVALID_INPUT', `--doc: expected one of ${DOCUMENT_MODES.join(', ')}, got ${JSON.stringify(mode)}.`);
  }
}
