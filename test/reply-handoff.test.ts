// Reply handoff: which texts ask, what each candidate gains or loses, the option, and the step in a save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { MAX_REPLY_HANDOFF_HEAD, asksQuestion, optionalReplyHandoff, replyHandoffs } from '../src/retrieval/reply-handoff.js';

describe('asksQuestion', () => {
  it('is true when the last sentence-ending mark is a question mark, whatever follows it', () => {
    expect(asksQuestion('What are their names?')).toBe(true);
    expect(asksQuestion('They are adorable! What are their names?')).toBe(true);
    expect(asksQuestion('(8 May) Ann said, "Did you go?" [shares a photo of a dog]')).toBe(true);
    expect(asksQuestion('How was it? :)')).toBe(true);
    expect(asksQuestion('你去了吗？')).toBe(true);
    expect(asksQuestion('هل ذهبت؟')).toBe(true);
  });
  it('is false for a statement, a question answered in the same text, and a text without marks', () => {
    expect(asksQuestion('Her name is Coco.')).toBe(false);
    expect(asksQuestion('Did I go? Yes, I did!')).toBe(false);
    expect(asksQuestion('Well...')).toBe(false);
    expect(asksQuestion('no marks at all')).toBe(false);
    expect(asksQuestion('')).toBe(false);
  });
});

describe('replyHandoffs', () => {
  const options = { weight: 0.5, head: 50 };
  it('steps a question down and raises its reply to the question score', () => {
    const candidates = [{ slot: 1, score: 3 }, { slot: 5, score: 2 }, { slot: 2, score: 1 }];
    expect([...replyHandoffs(candidates, (slot) => slot === 1, (slot) => slot + 1, options)]).toEqual([-0.5, 0, 2]);
  });
  it('never lowers a reply already above the question, and leaves a reply that is no candidate alone', () => {
    const candidates = [{ slot: 2, score: 3 }, { slot: 1, score: 2 }];
    expect([...replyHandoffs(candidates, (slot) => slot === 1, (slot) => slot + 1, options)]).toEqual([0, -0.5]);
    expect([...replyHandoffs([{ slot: 1, score: 3 }], () => true, (slot) => slot + 1, options)]).toEqual([-0.5]);
    expect([...replyHandoffs([{ slot: 1, score: 3 }, { slot: 2, score: 1 }], () => true, () => null, options)]).toEqual([-0.5, -0.5]);
  });
  it('gives a reply that also asks the raise, then the step, and its own reply the score it had', () => {
    // 1 asks, 2 answers with a question, 3 answers that.
    const candidates = [{ slot: 1, score: 3 }, { slot: 2, score: 2 }, { slot: 3, score: 1 }];
    expect([...replyHandoffs(candidates, (slot) => slot !== 3, (slot) => slot + 1, options)]).toEqual([-0.5, 1 - 0.5, 1]);
  });
  it('reads only the head, and takes the best question a reply answers', () => {
    const candidates = [{ slot: 1, score: 3 }, { slot: 7, score: 2.5 }, { slot: 2, score: 1 }];
    expect([...replyHandoffs(candidates, (slot) => slot !== 2, () => 2, { weight: 1, head: 2 })]).toEqual([-1, -1, 2]);
    expect([...replyHandoffs(candidates, (slot) => slot !== 2, () => 2, { weight: 1, head: 1 })]).toEqual([-1, 0, 2]);
  });
});

describe('optionalReplyHandoff', () => {
  it('checks its options', () => {
    expect(optionalReplyHandoff({ weight: 0.5 }, null)).toEqual({ weight: 0.5, head: 50 });
    expect(optionalReplyHandoff({ weight: 1, head: 20 }, null)).toEqual({ weight: 1, head: 20 });
    expect(optionalReplyHandoff({ weight: 0 }, null)).toBeUndefined();
    expect(optionalReplyHandoff(undefined, { weight: 1, head: 5 })).toEqual({ weight: 1, head: 5 });
    expect(optionalReplyHandoff(null, { weight: 1, head: 5 })).toBeUndefined();
    expect(() => optionalReplyHandoff({ weight: -1 }, null)).toThrow(/replyHandoff: expected/);
    expect(() => optionalReplyHandoff({ weight: 1, head: MAX_REPLY_HANDOFF_HEAD + 1 }, null)).toThrow(/head\?: an integer from 1 to 200/);
    expect(() => optionalReplyHandoff({ weight: 1, head: 0 }, null)).toThrow(/replyHandoff/);
    expect(() => optionalReplyHandoff(0.5, null)).toThrow(/replyHandoff/);
  });
});

describe('reply handoff in a save', () => {
  // The question shares the query's words; the reply that answers it shares fewer.
  const TURNS = [
    { text: 'The harbour was loud today.', scene: '1' },
    { text: 'Which boat did the sailor take to the island?', scene: '1' },
    { text: 'The red one, with the torn sail.', scene: '1' },
    { text: 'Did the sailor sing on the island?', scene: '1' },
    { text: 'A storm came at dawn.', scene: '2' },
  ];
  it('moves a question below its reply, leaves the reply across a scene alone, and changes nothing with the option off', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'none' });
    await memory.addMany(TURNS.map(({ text, scene }, turn) => ({ saveId: 's', turnId: turn, text, metadata: { scene } })));
    const options = { k: 5, feedback: null, adaptiveWeights: 0 } as const;
    const plain = await memory.query('s', 'which boat did the sailor take to the island', options);
    expect(await memory.query('s', 'which boat did the sailor take to the island', { ...options, replyHandoff: null })).toEqual(plain);
    expect(plain[0]?.turnId).toBe(1);
    const handed = await memory.query('s', 'which boat did the sailor take to the island', { ...options, replyHandoff: { weight: 0.5 } });
    const turns = handed.map((hit) => hit.turnId);
    expect(turns.indexOf(2)).toBeLessThan(turns.indexOf(1));
    const part = (turn: number) => handed.find((hit) => hit.turnId === turn)?.explanation.contributions?.handoff;
    expect(part(1)).toBe(-0.5);
    expect(part(2)).toBeGreaterThan(0);
    // Turn 3 asks too, but the turn after it opens another scene: it only steps down.
    expect(part(3)).toBe(-0.5);
    expect(part(4)).toBeUndefined();
    expect(part(0)).toBeUndefined();
    await expect(memory.query('s', 'boat', { replyHandoff: { weight: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});
