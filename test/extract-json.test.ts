// The tolerant JSON reader and the scripted LLM.
import { describe, expect, it } from 'vitest';
import { extractJson } from '../src/llms/extract-json.js';
import { ScriptedLlm } from '../src/llms/scripted/index.js';

describe('extractJson', () => {
  it('reads plain JSON, fenced JSON and JSON inside prose', () => {
    expect(extractJson('{"a": 1}')).toEqual({ a: 1 });
    expect(extractJson('  [1, 2]  ')).toEqual([1, 2]);
    expect(extractJson('Sure!\n```json\n{"facts": [{"statement": "x"}]}\n```\nDone.')).toEqual({ facts: [{ statement: 'x' }] });
    expect(extractJson('```\n[{"b": true}]\n```')).toEqual([{ b: true }]);
    expect(extractJson('The list is [1, 2, 3] as asked.')).toEqual([1, 2, 3]);
  });

  it('keeps braces inside strings, skips broken candidates, forgives trailing commas and thinking blocks', () => {
    expect(extractJson('note {"s": "a } b { c", "n": [1, {"x": "]"}]} end')).toEqual({ s: 'a } b { c', n: [1, { x: ']' }] });
    expect(extractJson('{broken} then {"ok": 1}')).toEqual({ ok: 1 });
    expect(extractJson('{"a": [1, 2,], }')).toEqual({ a: [1, 2] });
    expect(extractJson('<think>maybe {"wrong": 1}</think>{"right": 2}')).toEqual({ right: 2 });
  });

  it('throws PROVIDER_MALFORMED when there is no JSON', () => {
    expect(() => extractJson('no json here')).toThrow(expect.objectContaining({ code: 'PROVIDER_MALFORMED' }));
    expect(() => extractJson('')).toThrow(/empty answer/);
    expect(() => extractJson('{"unterminated": ')).toThrow(expect.objectContaining({ code: 'PROVIDER_MALFORMED' }));
  });
});

describe('ScriptedLlm', () => {
  const parse = (value: unknown) => value as { n: number };
  const request = { schemaName: 'n', schema: {}, parse };

  it('answers in order, records calls, and runs out with PROVIDER_FAILURE', async () => {
    const llm = new ScriptedLlm(['{"n": 1}', { n: 2 }, new Error('down'), 'plain']);
    expect(await llm.json([{ role: 'user', content: 'one' }], request)).toEqual({ n: 1 });
    expect(await llm.json([{ role: 'user', content: 'two' }], request)).toEqual({ n: 2 });
    await expect(llm.json([{ role: 'user', content: 'three' }], request)).rejects.toMatchObject({ code: 'PROVIDER_FAILURE' });
    await expect(llm.json([{ role: 'user', content: 'four' }], request)).rejects.toMatchObject({ code: 'PROVIDER_MALFORMED' });
    await expect(llm.complete([{ role: 'user', content: 'five' }])).rejects.toThrow(/ran out of answers/);
    expect(llm.calls.map((call) => call.prompt)).toEqual(['one', 'two', 'three', 'four', 'five']);
    expect(llm.calls[0]?.schemaName).toBe('n');
  });

  it('honours cancellation and deadlines while the script is thinking', async () => {
    const never = new ScriptedLlm(() => new Promise(() => {}));
    const controller = new AbortController();
    const pending = never.complete([{ role: 'user', content: 'x' }], { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(never.complete([{ role: 'user', content: 'x' }], { timeoutMs: 10 })).rejects.toMatchObject({ code: 'PROVIDER_TIMEOUT' });
  });
});
