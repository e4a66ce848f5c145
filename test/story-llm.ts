// A deterministic stand-in for a model that plays the living-memory stages: it reads the prompts the stages send
// and answers as a careful model would, so pipeline tests can check what lands in the store.
import { ScriptedLlm } from '../src/llms/scripted/index.js';
import type { ScriptedAnswer, ScriptedCall } from '../src/llms/scripted/index.js';

/** The narrative between the <<< >>> markers of an extraction prompt. */
export function narrativeOf(call: ScriptedCall): string {
  return /<<<\n([\s\S]*?)\n>>>/.exec(call.prompt)?.[1] ?? '';
}

/** Capitalised words of a sentence, as its entities (the first word counts only if it is a name used elsewhere). */
function namesIn(sentence: string): string[] {
  return [...new Set(sentence.match(/\p{Lu}[\p{L}\p{M}]+/gu) ?? [])].filter((word) => !['The', 'A', 'An', 'He', 'She', 'They', 'It'].includes(word));
}

/** One fact per sentence of the narrative. */
export function factsAnswer(call: ScriptedCall): object {
  const sentences = narrativeOf(call).split(/(?<=[.!?])\s+/).map((sentence) => sentence.trim()).filter((sentence) => sentence !== '');
  return {
    facts: sentences.map((sentence) => ({ statement: sentence, fact_type: 'experience', who: namesIn(sentence)[0] ?? '', what: sentence, when: '', where: '', why: '', entities: namesIn(sentence) })),
  };
}

/** One action per new fact: UPDATE the held belief about its first name, else CREATE one. */
export function consolidationAnswer(call: ScriptedCall): object {
  const user = call.messages[1]?.content ?? '';
  const [factPart, beliefPart = ''] = user.split(/\nBeliefs held/);
  const held = new Map<string, number>();
  for (const match of beliefPart.matchAll(/^\[(\d+)\] .*\(about: ([^;]+);/gm)) held.set(match[2] as string, Number(match[1]));
  const actions = [...(factPart ?? '').matchAll(/^\[(\d+)\] (.*?)(?: \(who: ([^;)]*)[;)].*)?$/gm)].map((match) => {
    const subject = match[3] ?? '';
    const existing = held.get(subject === '' ? 'the world' : subject);
    return existing === undefined
      ? { kind: 'CREATE', belief_id: null, subject, statement: `${subject || 'The world'} remembers: ${match[2]}`, source_fact_ids: [Number(match[1])] }
      : { kind: 'UPDATE', belief_id: existing, subject, statement: `${subject || 'The world'} still remembers: ${match[2]}`, source_fact_ids: [Number(match[1])] };
  });
  return { actions };
}

/** A profile naming the subject and how many beliefs it read. */
export function modelAnswer(call: ScriptedCall): object {
  const subject = /Subject: (.*)/.exec(call.prompt)?.[1] ?? '?';
  const beliefs = call.prompt.split('\n').filter((line) => line.startsWith('- [')).length;
  return { summary: `${subject} is shaped by ${beliefs} beliefs.` };
}

/** Answers every stage; `override` may answer first (return undefined to fall through). */
export function storyAnswer(call: ScriptedCall): object {
  if (call.schemaName === 'facts') return factsAnswer(call);
  if (call.schemaName === 'consolidation') return consolidationAnswer(call);
  return modelAnswer(call);
}

/** A story LLM; `override` can intercept calls (e.g. to fail or to block). */
export function storyLlm(override?: (call: ScriptedCall) => ScriptedAnswer | Promise<ScriptedAnswer> | undefined): ScriptedLlm {
  return new ScriptedLlm(async (call) => {
    const answer = await override?.(call);
    return answer === undefined ? storyAnswer(call) : answer;
  });
}

/** A promise with its resolve function, to hold a scripted model until the test releases it. */
export function gate(): { promise: Promise<void>; release(): void } {
  let release: () => void = () => {};
  const promise = new Promise<void>((resolve) => { release = resolve; });
  return { promise, release };
}
