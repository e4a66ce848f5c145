// A tolerant JSON reader for model answers: the whole text, a ```json fence, or the first JSON value inside prose.
import { MnemoError } from '../core/errors.js';

const MAX_SCAN = 200_000;

/** Removes `<think>...</think>` blocks that reasoning models put before their answer. */
function withoutThinking(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, '');
}

function tryParse(candidate: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(candidate) };
  } catch {
    const repaired = withoutTrailingCommas(candidate);
    if (repaired === candidate) return { ok: false };
    try {
      return { ok: true, value: JSON.parse(repaired) };
    } catch {
      return { ok: false };
    }
  }
}

/** Drops commas directly before a closing bracket or brace (outside strings), a common slip of small models. */
function withoutTrailingCommas(text: string): string {
  let output = '';
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (inString) {
      output += char;
      if (char === '\\') output += text[++index] ?? '';
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    if (char === ',') {
      let next = index + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next++;
      if (text[next] === '}' || text[next] === ']') continue;
    }
    output += char;
  }
  return output;
}

/** The index just past the bracket that closes the one at `start`, or -1 (strings and escapes respected). */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index] as string;
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') stack.push('}');
    else if (char === '[') stack.push(']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return index + 1;
    }
  }
  return -1;
}

/** The first JSON object or array found in `text`, scanning from each `{` or `[` in turn. */
function firstEmbeddedValue(text: string): { ok: true; value: unknown } | { ok: false } {
  for (let start = 0; start < text.length; start++) {
    const char = text[start];
    if (char !== '{' && char !== '[') continue;
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    const parsed = tryParse(text.slice(start, end));
    if (parsed.ok) return parsed;
  }
  return { ok: false };
}

/**
 * Reads the JSON a model meant to give: the whole answer when it is JSON, else the first fenced block that holds
 * JSON, else the first JSON object or array embedded in prose. Trailing commas are forgiven and `<think>` blocks
 * skipped. Throws `PROVIDER_MALFORMED` when no JSON value can be found.
 *
 * @example
 * ```ts
 * extractJson('Sure! ```json\n{"facts": []}\n``` Hope this helps.'); // { facts: [] }
 * extractJson('The answer is [1, 2, 3].');                           // [1, 2, 3]
 * ```
 */
export function extractJson(text: string): unknown {
  const answer = withoutThinking(text.length > MAX_SCAN ? text.slice(0, MAX_SCAN) : text).trim();
  const whole = tryParse(answer);
  if (whole.ok && whole.value !== null && typeof whole.value === 'object') return whole.value;
  for (const match of answer.matchAll(/```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g)) {
    const block = (match[1] ?? '').trim();
    const parsed = tryParse(block);
    if (parsed.ok) return parsed.value;
    const embedded = firstEmbeddedValue(block);
    if (embedded.ok) return embedded.value;
  }
  const embedded = firstEmbeddedValue(answer);
  if (embedded.ok) return embedded.value;
  if (whole.ok) return whole.value;
  const excerpt = answer.length > 120 ? `${answer.slice(0, 120)}...` : answer;
  throw new MnemoError('PROVIDER_MALFORMED', `Expected a JSON object or array in the model's answer, got ${answer === '' ? 'an empty answer' : JSON.stringify(excerpt)}. Use a model that follows instructions, or one whose server supports structured output.`, {
    details: { expected: 'JSON', received: excerpt },
  });
}
