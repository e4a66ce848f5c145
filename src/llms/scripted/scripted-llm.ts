// The scripted LLM: answers from a list or a function, for deterministic tests of everything that calls a model.
import { MnemoError } from '../../core/errors.js';
import type { LLM, LlmCallOptions, LlmJsonRequest, LlmMessage } from '../../seams/llm.js';
import { callScope } from '../call-scope.js';
import { readJsonAnswer } from '../json-answer.js';

/** What the script sees of one call. */
export interface ScriptedCall {
  kind: 'complete' | 'json';
  messages: LlmMessage[];
  /** The schema name of a JSON call (`facts`, `consolidation`, `mental_model`, ...), null for `complete`. */
  schemaName: string | null;
  /** Every message's content, joined by blank lines: handy for matching. */
  prompt: string;
  /** Fires when the caller cancels or the deadline passes. */
  signal: AbortSignal;
}

/**
 * One answer: a string is the raw text the model "wrote" (read tolerantly for JSON calls), an Error is thrown as a
 * provider failure, any other value is sent as its JSON text.
 */
export type ScriptedAnswer = string | Error | object | number | boolean | null;

/** A script: the answers in order, or a function of the call. */
export type Script = readonly (ScriptedAnswer | ((call: ScriptedCall) => ScriptedAnswer | Promise<ScriptedAnswer>))[] | ((call: ScriptedCall) => ScriptedAnswer | Promise<ScriptedAnswer>);

/** Options of the scripted LLM. */
export interface ScriptedLlmOptions {
  modelId?: string;
  /** The deadline when a call names none (default: none). */
  timeoutMs?: number;
}

/**
 * A deterministic LLM for tests. It records every call in `calls`, honours cancellation and deadlines like a real
 * adapter, and reads JSON answers with the same tolerant reader.
 *
 * @example
 * ```ts
 * const llm = new ScriptedLlm((call) => call.schemaName === 'facts' ? { facts: [{ statement: 'Kaël owns a key.' }] } : { actions: [] });
 * ```
 */
export class ScriptedLlm implements LLM {
  readonly provider = 'scripted';
  readonly modelId: string;
  readonly calls: ScriptedCall[] = [];
  private readonly script: Script;
  private readonly timeoutMs: number;
  private next = 0;

  constructor(script: Script, options: ScriptedLlmOptions = {}) {
    this.script = script;
    this.modelId = options.modelId ?? 'script';
    this.timeoutMs = options.timeoutMs ?? Infinity;
  }

  complete(messages: readonly LlmMessage[], options: LlmCallOptions = {}): Promise<string> {
    return this.answer('complete', messages, null, options);
  }

  async json<T>(messages: readonly LlmMessage[], request: LlmJsonRequest<T>): Promise<T> {
    const text = await this.answer('json', messages, request.schemaName, request);
    return readJsonAnswer(text, request, `${this.provider}/${this.modelId}`);
  }

  private pick(call: ScriptedCall): ScriptedAnswer | Promise<ScriptedAnswer> {
    if (typeof this.script === 'function') return this.script(call);
    const entry = this.script[this.next++];
    if (entry === undefined) {
      return new MnemoError('PROVIDER_FAILURE', `The scripted LLM ran out of answers at call ${this.next} (it holds ${this.script.length}). Add answers to the script.`);
    }
    return typeof entry === 'function' ? entry(call) : entry;
  }

  private async answer(kind: ScriptedCall['kind'], messages: readonly LlmMessage[], schemaName: string | null, options: LlmCallOptions): Promise<string> {
    const what = `${this.provider}/${this.modelId}`;
    const scope = callScope({ signal: options.signal, timeoutMs: options.timeoutMs ?? this.timeoutMs }, what);
    try {
      const copy = messages.map(({ role, content }) => ({ role, content }));
      const call: ScriptedCall = { kind, messages: copy, schemaName, prompt: copy.map((message) => message.content).join('\n\n'), signal: scope.signal };
      this.calls.push(call);
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(scope.abortError() ?? new MnemoError('CANCELLED', `${what} was cancelled.`));
        if (scope.signal.aborted) fail();
        else scope.signal.addEventListener('abort', fail, { once: true });
      });
      aborted.catch(() => {});
      const answer = await Promise.race([Promise.resolve(this.pick(call)), aborted]);
      if (answer instanceof MnemoError) throw answer;
      if (answer instanceof Error) throw new MnemoError('PROVIDER_FAILURE', `${what} failed: ${answer.message}`, { cause: answer });
      return typeof answer === 'string' ? answer : JSON.stringify(answer);
    } finally {
      scope.dispose();
    }
  }
}

/**
 * A scripted LLM (see ScriptedLlm).
 *
 * @example
 * ```ts
 * const llm = scriptedLlm(['{"facts": []}', new Error('down')]);
 * ```
 */
export function scriptedLlm(script: Script, options?: ScriptedLlmOptions): ScriptedLlm {
  return new ScriptedLlm(script, options);
}
